"""Where components are built from a config and the run's plan: one `make_*` function per component.

The wiring (`gorila.system.topology.build_system`), the benchmarks, the example and the tests all build
components here, so a setting means the same thing everywhere. What a config implies (a shard's
staleness limit, a replay's warm-up, an actor's epsilon) is read from the `RunPlan` (`gorila.system.plan`;
`gorila.system.planning` makes it from the pure functions below). Each function returns a plain object;
a runtime decides where it lives (`place(role, make_x, *args)` runs `make_x` in that place). The
return annotations are for readers: placement reads the role, never an annotation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from gorila.agent.networks import flat_parameters
from gorila.algorithms import algorithm_of
from gorila.components.actor import Actor
from gorila.components.learner import Learner
from gorila.components.parameter_server import ParameterClient, ParameterShard, slice_bounds
from gorila.components.replay import ReplayMemory
from gorila.components.replay.priorities import PriorityRule
from gorila.components.replay.routing import ReplayWriter, Route
from gorila.config import Config, ConfigError
from gorila.config.derived import round_size, shards_beside_learners
from gorila.core import ActorWorker, LearnerWorker, MinibatchSource, TransitionSink
from gorila.messages import EnvInfo
from gorila.records.checkpoints import load_shard_backup
from gorila.runtime.calls import DirectCalls
from gorila.seeds import learner_seed, replay_seed, theta_0_seed
from gorila.system.agent_builders import (
    actor_for,
    actor_settings,
    learner_for,
    learner_network,
    network_for,
    resolve_device,
)
from gorila.system.plan import ReplayPlan, RunPlan


def initial_parameters(config: Config, info: EnvInfo) -> np.ndarray:
    """theta_0: the seeded initialisation every shard slices its part from."""
    torch.manual_seed(theta_0_seed(config.seed))
    return flat_parameters(network_for(config, info))


def parameter_count(config: Config, info: EnvInfo) -> int:
    """Entries of theta+: the network counted on torch's `meta` device (shapes only, no memory), with
    torch's random state left as it was, so that counting changes no seeded draw that follows."""
    with torch.random.fork_rng(devices=[]), torch.device("meta"):
        return sum(parameter.numel() for parameter in network_for(config, info).parameters())


def parameter_bounds(config: Config, size: int) -> list[tuple[int, int]]:
    """The shards' slices of a theta+ of `size` entries; too many shards is a config error."""
    try:
        return slice_bounds(size, config.param_shards)
    except ValueError as error:
        raise ConfigError(f"param_shards: {error}") from None


def shard_device(config: Config) -> str:
    """Where a shard keeps its slice and its optimizer's moments, as asked: beside the learners
    (`shard_placement: learners`), on their device (`device`, resolved in the shard's own process);
    apart, on the CPU of its own process."""
    return config.device if shards_beside_learners(config) else "cpu"


