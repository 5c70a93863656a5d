"""From text and YAML to a validated `Config`: a preset, then a YAML file, then overrides, last wins.

Values given as text (a flag, `--set`) are parsed; typed values (YAML, Python) are checked as they are.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import functools
import inspect
import textwrap
import typing
from dataclasses import fields
from pathlib import Path
from typing import Literal

import yaml

from gorila.config.derived import round_size
from gorila.config.migration import FRAME_COUNTED_KEY, in_agent_steps
from gorila.config.presets import preset_for_env
from gorila.config.scaling import actor_shares, describe_shares, scaled_preset
from gorila.config.schema import Config, ConfigError, validate
from gorila.config.sections import SECTIONS


@functools.cache
def field_docs() -> dict[str, str]:
    """The docstring written under each field of each section (used for the CLI help and the docs)."""
    docs = {}
    for section in SECTIONS:
        body = ast.parse(textwrap.dedent(inspect.getsource(section))).body[0].body
        for node, following in zip(body, body[1:]):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[node.target.id] = following.value.value.strip()
    return docs


def field_sections() -> dict[str, list[str]]:
    """The fields of each section by its title, in the schema's order (the groups of the CLI help)."""
    return {section.TITLE: [item.name for item in fields(section)] for section in SECTIONS}


def field_types() -> dict[str, typing.Any]:
    hints = typing.get_type_hints(Config)
    return {f.name: hints[f.name] for f in fields(Config)}


def is_object_field(kind) -> bool:
    """A field that takes a name or, from Python, the object itself (`env`, `network`)."""
    return typing.get_origin(kind) is typing.Union and str in typing.get_args(kind)


def describe_type(kind) -> str:
    """How an error message names what a field accepts."""
    if is_object_field(kind):
        return "a name or a callable"
    if kind is dict:
        return "a mapping of names to values (KEY=VALUE)"
    if typing.get_origin(kind) is Literal:
        return "one of " + ", ".join(map(str, typing.get_args(kind)))
    if typing.get_origin(kind) is tuple:
        return "a list of integers (e.g. 64,64 or [64, 64])"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}[kind]


def coerce(key: str, value, kind):
    """Turn a YAML or command-line value into the field's type, or raise ConfigError naming the key.

    Text (a flag, `--set`) is parsed. A typed value (YAML, Python) is checked as it is, never cast:
    casting is how `null` became the string "None", `yes` became 1 and `[64.7]` became [64]. A float
    is accepted for an integer field only when it is a whole number (`1.0e6`), which loses nothing.
    """
    if value is None:
        raise ConfigError(f"{key} must be {describe_type(kind)}, got null")
    try:
        return _from_text(value, kind) if isinstance(value, str) else _from_typed(value, kind)
    except (TypeError, ValueError, OverflowError, yaml.YAMLError):
        raise ConfigError(f"{key} must be {describe_type(kind)}, got {value!r}") from None


def _from_text(text: str, kind):
    """The value a flag or `--set` spells; ValueError when it does not spell one of `kind`."""
    if kind is dict:
        return _mapping_from_text(text)
    if typing.get_origin(kind) is Literal:
        if text not in typing.get_args(kind):
            raise ValueError(text)
        return text
    if typing.get_origin(kind) is tuple:
        items = text.strip().removeprefix("[").removesuffix("]")  # YAML's flow style is accepted too
        return tuple(_from_text(item.strip(), int) for item in items.split(","))
    if kind is bool:
        lowered = text.strip().lower()
        if lowered not in ("true", "false", "1", "0", "yes", "no"):
            raise ValueError(text)
        return lowered in ("true", "1", "yes")
    if kind is int:
        digits = text.strip().replace("_", "")
        return _whole(float(digits)) if any(c in digits for c in ".eE") else int(digits)
    if kind is float:
        return _finite(float(text.replace("_", "")))
    return text


def _mapping_from_text(text: str) -> dict:
    """`KEY=VALUE` (one pair, as `--env-kwargs` takes them) or a YAML mapping `{a: 1, b: [2, 3]}` as a
    dict, each value read as YAML (`1` an int, `x` a string, `[2, 3]` a list)."""
    text = text.strip()
    if text.startswith("{"):
        return _from_typed(yaml.safe_load(text), dict)
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(text)
    return {key.strip(): yaml.safe_load(value) if value.strip() else ""}


def _from_typed(value, kind):
    """`value` itself when it is of `kind` (a whole float for an int); TypeError/ValueError otherwise."""
    if is_object_field(kind):
        if not (isinstance(value, str) or callable(value)):
            raise TypeError(value)
        return value
    if kind is dict:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise TypeError(value)
        return dict(value)
    if typing.get_origin(kind) is Literal:
        if not isinstance(value, str) or value not in typing.get_args(kind):
            raise ValueError(value)
        return value
    if typing.get_origin(kind) is tuple:
        if not isinstance(value, (list, tuple)):
            raise TypeError(value)
        return tuple(_from_typed(item, int) for item in value)
    if kind is bool:
        if not isinstance(value, bool):
            raise TypeError(value)
        return value
    if isinstance(value, bool):  # bool is an int subclass: `actors: yes` is not 1
        raise TypeError(value)
    if kind is int:
        if isinstance(value, float):
            return _whole(value)
        if not isinstance(value, int):
            raise TypeError(value)
        return value
    if kind is float:
        if not isinstance(value, (int, float)):
            raise TypeError(value)
        return _finite(float(value))
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _whole(number: float) -> int:
    if not number.is_integer():
        raise ValueError(number)
    return int(number)


