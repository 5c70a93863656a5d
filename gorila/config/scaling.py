"""A preset's values for a cluster of another size: shared among the actors a run asks for
(`gorila train --preset P --actors N`, `actor_shares`), or the whole system multiplied
(`gorila train --preset P --scale S`, `scaled_preset`)."""

from __future__ import annotations

from gorila.config.presets import KEPT_IN_ROUNDS, PRESETS, SHARED_BY_ACTORS, SHARED_IN_ROUNDS
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


def actor_shares(preset: str | None, values: dict, actors: int, given) -> dict[str, tuple[int, int]]:
    """The preset's run totals (`SHARED_BY_ACTORS`) that `actors` actors (bundles) share: {field: (the
    preset's value, each actor's share)}, for the fields the run did not set itself (`given`).

    A preset describes one agent's run (most have one actor; `values` are its values, after any
    --scale). With N actors in its place each takes 1/N of what it gives for the whole run, rounded,
    at least 1: its epsilon anneal, its environment copies, and with a replay memory of its own (DQN)
    its capacity and, in bundles, its learning start, or (PQN) the minibatches of each pass; in
    synchronous rounds the minibatch of one update instead (`SHARED_IN_ROUNDS`); so that
    the run explores, warms up and learns per frame as the preset's one agent does, and N machines each
    do 1/N of its work (benchmarks/baselines/scaling).
    """
    base = values.get("actors", 1)
    if preset is None or actors == base or actors < 1:  # no actors: refused by validate, nothing to share
        return {}
    kept_whole = {  # fields that count the whole run already in this topology
        "learning_starts": not values.get("bundled", True),  # outside bundles: all replay memories together
        "replay_capacity": values.get("replay", "local") == "global",  # the global replay's, not an actor's
    }
    shared = SHARED_BY_ACTORS.get(preset, ())
    if values.get("synchronous_rounds"):  # one update is the mean of N learners' gradients
        shared = tuple(key for key in shared if key not in KEPT_IN_ROUNDS) + SHARED_IN_ROUNDS.get(preset, ())
    shares = {}
    for key in shared:
        if key in given or key not in values or kept_whole.get(key):
            continue
        whole = values[key]
        share = max(1, round(whole * base / actors)) if whole else 0
        if share != whole:
            shares[key] = (whole, share)
    return shares


def describe_shares(preset: str, actors: int, shares: dict[str, tuple[int, int]]) -> str:
    """The line that says what the actors share: `pqn shared among 8 bundles: envs_per_actor 128 -> 16, ...`."""
    if not shares:
        return ""
    changes = ", ".join(f"{key} {whole:,} -> {share:,}" for key, (whole, share) in shares.items())
    return (
        f"{preset} shared among {actors:,} actors: {changes} each (the preset's totals for the run; "
        "set a field to give each actor that value instead)"
    )