def planned_updates(config: Config, info: EnvInfo) -> int:
    """Updates the parameter server applies in the whole run, all learners together: one per gradient
    the algorithm's learners compute in the run's agent steps (`Algorithm.gradients`; dqn: one per
    update_every agent steps), or in synchronous rounds one per round of `round_size` gradients."""
    gradients = algorithm_of(config).gradients(config, info.steps(config.total_frames))
    return max(1, gradients // round_size(config))


def make_shard(
    config: Config, plan: RunPlan, index: int, initial: np.ndarray, backup: str | None = None
) -> ParameterShard:
    """Parameter shard `index`, owning the slice `initial` of theta+, with the run's staleness limit,
    round size and learning-rate decay (`plan`); where `backup` holds a saved state (a restarted shard,
    a resumed run) it continues from that state instead."""
    shard = ParameterShard(
        index,
        initial,
        optimizer=config.optimizer,
        learning_rate=config.learning_rate,
        optimizer_eps=config.optimizer_eps,
        rmsprop_alpha=config.rmsprop_alpha,
        adam_beta1=config.adam_beta1,
        staleness_momentum=config.staleness_momentum,
        max_staleness=plan.staleness_limit,
        target_update_every=config.target_update_every,
        decay_updates=plan.decay_updates,
        round_size=plan.round_size,
        round_timeout=config.round_timeout_seconds,
        device=resolve_device(plan.shard_device),
    )
    state = load_shard_backup(backup) if backup else None
    if state is not None:
        shard.restore(state)
    return shard


def make_shard_of(
    config: Config, plan: RunPlan, index: int, start: int, stop: int, backup: str | None = None
) -> ParameterShard:
    """Shard `index` of a run, owning theta+[start:stop]. It computes its slice of the seeded theta_0
    itself, so its constructor arguments stay small: Ray keeps them to restart the shard with."""
    return make_shard(config, plan, index, initial_parameters(config, plan.info)[start:stop], backup)


def first_shard_states(config: Config, plan: RunPlan, bounds, resume: dict | None = None) -> tuple[list[dict], int]:
    """Each shard's state at the start of a run and the frames it was taken at, computed here as
    `make_shard_of` computes it (no shard is asked): the resumed checkpoint's, or theta_0's with a
    new optimizer at 0 frames."""
    if resume:
        return list(resume["shards"]), resume["env_frames"]
    theta = initial_parameters(config, plan.info)
    return [make_shard(config, plan, index, theta[start:stop]).state() for index, (start, stop) in enumerate(bounds)], 0


def parameter_client(
    config: Config, plan: RunPlan, shards: list, bounds, calls, device: str = "cpu"
) -> ParameterClient:
    """One component's view of the sharded theta+, which it reads as a tensor on `device`; it waits
    for the theta+ its own push made where the plan says so (`RunPlan.refreshes_synchronously`)."""
    every_shard_here = all(isinstance(shard, ParameterShard) for shard in shards)
    return ParameterClient(
        shards,
        bounds,
        calls,
        config.max_inflight_pushes,
        synchronous=plan.refreshes_synchronously(every_shard_here),
        device=device,
    )


HostedSlice = tuple[int, int, int, "str | None"]  # (shard index, start, stop, backup) a worker holds


def with_hosted_shards(config: Config, plan: RunPlan, shards: list, hosted) -> tuple[list, dict]:
    """A worker's view of the shards when it holds some of them (`hosted`, as `HostedSlice`s): those
    built here, in its process, take the place of their handles. (shards, {index: ParameterShard})."""
    own = {index: make_shard_of(config, plan, index, start, stop, backup) for index, start, stop, backup in hosted}
    return [own.get(index, shard) for index, shard in enumerate(shards)], own


def replay_warmup(config: Config) -> int:
    """Entries each replay memory must hold before its learners sample: a bundle's replay all of
    `learning_starts` (it feeds its own learner only), stand-alone replays an equal share of it.
    Preflight (`gorila.system.budget`) refuses a run whose learners could not start in its budget."""
    if config.bundled:
        return config.learning_starts
    memories = config.replay_shards if config.replay == "global" else config.actors
    return config.learning_starts // memories


def min_sample_size(config: Config, warmup: int) -> int:
    """Sampleable entries a replay memory must hold before it gives minibatches: its warm-up, and
    never less than one minibatch."""
    return max(config.batch_size, warmup)


def priority_rule(config: Config, info: EnvInfo, num_streams: int) -> PriorityRule | None:
    """A prioritised memory's exponents (None: uniform). Its beta reaches 1 when it has been written
    its part of the whole budget: every env stream writes alike, so its streams' share of all streams."""
    if not config.prioritised:
        return None
    streams = config.actors * config.envs_per_actor
    return PriorityRule(
        config.priority_alpha,
        config.priority_beta,
        config.priority_eps,
        beta_steps=max(1, info.steps(config.total_frames) * num_streams // streams),
    )


def make_replay(config: Config, info: EnvInfo, memory: ReplayPlan, seed: int, saved: str | None = None) -> ReplayMemory:
    """A local replay or one global-replay shard as `memory` plans it (its size, its streams, the
    entries it holds before sampling, uniform or prioritised). It starts with the contents saved at
    `saved`, if any."""
    replay = ReplayMemory(
        memory.capacity,
        memory.streams,
        info.frame_shape,
        info.obs_dtype,
        info.stack,
        config.n_step,
        config.gamma,
        seed,
        min_size=memory.min_size,
        priority=memory.priority,
    )
    if saved and Path(saved).is_file():
        replay.load_replay(saved)
    return replay


@dataclass
class Parts:
    """What an algorithm builds a worker from (`gorila.core.Algorithm`): the run's config and its plan
    (with the environment's facts), theta+ through the shards (those held in the worker's own process
    in `hosted`, index -> ParameterShard), and the builders of what algorithms share: parameter
    clients, replay memories, an actor's copies and settings, a learner's network, Gorila's actor and
    learner."""

    config: Config
    plan: RunPlan
    shards: list
    bounds: list
    calls: object
    hosted: dict = field(default_factory=dict)

    @property
    def info(self) -> EnvInfo:
        """The environment's facts (observation shape, actions, frames per step)."""
        return self.plan.info

    @property
    def device(self) -> str:
        """Where the worker's learner computes: the run's device, resolved in this process."""
        return resolve_device(self.plan.resources.device)

    def client(self, device: str = "cpu"):
        """A view of theta+ as tensors on `device` (one per actor or learner)."""
        return parameter_client(self.config, self.plan, self.shards, self.bounds, self.calls, device)

    def acting(self, index: int):
        """Actor `index`'s environment copies, network and keyword settings (`actor_settings`)."""
        return actor_settings(self.config, self.info, index, self.plan.epsilon_of(index))

    def learner_network(self, index: int):
        return learner_network(self.config, self.info, index)

    def learner_seed(self, index: int) -> int:
        return learner_seed(self.config.seed, index)

    def bundle_replay(self, index: int, saved: str | None = None) -> ReplayMemory:
        """Bundle `index`'s local replay memory, fed by its actor's copies only."""
        seed = replay_seed(self.config.seed, index)
        return make_replay(self.config, self.info, self.plan.bundle_replay(index), seed, saved)

    def writer_to(self, replay: ReplayMemory) -> ReplayWriter:
        """How an actor in the same process writes each of its copies to the stream of that number."""
        streams = tuple(range(self.config.envs_per_actor))
        return ReplayWriter([replay], [Route(0, streams, streams)], DirectCalls())

    def actor(self, index: int, writer: TransitionSink) -> Actor:
        """Gorila's actor `index`, writing its steps to `writer`."""
        return actor_for(self.config, self.info, index, self.client(), writer, self.plan.epsilon_of(index))

    def learner(self, index: int, replay: MinibatchSource, kind: type[Learner] = Learner) -> Learner:
        """Gorila's learner `index`, sampling `replay`, with the DQN gradient (or `kind`'s loss)."""
        device = self.device
        return learner_for(self.config, self.info, index, self.client(device), replay, self.hosted, kind, device)


def make_actor(
    config: Config, plan: RunPlan, index: int, shards: list, bounds, calls, writer: TransitionSink
) -> ActorWorker:
    """Actor `index` of the config's algorithm (an `ActorLearnerAlgorithm`: its check allowed actors
    apart), reading theta+ from the shards and writing to `writer`."""
    return algorithm_of(config).actor(Parts(config, plan, shards, bounds, calls), index, writer)


def make_learner(
    config: Config,
    plan: RunPlan,
    index: int,
    shards: list,
    bounds,
    calls,
    replay: MinibatchSource,
    hosted: tuple[HostedSlice, ...] = (),
) -> LearnerWorker:
    """Learner `index` of the config's algorithm, sampling from `replay` and pushing gradients to the
    shards; it holds the `hosted` shards in its process (shard placement `learners` on Ray)."""
    shards, own = with_hosted_shards(config, plan, shards, hosted)
    return algorithm_of(config).learner(Parts(config, plan, shards, bounds, calls, own), index, replay)


def make_bundle(
    config: Config,
    plan: RunPlan,
    index: int,
    shards: list,
    bounds,
    calls,
    saved_replay: str | None = None,
    hosted: tuple[HostedSlice, ...] = (),
) -> ActorWorker:
    """Bundle `index` of the config's algorithm, in one process, with the `hosted` shards (shard
    placement `learners` on Ray); dqn: actor_i --writes--> local replay_i --minibatches--> learner_i.

    Inside the bundle calls are direct; `calls` is how its actor and learner reach the shards of
    other processes.
    """
    shards, own = with_hosted_shards(config, plan, shards, hosted)
    return algorithm_of(config).bundle(Parts(config, plan, shards, bounds, calls, own), index, saved_replay)