def _finite(number: float) -> float:
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError(number)
    return number


def apply_overrides(config: Config, overrides: dict, source: str = "") -> Config:
    """A copy of `config` with `overrides` applied; unknown keys raise ConfigError naming them."""
    types = field_types()
    where = f" in {source}" if source else ""
    values = {}
    for key, value in overrides.items():
        name = str(key).replace("-", "_")
        if name == FRAME_COUNTED_KEY:
            values[name] = coerce(name, value, int)
            continue
        if name not in types:
            raise ConfigError(f"{key}: unknown config key{where}{did_you_mean(closest_fields(str(key)))}")
        values[name] = coerce(name, value, types[name])
    return dataclasses.replace(config, **in_agent_steps(values, values.get("env", config.env)))


# Names other DQN code and papers give some fields, for "did you mean" (never accepted as keys).
ALIASES = {
    "lr": "learning_rate",
    "discount": "gamma",
    "batch": "batch_size",
    "buffer_size": "replay_capacity",
    "memory_size": "replay_capacity",
    "replay_size": "replay_capacity",
    "frames": "total_frames",
    "steps": "total_frames",
    "game": "env",
    "env_id": "env",
    "num_envs": "envs_per_actor",
    "gpus": "learner_gpus",
    "threads": "torch_threads",
}


def closest_fields(key: str) -> list[str]:
    """The config fields a mistyped `key` most likely meant: its alias (`lr`), then the nearest spellings
    (`learning-rate`, `learnig_rate`), at most three."""
    name = key.strip().lstrip("-").replace("-", "_").lower()
    near = [ALIASES[name]] if name in ALIASES else []
    return (
        near
        + [match for match in difflib.get_close_matches(name, field_types(), n=3, cutoff=0.75) if match not in near]
    )[:3]


def did_you_mean(candidates: list[str]) -> str:
    """`; did you mean a, b or c?` to end an error message, or nothing without candidates."""
    if not candidates:
        return ""
    *others, last = candidates
    return f"; did you mean {', '.join(others) + ' or ' if others else ''}{last}?"


def load_yaml(path: str | Path) -> dict:
    """Read a YAML config file into a dict; a missing or malformed file is a ConfigError."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text())
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        raise ConfigError(f"config file {path} is not valid YAML: {str(error).splitlines()[0]}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a mapping of config keys to values")
    return data


def build_config(
    preset: str | None = None, file: str | None = None, overrides: dict | None = None, scale: float | None = None
) -> Config:
    """Preset (shrunk by `scale`, see `scaled_preset`), then YAML file, then explicit overrides; validated.

    Without a preset, an Atari or MinAtar game starts from its kind's preset (`preset_for_env`)."""
    if scale is not None and not preset:
        raise ConfigError("scale: --scale shrinks a preset; give --preset too")
    config, _, shares = _assembled(preset, file, overrides, scale)
    return validate(dataclasses.replace(config, **{key: share for key, (_, share) in shares.items()}))


def shares_line(preset: str | None, file: str | None, overrides: dict | None, scale: float | None) -> str:
    """The line saying what the actors of `build_config(preset, file, overrides, scale)` share, or ''."""
    config, preset, shares = _assembled(preset, file, overrides, scale)
    return describe_shares(preset, config.actors, shares) if preset else ""


def _assembled(preset, file, overrides, scale) -> tuple[Config, str | None, dict[str, tuple[int, int]]]:
    """The preset's values, then the file's, then the overrides, not yet validated; the preset used
    (the one an Atari or MinAtar game implies where none is named); and what the run's actors share of
    the preset's totals (`actor_shares`: the fields the file and overrides set are their own)."""
    file_values = load_yaml(file) if file else {}
    preset = preset or preset_for_env({"env": Config.env, **file_values, **(overrides or {})}["env"])
    config, values = Config(), {}
    if preset:
        values = scaled_preset(preset, scale)[0]
        config = apply_overrides(config, values)
    if file:
        config = apply_overrides(config, file_values, source=str(file))
    if overrides:
        config = apply_overrides(config, overrides)
    topology = {"bundled": config.bundled, "replay": config.replay, "synchronous_rounds": round_size(config) > 1}
    shares = actor_shares(preset, {**values, **topology}, config.actors, {*file_values, *(overrides or {})})
    return config, preset, shares


def save_yaml(config: Config, path: str | Path) -> None:
    Path(path).write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
