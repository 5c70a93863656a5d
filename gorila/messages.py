"""The data the components exchange: the environment's shape, minibatches, a replay memory's mass and
a worker's report.

Every message between components is one of these small frozen dataclasses or a numpy array. Inside
the system everything is counted in agent steps; frames (agent steps times the action repeat) appear
only at the edges: the config, the command line, logs and metrics.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace

import numpy as np


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
