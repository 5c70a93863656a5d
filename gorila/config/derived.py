"""Settings derived from a config by arithmetic: how many processes run learners and how many of them hold
parameter shards, the staleness beyond which shards discard a gradient, how many learners' gradients
one update averages, and whether a learner waits for the theta+ its own push made."""

from __future__ import annotations


def learner_processes(config) -> int:
    """How many processes run a learner: one per bundle, or the stand-alone learners."""
    return config.actors if config.bundled else config.learners


def shards_beside_learners(config) -> bool:
    """Do the parameter shards run in the learners' processes? Shard placement `learners`, or `auto` on
    one machine (apart on a cluster joined by address, so that a node lost takes no shard's only home)."""
    return config.shard_placement == "learners" or (config.shard_placement == "auto" and not config.address)


def shard_holders(config) -> int:
    """How many learner processes hold the parameter shards beside their own work (shard placement
    `learners`): min(N_learn, N_param), shard i in holder i mod that number; 0 where the shards run apart."""
    return min(learner_processes(config), config.param_shards) if shards_beside_learners(config) else 0


AUTO_STALENESS_FLOOR = 100  # the auto threshold for few learners: the constant of earlier versions


def staleness_limit(config) -> int:
    """The staleness beyond which shards discard a gradient (0: none), as `max_staleness` says (the paper's
    safeguard against gradients computed on parameters too many versions old).

    Auto grows with the learners: with N of them, every gradient arrives about N times as many
    versions late as with one, so a constant would discard nearly all gradients of a large run.
    """
    if config.max_staleness == -1:
        return 0
    if config.max_staleness > 0:
        return config.max_staleness
    in_flight = 2 * config.learner_sync_every + config.max_inflight_pushes * config.push_every
    return max(AUTO_STALENESS_FLOOR, 2 * config.learners * in_flight)


def round_size(config) -> int:
    """How many learners' gradients one update of a shard averages: every learner process's with
    `synchronous_sgd` on Ray, else 1 (each gradient applied as it comes; the local runtime's bundles
    take turns, so there is no other learner's update to wait for)."""
    return learner_processes(config) if config.synchronous_sgd and config.runtime == "ray" else 1


def shard_threads(config) -> int:
    """Calls a shard host serves at once: one, or in synchronous rounds one per learner waiting for
    its round and two for the driver's calls (counters, state copies) beside them."""
    size = round_size(config)
    return 1 if size == 1 else size + 2


def synchronous_refresh(config, holds_every_shard: bool = False) -> bool:
    """Does a learner of this `Config` wait for the theta+ that includes its own last push
    (`learner_refresh`)? `auto` waits only where waiting costs nothing: on the local runtime, and on
    Ray for a learner that holds every shard in its own process (`holds_every_shard`); in synchronous
    rounds a learner always waits for its round's theta+."""
    if round_size(config) > 1:
        return True
    if config.learner_refresh == "auto":
        return config.runtime == "local" or holds_every_shard
    return config.learner_refresh == "synchronous"
