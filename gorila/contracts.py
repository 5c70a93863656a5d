"""What the components share: the environment's shape, the data they exchange, and their interfaces.

Every message between components is one of the small frozen dataclasses here (`Minibatch`, `Report`)
or a numpy array; every component sees the others only through the protocols below, whichever
runtime placed it. Inside the system everything is counted in agent steps; frames (agent steps times
the action repeat) appear only at the edges: the config, the command line, logs and metrics.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from typing import Protocol

import numpy as np


@dataclass(frozen=True)
class EnvInfo:
    """The shape of an environment, read once by the driver and handed to every component."""
    obs_shape: tuple
    obs_dtype: str
    num_actions: int
    frame_shape: tuple      # what replay stores per step: one 84x84 frame, or the whole vector obs
    stack: int              # frames per observation (4 for Atari, 1 otherwise)
    frames_per_step: int    # emulator frames per agent step (4 for Atari: the action repeat)
    is_atari: bool

    def steps(self, frames: int) -> int:
        """Agent steps in `frames` emulator frames (how config budgets become internal counts)."""
        return int(frames) // self.frames_per_step

    def frames(self, steps: int) -> int:
        """Emulator frames in `steps` agent steps (how internal counts reach logs and metrics)."""
        return int(steps) * self.frames_per_step


def env_info(env) -> EnvInfo:
    """EnvInfo of a `gorila.envs.VectorEnv`."""
    return EnvInfo(tuple(env.obs_shape), np.dtype(env.obs_dtype).name, int(env.num_actions),
                   tuple(env.frame_shape), int(env.stack), int(env.frames_per_step),
                   env.spec.kind == "atari")


@dataclass(frozen=True)
class Minibatch:
    """B sampled transitions (s_t, a_t, R_t^(n), gamma^k or 0, s_{t+k}); observations in their stored
    dtype (uint8 for Atari until the network's first layer)."""
    obs: np.ndarray          # [B, *obs_shape]
    actions: np.ndarray      # [B] int64
    returns: np.ndarray      # [B] float32, the n-step return
    discounts: np.ndarray    # [B] float32, the bootstrap discount (0 after a terminal)
    next_obs: np.ndarray     # [B, *obs_shape], the state to bootstrap from

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concatenate(parts: list[Minibatch]) -> Minibatch:
        """One minibatch from the shares drawn from several replay memories."""
        if len(parts) == 1:
            return parts[0]
        return Minibatch(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(Minibatch)))


@dataclass(frozen=True)
class Report:
    """What a worker (actor, learner or bundle) did with one budget: the driver's only input from it."""
    steps: int = 0                              # agent steps taken (actors, bundles)
    updates: int = 0                            # learner updates made (learners, bundles)
    episode_returns: tuple[float, ...] = ()     # raw returns of the episodes that ended
    loss_sum: float = 0.0                       # summed over the gradients that were sent
    loss_count: int = 0
    dropped_outliers: int = 0                   # gradients the outlier filter dropped
    replay_size: int | None = None              # entries in the worker's own replay (bundles)
    process: int = field(default_factory=os.getpid)  # who reported: changes when Ray restarts the worker

    def merge(self, other: Report) -> Report:
        """The report of a bundle: its actor's and its learner's in one."""
        return replace(self, updates=self.updates + other.updates, loss_sum=self.loss_sum + other.loss_sum,
                       loss_count=self.loss_count + other.loss_count,
                       dropped_outliers=self.dropped_outliers + other.dropped_outliers)


class ParameterSource(Protocol):
    """theta+ as seen by actors and learners (a `ParameterClient` over the shards)."""
    versions: np.ndarray
    def pull(self, prefetch: bool = False) -> tuple[np.ndarray, bool]: ...
    def pull_target(self) -> np.ndarray: ...
    def push(self, gradients: np.ndarray, base_versions: np.ndarray) -> None: ...
    def push_and_pull(self, gradients: np.ndarray, base_versions: np.ndarray) -> tuple[np.ndarray, bool]: ...
    def drain(self) -> None: ...


class TransitionSink(Protocol):
    """Where an actor writes one entry per environment copy and step (a `ReplayWriter`)."""
    def add(self, frames, actions, rewards, terminals, lasts) -> None: ...
    def flush(self) -> None: ...


class MinibatchSource(Protocol):
    """Where a learner draws minibatches (a `ReplayMemory`, or a `ReplaySampler` over several)."""
    def sample(self, batch_size: int) -> Minibatch | None: ...


class Worker(Protocol):
    """An actor, a learner or a bundle: the driver hands it a budget, it reports what it did."""
    def run(self, budget: int) -> Report: ...


def learner_processes(config) -> int:
    """How many processes run a learner: one per bundle, or the stand-alone learners."""
    return config.actors if config.bundled else config.learners


@dataclass(frozen=True)
class WorkerId:
    """Which worker: its role (`bundle`, `actor` or `learner`) and its index among that role."""
    role: str
    index: int

    def __str__(self) -> str:
        return f"{self.role} {self.index}"
