"""The environment copies of a run: `make_vector_env` (a game's copies behind the `VectorEnv`
interface of `gorila.envs.vector`, on ale-py's vector env for Atari, on Gymnasium's batched or looped
copies otherwise) and `make_vector_env_for` (the same from a run's config)."""

from __future__ import annotations

import dataclasses

from gorila.envs import atari_constants as atari
from gorila.envs.atari_vector import AtariVector
from gorila.envs.gym_vector import GymVector, MinAtarVector, NativeGymVector, has_batched_implementation
from gorila.envs.registry import EnvError, EnvSpec, resolve_env
from gorila.envs.vector import VectorEnv


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
