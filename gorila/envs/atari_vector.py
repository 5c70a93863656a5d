"""Atari games behind the `VectorEnv` contract of `gorila.envs.vector`.

Atari runs on ale-py's C++ `AtariVectorEnv` with DQN's settings of
`gorila.envs.atari_constants` (frameskip 4 with a max over the last two
frames, 84x84 grey, stack of 4, up to 30 no-ops at reset). DQN pressed no FIRE at reset: the agent learns to launch the ball
itself; `fire_reset=True` asks ale-py to press it (Breakout then loses its
first life within about 20 steps of doing nothing, instead of never).
`AtariVectorEnv` takes each of Machado et al.'s (2018) settings itself:
sticky actions (`repeat_action_probability`, 0.0 for DQN), the full set of
18 actions (`full_action_space`, in ALE id order), the life-loss signal
(`life_loss_info`) and the frame cap (`max_num_frames_per_episode`). Facts
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
- `reset(seed=s)` seeds copy i with s + i (ale-py seeds its copies with
  consecutive values) and the whole run is reproducible.
"""

from __future__ import annotations

import warnings

import numpy as np

from gorila.envs import atari_constants as atari
from gorila.envs.registry import EnvSpec
from gorila.envs.vector import Step, VectorEnv


class AtariVector(VectorEnv):
    """ale-py's AtariVectorEnv, with the game-over / life-loss split done here."""

    def __init__(
        self,
        spec: EnvSpec,
        num_envs: int,
        *,
        max_frames: int,
        num_threads: int = 0,
        fire_reset: bool = False,
        sticky_actions: float = 0.0,
        full_action_set: bool = False,
        life_loss: bool = True,
    ):
        from ale_py.vector_env import AtariVectorEnv

        self.spec, self.num_envs, self._max_frames = spec, num_envs, max_frames
        self._life_loss, self._lives = life_loss, None
        self.sticky_actions, self.full_action_set = float(sticky_actions), full_action_set
        self._env = AtariVectorEnv(
            spec.game,
            num_envs,
            num_threads=num_threads,
            max_num_frames_per_episode=max_frames,
            repeat_action_probability=self.sticky_actions,
            full_action_space=full_action_set,
            img_height=atari.FRAME_SIZE,
            img_width=atari.FRAME_SIZE,
            frameskip=atari.FRAMESKIP,
            stack_num=atari.STACK,
            noop_max=atari.NOOP_MAX,
            use_fire_reset=fire_reset,
            episodic_life=False,
            life_loss_info=life_loss,
            reward_clipping=False,
            autoreset_mode="NextStep",
        )
        self.num_actions = int(self._env.single_action_space.n)
        self.frames_per_step = atari.FRAMESKIP
        self._set_shapes(self._env.single_observation_space.shape, np.uint8, atari.STACK)

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
        capped = truncated | (self._steps * atari.FRAMESKIP >= self._max_frames)
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
