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

from pathlib import Path

import numpy as np

from gorila.envs.registry import EnvError, EnvSpec
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


class MinAtarVector(VectorEnv):
    """MinAtar's games (Young & Tian 2019), K game objects stepped in a loop: each 10x10xC boolean frame
    becomes channels-first C x 10 x 10 and stays boolean (one byte a cell in replay) until the
    network's first layer. Sticky actions (0.1) and difficulty ramping are MinAtar's defaults, as in
    its paper; one agent step is one frame, and an episode runs until the game ends (or `max_frames`).

    The games are MinAtar's own (`minatar.environments.<game>.Env`), driven as its `Environment` and
    Gymnasium wrapper drive them, frame for frame: one RandomState per copy, seeded at its first
    reset with seed + i, draws the sticky actions and the game's own randomness. Going around those
    wrappers spares every process their import of seaborn, pandas and scipy (seconds each) and
    each step three Python layers."""

    STICKY = 0.1  # MinAtar's sticky-action probability

    def __init__(self, spec: EnvSpec, num_envs: int, max_frames: int | None):
        options = dict(spec.kwargs)
        self.sticky = float(options.pop("sticky_action_prob", self.STICKY))
        ramping = bool(options.pop("difficulty_ramping", True))
        if options:
            raise EnvError(
                f"env_kwargs: MinAtar's games take sticky_action_prob and difficulty_ramping, "
                f"not {', '.join(sorted(options))}"
            )
        game = minatar_game(spec.game)
        self.spec, self.num_envs, self._max_frames = spec, num_envs, max_frames
        self._games = [game.Env(ramping=ramping) for _ in range(num_envs)]
        self._actions_of = (
            list(range(MINATAR_ACTIONS)) if spec.id.endswith("-v0") else list(self._games[0].minimal_action_set())
        )
        self.num_actions, self.frames_per_step = len(self._actions_of), 1
        self._set_shapes(self._observe(self._games[0]).shape, np.bool_, 1)
        self._last = [0] * num_envs  # the previous action, as MinAtar keeps it across episodes
        self._random, self._ended, self._frames = None, None, None

    @staticmethod
    def _observe(game) -> np.ndarray:
        return game.state().transpose(2, 0, 1)  # HWC to CHW, as a view (np.moveaxis costs more)

    def reset(self, seed: int | None = None) -> np.ndarray:
        seed = int(self.seed if seed is None else seed)
        self._random = [np.random.RandomState(seed + i) for i in range(self.num_envs)]
        for game, random in zip(self._games, self._random):
            game.random = random
        self._ended = np.zeros(self.num_envs, bool)
        self._frames = np.zeros(self.num_envs, np.int64)
        return self._start_all()

    def _start_all(self) -> np.ndarray:
        for game in self._games:
            game.reset()
        return np.stack([self._observe(game) for game in self._games])

    def step(self, actions: np.ndarray) -> Step:
        if self._ended is None:
            raise RuntimeError("call reset() before step()")
        actions = self._actions(actions)
        obs = np.empty((self.num_envs,) + self.obs_shape, np.bool_)
        reward = np.zeros(self.num_envs, np.float32)
        terminal = np.zeros(self.num_envs, bool)
        for i, game in enumerate(self._games):
            if self._ended[i]:  # the autoreset step: a new episode, no transition
                game.reset()
                self._frames[i] = 0
            else:
                action = self._actions_of[actions[i]]
                if self._random[i].rand() < self.sticky:
                    action = self._last[i]
                self._last[i] = action
                reward[i], terminal[i] = game.act(action)
                self._frames[i] += 1
            obs[i] = self._observe(game)
        truncated = ~terminal & (self._frames >= self._max_frames) if self._max_frames else np.zeros_like(terminal)
        truncated &= ~self._ended
        self._ended = terminal | truncated
        return Step(obs, reward, terminal, self._ended.copy())

    def close(self) -> None:
        self._games = []


MINATAR_ACTIONS = 6  # every MinAtar game's full action set (v0)


def minatar_game(game: str):
    """The module of one of MinAtar's games (`minatar/environments/breakout.py`), loaded from its file:
    importing it as `minatar.environments.breakout` would first run the package's `__init__`, which
    imports its display code and with it seaborn, pandas and scipy. The game modules need only numpy."""
    import importlib.util
    import sys

    name = f"gorila_minatar_{game}"
    if name not in sys.modules:
        package = importlib.util.find_spec("minatar")
        source = Path(package.submodule_search_locations[0]) / "environments" / f"{game}.py"
        loader = importlib.util.spec_from_file_location(name, source)
        module = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


class NativeGymVector(VectorEnv):
    """A Gymnasium environment with a batched implementation of its own (CartPole's
    `vector_entry_point`): one numpy step moves every copy. Its autoreset is the next-step one of the
    `Step` contract; `reset(seed=s)` seeds the batch as a whole rather than copy i with s + i."""

    def __init__(self, spec: EnvSpec, num_envs: int, max_frames: int | None):
        import gymnasium

        kwargs = {} if max_frames is None else {"max_episode_steps": max_frames}
        self.spec, self.num_envs = spec, num_envs
        self._env = gymnasium.make_vec(
            spec.registered_id(), num_envs, vectorization_mode="vector_entry_point", **kwargs, **spec.kwargs
        )
        self.num_actions = int(self._env.single_action_space.n)
        self.frames_per_step = 1
        self._set_shapes(self._env.single_observation_space.shape, np.float32, 1)

    def reset(self, seed: int | None = None) -> np.ndarray:
        obs, _ = self._env.reset(seed=int(self.seed if seed is None else seed))
        return obs.astype(np.float32, copy=False)

    def episode_seeds(self, seed: int, episodes: int) -> list[dict]:
        note = (
            "the batch reset with seed as a whole (Gymnasium's batched implementation); every copy's "
            "episodes draw from its one random stream"
        )
        return [{"copies": self.num_envs, "seed": seed, "note": note}]

    def step(self, actions: np.ndarray) -> Step:
        obs, reward, terminated, truncated, _ = self._env.step(self._actions(actions))
        terminated = np.asarray(terminated, bool)
        return Step(
            obs.astype(np.float32, copy=False),
            np.asarray(reward, np.float32),
            terminated,
            terminated | np.asarray(truncated, bool),
        )


def has_batched_implementation(spec: EnvSpec) -> bool:
    """Whether Gymnasium steps this env's copies in one batched implementation (a registered env's
    `vector_entry_point`; never a user's callable)."""
    import gymnasium

    return spec.factory is None and gymnasium.spec(spec.registered_id()).vector_entry_point is not None
