"""What the components share: the environment's shape, the data they exchange, and their contracts.

Every message between components is one of the small frozen dataclasses here (`Minibatch`, `Report`)
or a numpy array. Two kinds of protocol say who may ask what of whom. The in-process ones
(`ParameterSource`, `TransitionSink`, `MinibatchSource`) are what an actor or a learner is built with.
The call contracts (`ShardServer`, `ReplayServer`, `EvaluatorServer`, `ActorWorker`, `LearnerWorker`,
`BundleWorker`) hold every method called across a process boundary: a caller names the method by
the contract's function (`calls.call(shard, ShardServer.pull)`), never by a string, and the Ray
runtime gives a placed component exactly its role's contract methods (and `node_id` and `process`,
which say where it runs). Inside one process a bundle holds its actor, replay and learner directly.
Inside the system everything is counted in agent steps; frames (agent steps times the action repeat)
appear only at the edges: the config, the command line, logs and metrics.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Callable, Protocol

import numpy as np

if TYPE_CHECKING:  # contracts stay importable without torch (the Ray hosts import them)
    import torch


@dataclass(frozen=True)
class EnvInfo:
    """The shape of an environment, read once by the driver and handed to every component."""

    obs_shape: tuple
    obs_dtype: str
    num_actions: int
    frame_shape: tuple  # what replay stores per step: one 84x84 frame, or the whole vector obs
    stack: int  # frames per observation (4 for Atari, 1 otherwise)
    frames_per_step: int  # emulator frames per agent step (4 for Atari: the action repeat)
    is_atari: bool

    def steps(self, frames: int) -> int:
        """Agent steps in `frames` emulator frames (how config budgets become internal counts)."""
        return int(frames) // self.frames_per_step

    def frames(self, steps: int) -> int:
        """Emulator frames in `steps` agent steps (how internal counts reach logs and metrics)."""
        return int(steps) * self.frames_per_step


def env_info(env) -> EnvInfo:
    """EnvInfo of a `gorila.envs.VectorEnv`."""
    return EnvInfo(
        tuple(env.obs_shape),
        np.dtype(env.obs_dtype).name,
        int(env.num_actions),
        tuple(env.frame_shape),
        int(env.stack),
        int(env.frames_per_step),
        env.spec.kind == "atari",
    )


@dataclass(frozen=True)
class Minibatch:
    """B sampled transitions (s_t, a_t, R_t^(n), gamma^k or 0, s_{t+k}); observations in their stored
    dtype (uint8 for Atari until the network's first layer)."""

    obs: np.ndarray  # [B, *obs_shape]
    actions: np.ndarray  # [B] int64
    returns: np.ndarray  # [B] float32, the n-step return
    discounts: np.ndarray  # [B] float32, the bootstrap discount (0 after a terminal)
    next_obs: np.ndarray  # [B, *obs_shape], the state to bootstrap from
    # Prioritised replay only (None from a uniform one): what the learner weights its loss by and what
    # it needs to send each entry's new |delta| back to the memory that gave it.
    weights: np.ndarray | None = None  # [B] float32 importance-sampling weights, at most 1
    streams: np.ndarray | None = None  # [B] int64 stream of each entry in its memory
    indices: np.ndarray | None = None  # [B] int64 absolute index of each entry in its stream
    priorities: np.ndarray | None = None  # [B] float32 p_i at the draw (for weights over several memories)

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concatenate(parts: list[Minibatch]) -> Minibatch:
        """One minibatch from the shares drawn from several replay memories."""
        if len(parts) == 1:
            return parts[0]
        join = lambda name: (
            None if getattr(parts[0], name) is None else np.concatenate([getattr(p, name) for p in parts])
        )
        return Minibatch(*(join(f.name) for f in fields(Minibatch)))


@dataclass(frozen=True)
class ReplayMass:
    """What a replay memory holds, as a sampler over several memories weighs it: its sampleable entries
    N_m, their priority mass sum_i p_i (N_m again for a uniform memory, where every p_i is 1) and the
    importance-sampling exponent beta it has annealed to."""

    entries: int
    mass: float
    beta: float = 1.0


@dataclass(frozen=True)
class Report:
    """What a worker (actor, learner or bundle) did with one budget: the driver's only input from it."""

    steps: int = 0  # agent steps taken (actors, bundles)
    updates: int = 0  # learner updates made (learners, bundles)
    episode_returns: tuple[float, ...] = ()  # raw returns of the episodes that ended
    episode_lengths: tuple[int, ...] = ()  # their lengths in agent steps
    epsilon_sum: float = 0.0  # the exploration rate summed over the agent steps taken
    loss_sum: float = 0.0  # summed over the gradients that were sent
    loss_count: int = 0
    dropped_outliers: int = 0  # gradients the outlier filter dropped
    q_sum: float = 0.0  # Q(s, a) of the sampled transitions' actions, summed
    q_count: int = 0  # sampled transitions
    replay_size: int | None = None  # entries in the worker's own replay (bundles)
    process: int = field(default_factory=os.getpid)  # who reported: changes when Ray restarts the worker

    def merge(self, other: Report) -> Report:
        """The report of a bundle: its actor's and its learner's in one."""
        return replace(
            self,
            updates=self.updates + other.updates,
            loss_sum=self.loss_sum + other.loss_sum,
            loss_count=self.loss_count + other.loss_count,
            dropped_outliers=self.dropped_outliers + other.dropped_outliers,
            q_sum=self.q_sum + other.q_sum,
            q_count=self.q_count + other.q_count,
        )


class Saveable(Protocol):
    """What a checkpoint or a restart carries over: its state, as a dict of numbers, arrays and tensors,
    and back. One pair of names for every part that keeps state (a shard and its update rule, a
    replay's storage and sampler, the scheduler, the stop rule):

        saved = scheduler.state()       # into the checkpoint
        scheduler.restore(saved)        # a resumed run continues from it
    """

    def state(self) -> dict:
        """Everything needed to continue, detached from this object (safe to pickle and keep)."""

    def restore(self, state: dict) -> None:
        """Continue from `state` (what `state()` of an object of the same kind and size returned)."""


class ParameterSource(Protocol):
    """theta+ as seen by actors and learners (a `ParameterClient` over the shards): vectors are tensors
    on the caller's device; gradients go in as tensors there."""

    versions: np.ndarray
    synchronous: bool  # a refresh waits for the theta+ that includes this caller's last push

    def pull(self, prefetch: bool = False) -> tuple[torch.Tensor, bool]: ...
    def pull_target(self) -> torch.Tensor: ...
    def push(self, gradients: torch.Tensor, base_versions: np.ndarray) -> None: ...
    def push_and_pull(self, gradients: torch.Tensor, base_versions: np.ndarray) -> tuple[torch.Tensor, bool]: ...
    def forget(self) -> None: ...
    def drain(self) -> None: ...


class TransitionSink(Protocol):
    """Where an actor writes one entry per environment copy and step (a `ReplayWriter`)."""

    def add(self, frames, actions, rewards, terminals, lasts) -> None: ...
    def flush(self) -> None: ...


class MinibatchSource(Protocol):
    """Where a learner draws minibatches (a `ReplayMemory`, or a `ReplaySampler` over several)."""

    def sample(self, batch_size: int) -> Minibatch | None: ...
    def update_priorities(self, streams, indices, td_errors) -> None:
        """New |delta| of entries a prioritised minibatch drew (its `streams` and `indices`)."""


# ---- call contracts: every method called across a process boundary --------------------------------


class ShardServer(Protocol):
    """A parameter shard (`ParameterShard`), called by every `ParameterClient` and by the driver."""

    def apply_batch(self, gradients: np.ndarray, base_version: int) -> int:
        """Apply each row of `gradients` as one update of the slice; how many were not stale."""

    def apply_and_pull(self, gradients: np.ndarray, base_version: int) -> tuple[np.ndarray, int, int]:
        """`apply_batch`, then `pull`, in one round trip."""

    def pull(self) -> tuple[np.ndarray, int, int]:
        """(theta+ slice, version, target_version)."""

    def pull_target(self) -> np.ndarray:
        """The theta- slice."""

    def stats(self) -> dict:
        """Versions, applied and discarded gradients, mean staleness: for metrics."""

    def state(self) -> dict:
        """Everything the shard knows, for checkpoints and shard backups."""

    def restore(self, state: dict) -> None:
        """Continue from `state` (what `state` returned): a restarted shard's last state, from the driver."""


class ReplayHolder(Protocol):
    """What holds a replay memory (a stand-alone one, or a bundle): its contents can be saved."""

    def save_replay(self, path: str) -> int:
        """Write the replay's contents to `path`; the bytes written."""


class ReplayServer(ReplayHolder, Protocol):
    """A stand-alone replay memory (`ReplayMemory`): written by `ReplayWriter`s, sampled by
    `ReplaySampler`s, read by the driver."""

    def add(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None:
        """Append one entry per listed stream."""

    def add_steps(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None:
        """Append T steps at once (arrays [T, len(stream_ids), ...]), oldest first."""

    def sampleable(self) -> int:
        """Entries that can currently be drawn as a state s_t."""

    def mass(self) -> ReplayMass:
        """Sampleable entries and their priority mass: how a sampler over several memories weighs this one."""

    def sample_share(self, batch_size: int) -> tuple[Minibatch | None, ReplayMass]:
        """This memory's share of a minibatch (None while warming up; prioritised: with priorities and
        ids, but no weights: those need every memory's mass) and its `mass()` at the draw."""

    def update_priorities(self, streams, indices, td_errors) -> None:
        """New |delta| of entries it gave out; those overwritten since are ignored."""

    def stats(self) -> dict:
        """Size, capacity, entries ever added and bytes held: for metrics."""


class EvaluatorServer(Protocol):
    """The evaluator (`Evaluator`), called by the driver."""

    def evaluate(self, flat_parameters: np.ndarray, episodes: int | None = None) -> dict:
        """Returns of `episodes` greedy episodes (default eval_episodes) played with theta+."""


class Worker(Protocol):
    """An actor, a learner or a bundle: the driver hands it a budget, it reports what it did."""

    def run(self, budget: int) -> Report:
        """Spend `budget` (agent steps, or learner updates); what was done."""


class LearnerWorker(Worker, Protocol):
    """A stand-alone learner (`Learner`): its budget is updates; it has no step count to restore."""


class ActorWorker(Worker, Protocol):
    """An actor (`Actor`): its budget is agent steps."""

    def continue_from(self, steps: int) -> None:
        """Carry on from `steps` agent steps already taken (epsilon continues its schedule)."""


class BundleWorker(ActorWorker, ReplayHolder, Protocol):
    """A bundle (`Bundle`): an actor's contract, and it holds its own replay memory."""


def contract_methods(contract: type) -> dict[str, Callable]:
    """Every method of a contract, its own and those of the contracts it extends, by name."""
    methods: dict[str, Callable] = {}
    for cls in reversed(contract.__mro__):
        if Protocol in cls.__bases__:  # a contract (not `object`, `Protocol` or `Generic`)
            methods.update(
                {name: value for name, value in vars(cls).items() if callable(value) and not name.startswith("_")}
            )
    return methods
