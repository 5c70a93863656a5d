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
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from gorila.envs import atari_constants as atari
from gorila.envs.registry import EnvError, EnvSpec, resolve_env


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


def make_vector_env(
    name_or_spec: str | EnvSpec,
    num_envs: int,
    seed: int = 0,
    *,
    evaluation: bool = False,
    max_episode_frames: int | None = None,
    num_threads: int = 0,
    fire_reset: bool = False,
    sticky_actions: float = 0.0,
    full_action_set: bool = False,
    life_loss_signal: bool = True,
) -> VectorEnv:
    """Build K copies; call `reset()` first, which seeds them from `seed` (see `VectorEnv.episode_seeds`).

    evaluation: Atari: no life-loss terminals and an 18,000-frame cap (the
    paper's 5 minutes) unless `max_episode_frames` says otherwise; MinAtar: the
    same cap (a greedy agent may otherwise play one episode for ever). In training
    the Atari cap is 108,000 frames. For Gymnasium envs `max_episode_frames`
    replaces the TimeLimit (counted in env steps). num_threads: ale-py's C++
    worker threads (0 lets ale-py choose); ignored for Gymnasium envs.
    Atari only, ignored elsewhere: fire_reset: press FIRE after each reset (DQN
    did not); sticky_actions: the probability that a frame repeats the previous
    action instead (Machado et al. 2018: 0.25; DQN: 0); full_action_set: all 18
    ALE actions instead of the game's minimal set; life_loss_signal: a life loss
    is `terminal` in training (DQN's convention; evaluation never signals one).
    `make_vector_env_for` refuses the last three for other envs.
    """
    spec = resolve_env(name_or_spec)
    _check_sizes(num_envs, max_episode_frames)
    from gorila.envs.atari_vector import AtariVector
    from gorila.envs.gym_vector import GymVector, MinAtarVector, NativeGymVector, has_batched_implementation

    if spec.kind == "atari":
        cap = max_episode_frames or (atari.EVAL_MAX_FRAMES if evaluation else atari.MAX_EPISODE_FRAMES)
        env: VectorEnv = AtariVector(
            spec,
            num_envs,
            max_frames=cap,
            num_threads=num_threads,
            fire_reset=fire_reset,
            sticky_actions=sticky_actions,
            full_action_set=full_action_set,
            life_loss=life_loss_signal and not evaluation,
        )
    elif spec.kind == "minatar":
        env = MinAtarVector(spec, num_envs, max_episode_frames or (atari.EVAL_MAX_FRAMES if evaluation else None))
    elif has_batched_implementation(spec):
        env = NativeGymVector(spec, num_envs, max_episode_frames)
    else:
        env = GymVector(spec, num_envs, max_episode_frames)
    env.seed = int(seed)
    return env


ATARI_SETTINGS = ("sticky_actions", "full_action_set", "life_loss_signal", "max_episode_frames")


def make_vector_env_for(config, num_envs: int, seed: int, *, evaluation: bool = False) -> VectorEnv:
    """K copies of `config.env` as an experiment's config says to play it, in training or in its
    evaluations: `fire_reset`, the Atari settings of `ATARI_SETTINGS`, and `eval_max_frames` as the
    cap of an Atari evaluation episode. Actors, evaluators and every probe of the env's shapes build it here,
    so a network always meets the action set it was made for.

    `config` is a `gorila.config.Config`, read by attribute (the envs import nothing above them).
    Another env than Atari with an Atari setting other than its default raises EnvError naming it.
    """
    spec = resolve_env(config.env, config.env_kwargs)
    settings = {key: getattr(config, key) for key in ATARI_SETTINGS}
    if spec.kind != "atari":
        defaults = {item.name: item.default for item in dataclasses.fields(config)}
        changed = [key for key in ATARI_SETTINGS if settings[key] != defaults[key]]
        if changed:
            raise EnvError(
                f"{changed[0]}: an Atari setting, and {spec.id} is no Atari game (leave it at {defaults[changed[0]]!r})"
            )
        return make_vector_env(spec, num_envs, seed, evaluation=evaluation, fire_reset=config.fire_reset)
    if evaluation:
        settings["max_episode_frames"] = config.eval_max_frames
    return make_vector_env(spec, num_envs, seed, evaluation=evaluation, fire_reset=config.fire_reset, **settings)


def _check_sizes(num_envs: int, max_episode_frames: int | None) -> None:
    if num_envs < 1:
        raise EnvError(f"num_envs must be at least 1, got {num_envs}")
    if max_episode_frames is not None and max_episode_frames < 1:
        raise EnvError(f"max_episode_frames must be positive, got {max_episode_frames}")
