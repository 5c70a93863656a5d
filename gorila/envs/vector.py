"""One batched interface over K environment copies, for actors and evaluators.

Actors should not care whether they play Pong or CartPole, nor how each
library signals life losses and autoresets. `VectorEnv.step` therefore always
returns a `Step` with the same meaning:

- `reward` is the raw game reward (learners clip it; logs want game scores);
- `terminal` means "do not bootstrap past this step";
- `episode_end` means "this obs is the last one of its episode"; the next
  `step()` of that slot ignores its action and returns the first obs of a new
  episode with reward 0, terminal False, episode_end False (it is no transition).

`reset(seed)` starts every copy from `seed`; how the copies' episodes are seeded from it is each
implementation's (`VectorEnv.episode_seeds` says it, and evaluation results record it):

- Atari (`gorila.envs.atari_vector`), MinAtar and Gymnasium envs stepped in a loop
  (`gorila.envs.gym_vector`): copy i is reset with seed + i; its later episodes continue its own
  random stream;
- Gymnasium's batched implementation (CartPole): one seed for the batch as a whole, one random
  stream for every copy's episodes.

The copies a run needs are made by `gorila.envs.factory` (`make_vector_env`, `make_vector_env_for`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gorila.envs.registry import EnvSpec


@dataclass
class Step:
    """Result of one batched step; every array has length K (see module docstring)."""

    obs: np.ndarray
    reward: np.ndarray
    terminal: np.ndarray
    episode_end: np.ndarray


class VectorEnv:
    """K copies of one environment behind the uniform `Step` interface."""

    num_envs: int
    num_actions: int
    obs_shape: tuple[int, ...]
    obs_dtype: np.dtype
    frame_shape: tuple[int, ...]
    stack: int
    frames_per_step: int  # emulator frames per agent step (the action repeat)
    spec: EnvSpec
    seed: int = 0

    def _set_shapes(self, obs_shape: tuple[int, ...], obs_dtype, stack: int) -> None:
        """Fill the shape attributes shared by both backends."""
        self.obs_shape = tuple(int(d) for d in obs_shape)
        self.obs_dtype = np.dtype(obs_dtype)
        self.stack = stack
        self.frame_shape = self.obs_shape[1:] if stack > 1 else self.obs_shape

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start a new episode in every copy, seeded from `seed` (see `episode_seeds`).

        seed None means the seed given to `make_vector_env`, so that a run is
        reproducible without the caller carrying the seed around.
        """
        raise NotImplementedError

    def episode_seeds(self, seed: int, episodes: int) -> list[dict]:
        """Where the episodes that `play_episodes(env, act, episodes, seed)` plays begin: here, copy
        i from seed + i (an implementation that seeds otherwise says so)."""
        note = "copy i reset with seed + i; its later episodes continue its random stream"
        return [{"copy": i, "seed": seed + i, "note": note} for i in range(self.num_envs)]

    def step(self, actions: np.ndarray) -> Step:
        """Apply one action per copy."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the emulators or environments."""
        self._env.close()

    def __enter__(self) -> VectorEnv:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _actions(self, actions) -> np.ndarray:
        """Check and convert actions to int64 [K].

        The range check matters: ale-py 0.12.1 throws on a bad action inside a
        C++ worker thread, and the Python call then hangs instead of raising.
        """
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        if actions.size and (actions.min() < 0 or actions.max() >= self.num_actions):
            raise ValueError(f"actions must lie in [0, {self.num_actions}), got {actions}")
        return actions.astype(np.int64, copy=False)
