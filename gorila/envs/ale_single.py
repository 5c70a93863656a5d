"""One Atari game on ale-py's `ALEInterface`, with the same preprocessing as training.

ale-py's `AtariVectorEnv` (what actors train on) can neither restore a state nor skip its random
no-ops, so evaluation episodes that begin at a start point (human starts), and those of the
`machado` protocol (Machado et al. 2018), are played here, one emulator per game, in Python.

The preprocessing is DQN's as ale-py's vector environment does it (checked against it in
tests/unit/envs/test_ale_single.py): each agent step repeats its action for 4 frames, the observed frame is
the pixel-wise max of the last two, turned grey by ALE's palette and shrunk from 210x160 to 84x84 by
area averaging (OpenCV's INTER_AREA, which ale-py uses), and the observation stacks the last 4 such
frames. After `reset` the stack holds zeros and the first frame in its last slot, as ale-py's does.
"""

from __future__ import annotations

import functools
import hashlib

import numpy as np

from gorila.envs.atari_constants import FIRE, FRAME_SIZE, FRAMESKIP, MAX_EPISODE_FRAMES, NOOP, STACK
from gorila.envs.registry import EnvError, EnvSpec, resolve_env


def area_weights(source: int, target: int) -> np.ndarray:
    """[target, source] matrix whose row d averages the source cells that output cell d covers,
    each weighted by the length it overlaps (area interpolation along one axis)."""
    scale = source / target
    lower = np.arange(target)[:, None] * scale
    cells = np.arange(source)[None, :]
    overlap = np.minimum(cells + 1, lower + scale) - np.maximum(cells, lower)
    return np.clip(overlap, 0.0, None) / scale


def taps(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The few non-zero entries of each row of `area_weights`: source indices and weights, [taps, target]."""
    count = int((weights > 0).sum(axis=1).max())
    index = np.argsort(weights <= 0, axis=1, kind="stable")[:, :count].T
    return index, np.take_along_axis(weights, index.T, axis=1).T.astype(np.float32)


@functools.lru_cache(maxsize=4)
def _resize_taps(height: int, width: int) -> tuple:
    return taps(area_weights(height, FRAME_SIZE)) + taps(area_weights(width, FRAME_SIZE))


def shrink(frame: np.ndarray) -> np.ndarray:
    """A grey frame [H, W] shrunk to 84x84 by area averaging, rounded to uint8.

    Each output pixel touches at most 4 x 3 source pixels, so the averaging is a few weighted sums of
    gathered rows, then columns (no matrix product: BLAS threads cost more than they save here).
    """
    row_index, row_weight, col_index, col_weight = _resize_taps(*frame.shape)
    frame = frame.astype(np.float32)
    rows = sum(weight[:, None] * frame[index] for index, weight in zip(row_index, row_weight))
    out = sum(weight[None, :] * rows[:, index] for index, weight in zip(col_index, col_weight))
    return np.rint(out).astype(np.uint8)


class AtariGame:
    """One ALE emulator with DQN's preprocessing; actions are ALE action ids (0-17).

    `frames` counts the emulator frames since `reset`; a step stops early at a game over or when
    `frames` reaches `max_frames` (then `truncated`), as the vector environment's frame cap does.
    """

    def __init__(self, game: str | EnvSpec, sticky: float = 0.0, max_frames: int = MAX_EPISODE_FRAMES):
        from ale_py import ALEInterface, LoggerMode, roms

        spec = resolve_env(game)
        if spec.kind != "atari":
            raise EnvError(f"{spec.id} is not an Atari game; only ALE games have this evaluation path")
        ALEInterface.setLoggerMode(LoggerMode.Error)
        self.spec, self.sticky, self.max_frames = spec, float(sticky), int(max_frames)
        self._rom = str(roms.get_rom_path(spec.game))
        self.ale = ALEInterface()
        self.ale.setFloat("repeat_action_probability", self.sticky)
        self.ale.loadROM(self._rom)
        self.minimal_actions = tuple(a.value for a in self.ale.getMinimalActionSet())
        self._last = np.zeros((2, *self.ale.getScreenDims()), np.uint8)
        self.stack = np.zeros((STACK, FRAME_SIZE, FRAME_SIZE), np.uint8)
        self.frames = 0

    def reset(self, seed: int, fire: bool = False, noops: int = 0) -> np.ndarray:
        """A new game from emulator seed `seed`: FIRE for one frame (when asked and the game has it),
        then `noops` no-op frames, as ale-py's vector reset does. Returns the first observation."""
        self.ale.setInt("random_seed", int(seed))
        self.ale.loadROM(self._rom)
        self.ale.reset_game()
        if fire and FIRE in self.minimal_actions:
            self.ale.act(FIRE)
        for _ in range(noops):
            self.ale.act(NOOP)
        self.frames = 0
        self.stack[:] = 0
        self._last[1] = 0
        self.ale.getScreenGrayscale(self._last[0])
        self._push()
        return self.stack.copy()

    def step(self, action: int) -> tuple[np.ndarray, float, bool]:
        """Repeat ALE action `action` for 4 frames; (observation, summed raw reward, game over)."""
        reward = 0.0
        for repeat in range(FRAMESKIP, 0, -1):
            reward += self.ale.act(int(action))
            self.frames += 1
            if self.ale.game_over() or self.truncated:
                break
            if repeat <= 2:
                self.ale.getScreenGrayscale(self._last[repeat - 1])
        self._push()
        return self.stack.copy(), reward, self.ale.game_over()

    @property
    def truncated(self) -> bool:
        return self.frames >= self.max_frames

    @property
    def lives(self) -> int:
        return int(self.ale.lives())

    def _push(self) -> None:
        """Max over the last two frames, shrink, and append to the stack (oldest frame first)."""
        self.stack[:-1] = self.stack[1:]
        self.stack[-1] = shrink(np.maximum(self._last[0], self._last[1]))

    def state_digest(self) -> str:
        """SHA-256 of the emulator's RAM and screen: equal digests, equal game states as far as
        an agent can tell."""
        digest = hashlib.sha256(self.ale.getRAM().tobytes())
        digest.update(self.ale.getScreen().tobytes())
        return digest.hexdigest()

    def close(self) -> None:
        self.ale = None
