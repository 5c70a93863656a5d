"""How many processes a config's topology runs learners in, and how many of them hold parameter shards."""

from __future__ import annotations


def learner_processes(config) -> int:
    """How many processes run a learner: one per bundle, or the stand-alone learners."""
    return config.actors if config.bundled else config.learners


def shard_holders(config) -> int:
    """How many learner processes hold the parameter shards beside their own work (shard placement
    `learners`): min(N_learn, N_param), shard i in holder i mod that number; 0 where the shards run apart."""
    return min(learner_processes(config), config.param_shards) if config.shard_placement == "learners" else 0
