"""Environments: name resolution, batched Atari / Gymnasium copies, episode playing.

The names below are imported from their modules on first use, so that importing a light module of
the package (`gorila.envs.atari_constants`, `gorila.envs.registry`) loads no numpy: the command line
builds its help from them and stays fast.
"""

from gorila.lazy import lazy_attributes

_HOMES = {
    "EnvError": "registry",
    "EnvSpec": "registry",
    "resolve_env": "registry",
    "Step": "vector",
    "VectorEnv": "vector",
    "make_vector_env": "factory",
    "make_vector_env_for": "factory",
    "play_episodes": "episodes",
}

__all__ = sorted(_HOMES)

__getattr__ = lazy_attributes(__name__, _HOMES, globals())
