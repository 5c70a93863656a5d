"""The few interfaces the components share, and what every component needs to know about the env.

A runtime places components; components only see these interfaces, whichever runtime placed them.
"""
from __future__ import annotations

from dataclasses import dataclass
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
    frames_per_step: int    # emulator frames per agent step (4 for Atari: action repeat)
    is_atari: bool


def describe_env(env) -> EnvInfo:
    """EnvInfo of a `gorila.envs.VectorEnv`."""
    is_atari = env.spec.kind == "atari"
    return EnvInfo(tuple(env.obs_shape), np.dtype(env.obs_dtype).name, int(env.num_actions),
                   tuple(env.frame_shape), int(env.stack), 4 if is_atari else 1, is_atari)


class ParameterSource(Protocol):
    """theta+ as seen by actors and learners (a `ParameterClient` over the shards)."""
    versions: np.ndarray
    def pull(self) -> tuple[np.ndarray, bool]: ...
    def pull_target(self) -> np.ndarray: ...
    def push(self, gradient: np.ndarray, base_versions: np.ndarray) -> None: ...


class ReplayMemory(Protocol):
    """Stores streams of transitions; learners sample minibatches from it."""
    def add_steps(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None: ...
    def sample(self, batch_size: int) -> dict | None: ...
    def stats(self) -> dict: ...


class Worker(Protocol):
    """An actor, a learner or a bundle: the driver hands it a budget, it reports what it did."""
    def run(self, budget: int) -> dict: ...
