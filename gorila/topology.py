"""The one wiring function: which Gorila component talks to which, for any topology.

`build_system` is the whole architecture in one page. A runtime passes its `place` (make this object
here, or as a Ray actor) and its `calls` (how components call each other); the wiring is the same.

    bundled:      bundle_i = actor_i + local replay_i + learner_i          (N_act = N_learn)
    non-bundled:  actor_i --> replay (local: one per actor; global: N_replay shards) --> learner_j
    always:       learners --gradient slices--> N_param ParameterShards --theta--> actors, learners
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from gorila.actor import Actor
from gorila.bundle import Bundle, replay_args
from gorila.config import Config, ConfigError, effective_learning_starts
from gorila.core import EnvInfo
from gorila.evaluator import Evaluator
from gorila.learner import Learner
from gorila.networks import build_q_network, flat_parameters
from gorila.parameter_server import ParameterClient, ParameterShard, slice_bounds
from gorila.replay import ReplayMemory
from gorila.replay.routing import ReplaySampler, ReplayWriter, Route, remote_batch_steps


@dataclass
class System:
    """Handles of every placed component (objects on the local runtime, Ray actor handles on Ray)."""
    shards: list
    bounds: list
    workers: list = field(default_factory=list)      # (role, handle): role is bundle, actor or learner
    replays: list = field(default_factory=list)      # stand-alone replay memories (non-bundled)
    evaluator: object = None

    def of_role(self, role: str) -> list:
        return [handle for kind, handle in self.workers if kind == role]


def initial_parameters(config: Config, info: EnvInfo) -> np.ndarray:
    """theta_0: the seeded initialisation every shard slices its part from."""
    torch.manual_seed(config.seed)
    network = build_q_network(config.network, info.obs_shape, info.num_actions, config.hidden_sizes, config.dueling)
    return flat_parameters(network)


def actor_routes(config: Config, index: int) -> list[Route]:
    """Where actor `index`'s env streams go: its own replay, or spread over the global shards."""
    slots = range(config.envs_per_actor)
    if config.replay == "local":
        return [Route(index, tuple(slots), tuple(slots))]
    streams = [index * config.envs_per_actor + slot for slot in slots]      # global stream ids
    by_shard: dict[int, list] = {}
    for slot, stream in zip(slots, streams):
        by_shard.setdefault(stream % config.replay_shards, []).append((slot, stream // config.replay_shards))
    return [Route(shard, tuple(s for s, _ in pairs), tuple(t for _, t in pairs)) for shard, pairs in by_shard.items()]


def replay_layout(config: Config) -> list[tuple[int, int]]:
    """(capacity, num_streams) of each stand-alone replay memory."""
    if config.replay == "local":
        return [(config.replay_capacity, config.envs_per_actor)] * config.actors
    total_streams = config.actors * config.envs_per_actor
    shards = config.replay_shards
    return [(config.replay_capacity // shards, len(range(s, total_streams, shards))) for s in range(shards)]


def learner_replays(config: Config, index: int) -> list[int]:
    """The replay memories learner `index` samples from."""
    if config.replay == "global":
        return list(range(config.replay_shards))
    if config.learners <= config.actors:
        return list(range(index, config.actors, config.learners))
    return [index % config.actors]


def parameter_bounds(config: Config, size: int) -> list[tuple[int, int]]:
    """The shards' slices of a theta+ of `size` entries; too many shards is a config error."""
    try:
        return slice_bounds(size, config.param_shards)
    except ValueError as error:
        raise ConfigError(f"param_shards: {error}") from None


def build_system(config: Config, info: EnvInfo, place, calls) -> System:
    """Create and connect every component of the configured topology."""
    theta = initial_parameters(config, info)
    bounds = parameter_bounds(config, theta.size)
    shards = [place("server", ParameterShard, i, theta[start:stop], config.optimizer, config.learning_rate,
                    config.optimizer_eps, config.rmsprop_alpha, config.max_staleness, config.target_update_every)
              for i, (start, stop) in enumerate(bounds)]
    system = System(shards, bounds)
    client = lambda: ParameterClient(shards, bounds, calls, config.max_inflight_pushes)
    if config.bundled:
        system.workers = [("bundle", place("bundle", Bundle, config, info, i, shards, bounds, calls))
                          for i in range(config.actors)]
    else:
        layout = replay_layout(config)
        warmup = effective_learning_starts(config) // len(layout)
        system.replays = [place("server", ReplayMemory, *replay_args(config, info, capacity, streams,
                                                                   config.seed + i, warmup))
                          for i, (capacity, streams) in enumerate(layout)]
        for i in range(config.actors):
            writer = ReplayWriter(system.replays, actor_routes(config, i), calls,
                                  remote_batch_steps(config.envs_per_actor))
            system.workers.append(("actor", place("worker", Actor, config, info, i, client(), writer)))
        for j in range(config.learners):
            sampler = ReplaySampler([system.replays[r] for r in learner_replays(config, j)], calls)
            system.workers.append(("learner", place("learner", Learner, config, info, j, client(), sampler)))
    system.evaluator = place("evaluator", Evaluator, config, info)
    return system

