"""The paper's staleness safeguard: how many versions old a gradient may be before a shard discards it."""

from __future__ import annotations

AUTO_STALENESS_FLOOR = 100  # the auto threshold for few learners: the constant of earlier versions


def staleness_limit(config) -> int:
    """The staleness beyond which shards discard a gradient (0: none), as `max_staleness` says.

    Auto grows with the learners: with N of them, every gradient arrives about N times as many
    versions late as with one, so a constant would discard nearly all gradients of a large run.
    """
    if config.max_staleness == -1:
        return 0
    if config.max_staleness > 0:
        return config.max_staleness
    in_flight = 2 * config.learner_sync_every + config.max_inflight_pushes * config.push_every
    return max(AUTO_STALENESS_FLOOR, 2 * config.learners * in_flight)
