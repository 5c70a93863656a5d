"""One batched interface over K environment copies, for actors and evaluators.

Actors should not care whether they play Pong or CartPole, nor how each
library signals life losses and autoresets. `VectorEnv.step` therefore always
returns a `Step` with the same meaning:

- `reward` is the raw game reward (learners clip it; logs want game scores);
- `terminal` means "do not bootstrap past this step";
- `episode_end` means "this obs is the last one of its episode"; the next
  `step()` of that slot ignores its action and returns the first obs of a new
  episode with reward 0, terminal False, episode_end False (it is no transition).

Atari runs on ale-py's C++ `AtariVectorEnv` (frameskip 4 with a max over the
last two frames, 84x84 grey, stack of 4, up to 30 no-ops at reset, no sticky
actions). DQN pressed no FIRE at reset: the agent learns to launch the ball
itself; `fire_reset=True` asks ale-py to press it (Breakout then loses its
first life within about 20 steps of doing nothing, instead of never). Facts
checked on ale-py 0.12.1 (Breakout, Pong, 2 envs):

- with `episodic_life=False, life_loss_info=True`, `terminated` is True at a
  life loss (only while lives remain > 0) and the game goes on: lives drop by
  one and `episode_frame_number` keeps counting, no reset happens;
- a game over is `terminated` with lives == 0 (in Pong lives are always 0);
  the following step returns a fresh game: reward 0, terminated and truncated
  False, lives back to full, a small `episode_frame_number` (the no-ops);
- `max_num_frames_per_episode` counts emulator frames after the reset's
  no-ops (4 per agent step): a cap of 400 truncates at agent step 100; when a
  life loss lands on the capped step, ale-py reports terminated True,
  truncated False, and still resets: `episode_end` here counts the frames;
- after a reset the stack holds zeros in its first 3 slots and the first
  frame in the last slot (the stack is not filled with copies of it);
- `reset(seed=s)` seeds copy i with s + i and the whole run is reproducible.

MinAtar's games step K plain environments in a loop, frames channels-first and
boolean. Other Gymnasium envs use their own batched implementation where Gymnasium has
one (CartPole), else K plain environments stepped in a loop; both with the
next-step autoreset of Gymnasium 1.x vector envs: reward 0, terminated and
truncated False on the step after an episode end, the same convention as
ale-py.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from gorila.envs.registry import EnvError, EnvSpec, resolve_env

ATARI_FRAMESKIP = 4
ATARI_STACK = 4
EVAL_MAX_FRAMES = 18_000  # 5 minutes at 60 Hz, the paper's evaluation cap
TRAIN_MAX_FRAMES = 108_000  # 30 minutes, ale-py's default


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
        """Start a new episode in every copy; copy i is seeded with seed + i.

        seed None means the seed given to `make_vector_env`, so that a run is
        reproducible without the caller carrying the seed around.
        """
        raise NotImplementedError

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


class _AtariVector(VectorEnv):
    """ale-py's AtariVectorEnv, with the game-over / life-loss split done here."""

    def __init__(self, spec: EnvSpec, num_envs: int, evaluation: bool, max_frames: int, num_threads: int,
                 fire_reset: bool):
        from ale_py.vector_env import AtariVectorEnv

        self.spec, self.num_envs, self._max_frames = spec, num_envs, max_frames
        self._life_loss, self._lives = not evaluation, None
        self._env = AtariVectorEnv(
            spec.game,
            num_envs,
            num_threads=num_threads,
            max_num_frames_per_episode=max_frames,
            repeat_action_probability=0.0,
            frameskip=ATARI_FRAMESKIP,
            stack_num=ATARI_STACK,
            noop_max=30,
            use_fire_reset=fire_reset,
            episodic_life=False,
            life_loss_info=not evaluation,
            reward_clipping=False,
            autoreset_mode="NextStep",
        )
        self.num_actions = int(self._env.single_action_space.n)
        self.frames_per_step = ATARI_FRAMESKIP
        self._set_shapes(self._env.single_observation_space.shape, np.uint8, ATARI_STACK)

    def reset(self, seed: int | None = None) -> np.ndarray:
        obs, info = self._env.reset(seed=int(self.seed if seed is None else seed))
        self._lives = info["lives"].copy()
        self._steps = np.zeros(self.num_envs, np.int64)
        self._frames = (info["frame_number"].copy(), info["episode_frame_number"].copy())
        self._ended = np.zeros(self.num_envs, bool)
        return obs

    def step(self, actions: np.ndarray) -> Step:
        if self._lives is None:
            raise RuntimeError("call reset() before step()")
        obs, reward, terminated, truncated, info = self._env.step(self._actions(actions))
        lives = info["lives"]
        self._check_resets(info["frame_number"], info["episode_frame_number"])
        self._steps = np.where(self._ended, 0, self._steps + 1)
        # ale-py signals a life loss only while lives remain; any other `terminated` is a game over.
        life_lost = terminated & (lives < self._lives) & (lives > 0) & self._life_loss
        # ale-py also resets when a life loss lands exactly on the frame cap (then truncated is False).
        capped = truncated | (self._steps * ATARI_FRAMESKIP >= self._max_frames)
        episode_end = (terminated & ~life_lost) | capped
        self._lives, self._ended = lives.copy(), episode_end
        return Step(obs, reward.astype(np.float32), terminated.astype(bool), episode_end)

    def _check_resets(self, frame: np.ndarray, episode_frame: np.ndarray) -> None:
        """Warn if ale-py reset a copy other than those `episode_end` announced.

        Within an episode both frame counters advance together; a reset restarts
        the episode counter, which then equals the frames run since the last step.
        The split of `terminated` above rests on ale-py's rules, so this is a
        cheap tripwire for a game where those rules do not hold.
        """
        old_frame, old_episode_frame = self._frames
        reset = (episode_frame - old_episode_frame) != (frame - old_frame)
        if np.any(reset != self._ended):
            wrong = np.flatnonzero(reset != self._ended)
            warnings.warn(f"{self.spec.id}: reset of copies {wrong} disagrees with episode_end", stacklevel=3)
        self._frames = (frame.copy(), episode_frame.copy())


