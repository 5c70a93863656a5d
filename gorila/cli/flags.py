"""Config fields as flags: one per field of `Config` (`--total-frames`, `--bundled/--no-bundled`, ...),
grouped by the schema's sections, plus `--set KEY=VALUE` and `--help-field NAME`, and the config that
the flags, `--preset`, `--config` and `--scale` describe.

The help shows each field's first sentence and its default as the command line's preset gives it (the
`--preset` and `--scale` in argv, else the preset its `--env` implies): a person reads what this run
would use, and `--help-field NAME` prints the whole docstring."""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import textwrap
import typing

from gorila.cli.errors import UserError
from gorila.config import (
    PRESETS,
    Config,
    ConfigError,
    apply_overrides,
    build_config,
    coerce,
    field_docs,
    field_types,
    preset_for_env,
    scaled_preset,
)
from gorila.config.parsing import closest_fields, describe_type, did_you_mean, field_sections
from gorila.config.sections import SECTIONS


def add_config_flags(
    parser: argparse.ArgumentParser, argv: list[str], preset: str | None = None, hidden: typing.Iterable[str] = ()
) -> None:
    """One flag per config field, in one group per section of the schema, each with the first clause of
    its docstring (`short_help`) and its default under the preset of `argv` (else `preset`). The fields in `hidden`
    are accepted but left out of the help (a command that refuses them says so when it runs)."""
    defaults, whose = help_defaults(argv, preset)
    docs, types = field_docs(), field_types()
    lead = parser.add_argument_group(
        "config fields",
        f"Flags that override the preset and the config file; defaults shown are {whose}. "
        "A help that ends in ... is the first clause of the field's docstring: --help-field NAME "
        "prints the whole.",
    )
    lead.add_argument(
        "--help-field",
        nargs="+",
        metavar="NAME",
        action=HelpField,
        defaults=defaults,
        whose=whose,
        help="print the whole docstring, rule and default of config fields, and exit",
    )
    for section in SECTIONS:
        group = parser.add_argument_group(section.TITLE, section.__doc__)
        for name in (item.name for item in dataclasses.fields(section)):
            help_text = (
                argparse.SUPPRESS
                if name in hidden
                else (
                    f"{short_help(docs.get(name, ''))} [default: {shown(getattr(defaults, name))}]".replace("%", "%%")
                )
            )
            add_field_flag(group, name, types[name], help_text)


def add_field_flag(group, name: str, kind, help_text: str) -> None:
    """`--NAME` for one field: a `--x/--no-x` pair for a bool, `KEY=VALUE` pairs for a mapping, a choice
    for a Literal, else a value; its default is None, so that `cli_overrides` sees only the fields given."""
    flag = "--" + name.replace("_", "-")
    if kind is bool:
        group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
    elif kind is dict:  # --env-kwargs KEY=VALUE, repeatable
        group.add_argument(flag, dest=name, action="append", default=None, metavar="KEY=VALUE", help=help_text)
    elif typing.get_origin(kind) is typing.Literal:
        group.add_argument(flag, dest=name, choices=typing.get_args(kind), default=None, help=help_text)
    else:
        group.add_argument(flag, dest=name, default=None, metavar=METAVARS.get(kind, name.upper()), help=help_text)


METAVARS = {int: "N", float: "X", tuple[int, ...]: "N,N"}  # short, so the help stays beside its flag


def help_defaults(argv: list[str], preset: str | None = None) -> tuple[Config, str]:
    """The config whose values the help shows as defaults, and whose they are: the `--preset` of `argv`
    (else `preset`) scaled by its `--scale`, else the preset its `--env` implies, else `Config()`'s. A
    bad scale is left out, never an error here: parsing says what is wrong. Only an `--env` given is
    resolved (that imports its environment package), so a plain `--help` imports the schema alone."""
    preset, env, scale = given(argv, "--preset") or preset, given(argv, "--env"), number(given(argv, "--scale"))
    implied = preset_for_env(env) if env and preset not in PRESETS else None
    name = preset if preset in PRESETS else implied
    try:
        values = scaled_preset(name, scale)[0] if name else {}
    except ConfigError:  # a bad --scale
        values, scale = scaled_preset(name)[0], None
    config = apply_overrides(Config(), {**values, **({"env": env} if env else {})})
    if not name:
        return config, "Config()'s (--preset NAME --help shows a preset's)"
    if implied:
        return config, f"the {implied} preset's, which --env {env} starts from"
    return config, f"the {name} preset's" + (f" scaled by {scale:g}" if scale is not None else "")


