"""A sweep's search space: axes over config fields, each a grid of values or a random range.

    grid_axis("learning_rate=0.001,0.004")     # Axis(field="learning_rate", values=(0.001, 0.004))
    random_axis("learning_rate=1e-4:1e-2:log")  # drawn log-uniformly from [1e-4, 1e-2]

Values are read as the field's own flag reads them, so that a value the config would refuse is refused
here, naming the field, before any trial starts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gorila.config import ConfigError
from gorila.config.parsing import closest_fields, coerce, did_you_mean, field_types

# What can rank a sweep's points, higher better: the mean return of the last 100 training episodes,
# of the last 10, or the last evaluation's (a train or eval record's field).
METRICS = ("return_mean", "return_mean_10", "eval_return_mean")

# Fields a sweep sets per trial itself (each trial's run directory; the trial's seed comes from --seeds).
SWEEP_SET = ("run_dir", "seed")


@dataclass(frozen=True)
class Axis:
    """One swept field: its grid `values`, or a range [low, high] to draw from (log-uniformly if `log`)."""

    field: str
    values: tuple = ()
    low: float | None = None
    high: float | None = None
    log: bool = False

    @property
    def is_grid(self) -> bool:
        return self.low is None


def swept_field(name: str) -> type:
    """The type of config field `name`; a ConfigError for a field that is not one or that a sweep sets."""
    types = field_types()
    if name not in types:
        raise ConfigError(f"sweep: no config field {name!r}{did_you_mean(closest_fields(name))}")
    if name in SWEEP_SET:
        raise ConfigError(f"sweep: {name} is set by the sweep for each trial (seeds: --seeds)")
    return types[name]


def split_axis(text: str, form: str) -> tuple[str, str]:
    name, sep, values = text.partition("=")
    if not sep or not name.strip() or not values.strip():
        raise ConfigError(f"sweep: expected {form}, got {text!r}")
    return name.strip(), values.strip()


def grid_axis(text: str) -> Axis:
    """`FIELD=V1,V2,...`: every value, in the field's type (a tuple field's value is one `[a,b]`)."""
    name, listed = split_axis(text, "FIELD=V1,V2,...")
    return values_axis(name, split_values(listed))


def values_axis(name: str, values) -> Axis:
    """A grid axis of field `name` over `values` (text as a flag spells it, or typed values)."""
    kind = swept_field(name)
    values = tuple(dict.fromkeys(coerce(name, value, kind) for value in values))
    if not values:
        raise ConfigError(f"sweep: no value of {name} given")
    return Axis(name, values=values)


def split_values(listed: str) -> list[str]:
    """`1,2,3` -> ['1', '2', '3']; `[64,64],[128]` -> ['[64,64]', '[128]'] (commas inside brackets kept)."""
    parts, depth, current = [], 0, ""
    for char in listed:
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    if any(not part for part in parts):
        raise ConfigError(f"sweep: an empty value in {listed!r}")
    return parts


def random_axis(text: str) -> Axis:
    """`FIELD=LOW:HIGH` or `FIELD=LOW:HIGH:log`, for a number field; integers are drawn whole."""
    name, spec = split_axis(text, "FIELD=LOW:HIGH[:log]")
    parts = [part.strip() for part in spec.split(":")]
    log = len(parts) == 3 and parts[2].lower() == "log"
    if len(parts) not in (2, 3) or (len(parts) == 3 and not log):
        raise ConfigError(f"sweep: expected {name}=LOW:HIGH[:log], got {text!r}")
    return range_axis(name, parts[0], parts[1], log)


def range_axis(name: str, low, high, log: bool = False) -> Axis:
    """A random axis of number field `name` over [low, high] (log-uniform if `log`)."""
    kind = swept_field(name)
    if kind not in (int, float):
        raise ConfigError(f"sweep: {name} is not a number field; give its values as a grid")
    low, high = coerce(name, low, kind), coerce(name, high, kind)
    if not low < high or (log and low <= 0):
        raise ConfigError(
            f"sweep: {name}'s range must have LOW < HIGH{' and LOW > 0 (log)' if log else ''}, got {low}:{high}"
        )
    return Axis(name, low=low, high=high, log=log)


def check_axes(axes: list[Axis]) -> None:
    """One axis per field, and at least one axis."""
    if not axes:
        raise ConfigError("sweep: nothing to sweep; give --grid FIELD=V1,V2 or --random FIELD=LOW:HIGH")
    fields = [axis.field for axis in axes]
    twice = sorted({field for field in fields if fields.count(field) > 1})
    if twice:
        raise ConfigError(f"sweep: {', '.join(twice)} swept twice")


def grid_size(axes: list[Axis]) -> int:
    """Points of the grid axes alone (1 without any)."""
    return math.prod(len(axis.values) for axis in axes if axis.is_grid)


def point_name(params: dict) -> str:
    """A directory name for a trial's point and seed: `learning_rate=0.001,seed=0`, path-safe."""

    def shown(value) -> str:
        if isinstance(value, float):
            return f"{value:.4g}"
        if isinstance(value, tuple):
            return "x".join(map(str, value))
        return str(value)

    text = ",".join(f"{key}={shown(value)}" for key, value in params.items())
    return "".join(char if char.isalnum() or char in "=,.-_+" else "_" for char in text)