class _GymVector(VectorEnv):
    """K Gymnasium environments stepped in a plain loop, for small control tasks; obs become float32.

    The same next-step autoreset as Gymnasium's SyncVectorEnv (reward 0, terminated and truncated
    False on the step after an episode end; `reset(seed=s)` seeds copy i with s + i, later episodes
    continue each copy's own random stream), without its per-step info bookkeeping, which costs
    several times what CartPole's own step does.
    """

    def __init__(self, spec: EnvSpec, num_envs: int, max_frames: int | None):
        import gymnasium

        kwargs = {"disable_env_checker": True}
        if max_frames is not None:
            kwargs["max_episode_steps"] = max_frames
        self.spec, self.num_envs = spec, num_envs
        self._envs = [gymnasium.make(spec.id, **kwargs) for _ in range(num_envs)]
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


class _MinAtarVector(_GymVector):
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


class _NativeGymVector(VectorEnv):
    """A Gymnasium environment with a batched implementation of its own (CartPole's
    `vector_entry_point`): one numpy step moves every copy. Its autoreset is the next-step one of the
    `Step` contract; `reset(seed=s)` seeds the batch as a whole rather than copy i with s + i."""

    def __init__(self, spec: EnvSpec, num_envs: int, max_frames: int | None):
        import gymnasium

        kwargs = {} if max_frames is None else {"max_episode_steps": max_frames}
        self.spec, self.num_envs = spec, num_envs
        self._env = gymnasium.make_vec(spec.id, num_envs, vectorization_mode="vector_entry_point", **kwargs)
        self.num_actions = int(self._env.single_action_space.n)
        self.frames_per_step = 1
        self._set_shapes(self._env.single_observation_space.shape, np.float32, 1)

    def reset(self, seed: int | None = None) -> np.ndarray:
        obs, _ = self._env.reset(seed=int(self.seed if seed is None else seed))
        return obs.astype(np.float32, copy=False)

    def step(self, actions: np.ndarray) -> Step:
        obs, reward, terminated, truncated, _ = self._env.step(self._actions(actions))
        terminated = np.asarray(terminated, bool)
        return Step(obs.astype(np.float32, copy=False), np.asarray(reward, np.float32), terminated,
                    terminated | np.asarray(truncated, bool))


def _has_batched_implementation(env_id: str) -> bool:
    import gymnasium

    return gymnasium.spec(env_id).vector_entry_point is not None


def make_vector_env(
    name_or_spec: str | EnvSpec,
    num_envs: int,
    seed: int = 0,
    *,
    evaluation: bool = False,
    max_episode_frames: int | None = None,
    num_threads: int = 0,
    fire_reset: bool = False,
) -> VectorEnv:
    """Build K copies; `reset()` (call it first) then seeds copy i with seed + i.

    evaluation: Atari: no life-loss terminals and an 18,000-frame cap (the
    paper's 5 minutes) unless `max_episode_frames` says otherwise; MinAtar: the
    same cap (a greedy agent may otherwise play one episode for ever). In training
    the Atari cap is 108,000 frames. For Gymnasium envs `max_episode_frames`
    replaces the TimeLimit (counted in env steps). num_threads: ale-py's C++
    worker threads (0 lets ale-py choose); ignored for Gymnasium envs.
    fire_reset: Atari only; press FIRE after each reset (DQN did not).
    """
    spec = resolve_env(name_or_spec)
    if num_envs < 1:
        raise EnvError(f"num_envs must be at least 1, got {num_envs}")
    if max_episode_frames is not None and max_episode_frames < 1:
        raise EnvError(f"max_episode_frames must be positive, got {max_episode_frames}")
    if spec.kind == "atari":
        cap = max_episode_frames or (EVAL_MAX_FRAMES if evaluation else TRAIN_MAX_FRAMES)
        env: VectorEnv = _AtariVector(spec, num_envs, evaluation, cap, num_threads, fire_reset)
    elif spec.kind == "minatar":
        env = _MinAtarVector(spec, num_envs, max_episode_frames or (EVAL_MAX_FRAMES if evaluation else None))
    elif _has_batched_implementation(spec.id):
        env = _NativeGymVector(spec, num_envs, max_episode_frames)
    else:
        env = _GymVector(spec, num_envs, max_episode_frames)
    env.seed = int(seed)
    return env