def given(argv: list[str], flag: str) -> str | None:
    """The value `argv` gives `flag` (`--preset atari` or `--preset=atari`; the last one wins), else None."""
    value = None
    for token, following in zip(argv, [*argv[1:], None]):
        if token == flag:
            value = following
        elif token.startswith(flag + "="):
            value = token.partition("=")[2]
    return value


def number(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def short_help(doc: str) -> str:
    """What the help shows of a docstring: its first sentence, up to its first semicolon outside
    parentheses or its first colon there after a label's length (`Atari: ...` stays whole), with `...`
    where something was left out (`--help-field` prints the whole)."""
    depth = 0
    for end, char in enumerate(doc):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and (
            char == ";" or char == ":" and end >= LABEL and doc[end + 1 : end + 2] == " " or sentence_ends(doc, end)
        ):
            return doc[:end].rstrip(".") + "..."
    return doc


LABEL = 40  # characters before a colon that make it end a clause rather than a label (`Atari:`)


def sentence_ends(doc: str, end: int) -> bool:
    """Whether the full stop at `end` ends a sentence: a capital or a digit follows, and it ends no
    abbreviation (`Mnih et al. 2015`, `e.g. Pong`)."""
    following = doc[end + 2 : end + 3]
    return (
        doc[end] == "."
        and doc[end + 1 : end + 2] == " "
        and (following.isupper() or following.isdigit())
        and not doc[:end].endswith(ABBREVIATIONS)
    )


ABBREVIATIONS = (" al", "e.g", "i.e", " cf", " vs")


def shown(value) -> str:
    """A default as it would be typed: `true`, `64,64`, `1_000_000`, `''` for an empty string."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    if isinstance(value, int):
        return f"{value:_}"
    return str(value) if value != "" else "''"


class HelpField(argparse.Action):
    """`--help-field NAME...`: print each field's flag, section, whole docstring, rule and default; exit 0."""

    def __init__(self, option_strings, dest, defaults: Config, whose: str, **kwargs):
        super().__init__(option_strings, dest, default=argparse.SUPPRESS, **kwargs)
        self.defaults, self.whose = defaults, whose

    def __call__(self, parser, namespace, values, option_string=None):
        names = [value.lstrip("-").replace("-", "_") for value in values]
        for value, name in zip(values, names):
            if name not in field_types():
                raise UserError(f"--help-field: {value} is no config field{did_you_mean(closest_fields(value))}")
        print("\n\n".join(self.describe(name) for name in names))
        parser.exit()

    def describe(self, name: str) -> str:
        """One field's help: flag and section, docstring wrapped to the terminal, type and rule, default."""
        section = next(title for title, names in field_sections().items() if name in names)
        rule = next(item.metadata.get("rule") for item in dataclasses.fields(Config) if item.name == name)
        width = min(shutil.get_terminal_size().columns, 100) - 2
        return "\n".join(
            [
                f"--{name.replace('_', '-')} ({name}, {section})",
                textwrap.fill(field_docs()[name], width, initial_indent="  ", subsequent_indent="  "),
                f"  {describe_type(field_types()[name])}" + (f" that must {rule[1]}" if rule else ""),
                f"  default: {shown(getattr(self.defaults, name))} ({self.whose})",
            ]
        )


def cli_overrides(args) -> dict:
    """The config fields given on the command line, as flags or `--set KEY=VALUE`."""
    types = field_types()
    overrides = {name: getattr(args, name) for name in types if getattr(args, name) is not None}
    for name in [name for name, value in overrides.items() if types[name] is dict]:  # KEY=VALUE, repeated
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
