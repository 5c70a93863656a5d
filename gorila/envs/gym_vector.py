"""MinAtar's games and other Gymnasium environments behind the `VectorEnv` contract of
`gorila.envs.vector`.

MinAtar's games step K plain environments in a loop, frames channels-first and
boolean. Other Gymnasium envs use their own batched implementation where Gymnasium has
one (CartPole), else K plain environments stepped in a loop; both with the
next-step autoreset of Gymnasium 1.x vector envs: reward 0, terminated and
truncated False on the step after an episode end, the same convention as
ale-py. The copies stepped in a loop are reset with seed + i; a batched
implementation is seeded as a whole (`NativeGymVector`).
"""

from __future__ import annotations

import warnings

import numpy as np

from gorila.envs.registry import EnvSpec
from gorila.envs.vector import Step, VectorEnv


class GymVector(VectorEnv):
    """K Gymnasium environments stepped in a plain loop, for small control tasks; obs become float32.

    The same next-step autoreset as Gymnasium's SyncVectorEnv (reward 0, terminated and truncated
    False on the step after an episode end; `reset(seed=s)` seeds copy i with s + i, later episodes
    continue each copy's own random stream), without its per-step info bookkeeping, which costs
    several times what CartPole's own step does.
    """

    def __init__(self, spec: EnvSpec, num_envs: int, max_frames: int | None):
        self.spec, self.num_envs = spec, num_envs
        self._envs = [spec.make(max_frames) for _ in range(num_envs)]
        self.num_actions = int(self._envs[0].action_space.n)
        self.frames_per_step = 1
        shape = self._observe(np.zeros(self._envs[0].observation_space.shape)).shape
        self._set_shapes(shape, self.OBS_DTYPE, 1)
        self._ended = None

    OBS_DTYPE = np.float32

    def _observe(self, obs: np.ndarray) -> np.ndarray:
        """One copy's observation as the network takes it."""
        return obs

    def reset(self, seed: int | None = None) -> np.ndarray:
        seed = int(self.seed if seed is None else seed)
        self._ended = np.zeros(self.num_envs, bool)
        first = [self._observe(env.reset(seed=seed + i)[0]) for i, env in enumerate(self._envs)]
        return np.stack(first).astype(self.obs_dtype)

    def step(self, actions: np.ndarray) -> Step:
        if self._ended is None:
            raise RuntimeError("call reset() before step()")
        actions = self._actions(actions)
        obs = np.empty((self.num_envs,) + self.obs_shape, self.obs_dtype)
        reward = np.zeros(self.num_envs, np.float32)
        terminal = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        for i, env in enumerate(self._envs):
            if self._ended[i]:
                obs[i] = self._observe(env.reset()[0])
            else:
                frame, reward[i], terminal[i], truncated[i], _ = env.step(int(actions[i]))
                obs[i] = self._observe(frame)
        self._ended = terminal | truncated
        return Step(obs, reward, terminal, self._ended.copy())

    def close(self) -> None:
        for env in self._envs:
            env.close()


class MinAtarVector(GymVector):
    """MinAtar's games (Young & Tian 2019) as Gymnasium registers them: each 10x10xC boolean frame
    becomes channels-first C x 10 x 10 and stays boolean (one byte a cell in replay) until the
    network's first layer. Sticky actions (0.1) and difficulty ramping are MinAtar's defaults, as in
    its paper; one agent step is one frame, and an episode runs until the game ends."""

    OBS_DTYPE = np.bool_

    def __init__(self, spec: EnvSpec, num_envs: int, max_frames: int | None):
        from gorila.envs.registry import register_minatar

        register_minatar()              # a fresh process (a Ray worker) has not registered them yet
        with warnings.catch_warnings():  # v0, the full action set of MinAtar's paper, is "out of date"
            warnings.filterwarnings("ignore", message=".*is out of date", category=DeprecationWarning)
            super().__init__(spec, num_envs, max_frames)

    def _observe(self, obs: np.ndarray) -> np.ndarray:
        return np.moveaxis(obs, -1, 0)


class NativeGymVector(VectorEnv):
    """A Gymnasium environment with a batched implementation of its own (CartPole's
    `vector_entry_point`): one numpy step moves every copy. Its autoreset is the next-step one of the
    `Step` contract; `reset(seed=s)` seeds the batch as a whole rather than copy i with s + i."""

    def __init__(self, spec: EnvSpec, num_envs: int, max_frames: int | None):
        import gymnasium

        kwargs = {} if max_frames is None else {"max_episode_steps": max_frames}
        self.spec, self.num_envs = spec, num_envs
        self._env = gymnasium.make_vec(spec.registered_id(), num_envs, vectorization_mode="vector_entry_point",
                                       **kwargs, **spec.kwargs)
        self.num_actions = int(self._env.single_action_space.n)
        self.frames_per_step = 1
        self._set_shapes(self._env.single_observation_space.shape, np.float32, 1)

    def reset(self, seed: int | None = None) -> np.ndarray:
        obs, _ = self._env.reset(seed=int(self.seed if seed is None else seed))
        return obs.astype(np.float32, copy=False)

    def episode_seeds(self, seed: int, episodes: int) -> list[dict]:
        note = ("the batch reset with seed as a whole (Gymnasium's batched implementation); every copy's "
                "episodes draw from its one random stream")
        return [{"copies": self.num_envs, "seed": seed, "note": note}]

    def step(self, actions: np.ndarray) -> Step:
        obs, reward, terminated, truncated, _ = self._env.step(self._actions(actions))
        terminated = np.asarray(terminated, bool)
        return Step(obs.astype(np.float32, copy=False), np.asarray(reward, np.float32), terminated,
                    terminated | np.asarray(truncated, bool))


def has_batched_implementation(spec: EnvSpec) -> bool:
    """Whether Gymnasium steps this env's copies in one batched implementation (a registered env's
    `vector_entry_point`; never a user's callable)."""
    import gymnasium

    return spec.factory is None and gymnasium.spec(spec.registered_id()).vector_entry_point is not None
