"""A preset's values for a cluster of another size (`gorila train --preset P --scale S`)."""

from __future__ import annotations

from gorila.config.presets import PRESETS
from gorila.config.schema import Config, ConfigError

SCALED_COUNTS = (
    ("actors", "actors"),
    ("learners", "learners"),
    ("param_shards", "parameter shards"),
    ("replay_shards", "replay shards"),
)


def scaled_preset(preset: str, scale: float | None = None) -> tuple[dict, str]:
    """A preset's values for a cluster `scale` times the size it describes, and a line saying what changed.

    Actors, learners (bundles), parameter and replay shards are multiplied by `scale` (rounded, at least
    one). The budget and theta-'s period count the work of all actors and learners, so they change by
    the actors' and the learners' own ratios: each actor takes as many agent steps, and each learner makes
    as many updates between two refreshes of theta-, as in the full-size run. What each bundle does
    (replay, minibatch, learning start, exploration) is unchanged.
    """
    if preset not in PRESETS:
        raise ConfigError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    values = dict(PRESETS[preset])
    if scale is None:
        return values, ""
    if not 0 < scale < float("inf"):
        raise ConfigError(f"scale must be a number > 0, got {scale!r}")
    base = Config()
    changes = []
    for key, words in SCALED_COUNTS:
        old = values.get(key, getattr(base, key))
        values[key] = max(1, round(old * scale))
        if values[key] != old:
            changes.append(f"{old:,} -> {values[key]:,} {words}")
    full = lambda key: PRESETS[preset].get(key, getattr(base, key))
    for key, by, words in (
        ("total_frames", "actors", "frames in all ({:,.0f} per actor, as at full size)"),
        (
            "target_update_every",
            "learners",
            "server updates between theta- refreshes ({:,.0f} per learner, as at full size)",
        ),
    ):
        values[key] = max(1, round(full(key) * values[by] / full(by)))
        if values[key] != full(key):
            changes.append(f"{full(key):,} -> {values[key]:,} " + words.format(values[key] / values[by]))
    return values, (
        f"{preset} scaled by {scale:g}: "
        + (", ".join(changes) or "nothing changed")
        + "; each bundle's replay, minibatch, learning start and exploration as at full size"
    )
