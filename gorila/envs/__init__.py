"""Environments: name resolution, batched Atari / Gymnasium copies, episode playing."""

from gorila.envs.episodes import play_episodes
from gorila.envs.registry import ATARI_GAMES, EnvError, EnvSpec, reference_scores, resolve_env
from gorila.envs.vector import Step, VectorEnv, make_vector_env

__all__ = [
    "ATARI_GAMES",
    "EnvError",
    "EnvSpec",
    "Step",
    "VectorEnv",
    "make_vector_env",
    "play_episodes",
    "reference_scores",
    "resolve_env",
]
