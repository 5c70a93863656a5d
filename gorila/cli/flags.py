"""Config fields as flags: one per field of `Config` (`--total-frames`, `--bundled/--no-bundled`, ...),
plus `--set KEY=VALUE`, and the config that the flags, `--preset`, `--config` and `--scale` describe."""
from __future__ import annotations

import argparse
import typing

from gorila.config import Config, ConfigError, build_config, coerce, field_docs, field_types


def add_config_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per config field, whose help is the field's docstring and its default."""
    docs, types = field_docs(), field_types()
    group = parser.add_argument_group("config fields (override the preset and the config file)")
    for name, kind in types.items():
        flag = "--" + name.replace("_", "-")
        help_text = docs.get(name, "") + f" [default: {getattr(Config(), name)!r}]"
        if kind is bool:
            group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
        elif kind is dict:
            group.add_argument(flag, dest=name, action="append", default=None, metavar="KEY=VALUE", help=help_text)
        elif typing.get_origin(kind) is typing.Literal:
            group.add_argument(flag, dest=name, choices=typing.get_args(kind), default=None, help=help_text)
        else:
            group.add_argument(flag, dest=name, default=None, metavar=name.upper(), help=help_text)


def cli_overrides(args) -> dict:
    """The config fields given on the command line, as flags or `--set KEY=VALUE`."""
    types = field_types()
    overrides = {name: getattr(args, name) for name in types if getattr(args, name) is not None}
    for name in [name for name, value in overrides.items() if types[name] is dict]:    # KEY=VALUE, repeated
        overrides[name] = {key: value for item in overrides[name] for key, value in coerce(name, item, dict).items()}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set expects KEY=VALUE, got {item!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def config_from_args(args) -> Config:
    """The config of `--preset`, `--config`, the field flags and `--set`, scaled by `--scale` if given."""
    return build_config(args.preset, args.config, cli_overrides(args), getattr(args, "scale", None))
