"""Play whole episodes on a VectorEnv and return their raw scores (evaluation)."""

from __future__ import annotations

from typing import Callable

import numpy as np

from gorila.envs.vector import VectorEnv


def _quotas(num_episodes: int, num_envs: int) -> np.ndarray:
    """Episodes per slot, fixed up front.

    Taking the first N episodes to finish would favour short ones (a slot that
    keeps dying contributes more); a fixed share per slot does not.
    """
    quotas = np.full(num_envs, num_episodes // num_envs, np.int64)
    quotas[: num_episodes % num_envs] += 1
    return quotas


def play_episodes(
    env: VectorEnv,
    act: Callable[[np.ndarray], np.ndarray],
    num_episodes: int,
    seed: int,
) -> np.ndarray:
    """Raw returns of exactly `num_episodes` episodes, ordered by slot then by episode.

    A return sums the unclipped rewards of a whole episode (all lives of an Atari
    game). `act` maps a batch of observations [K, ...] to K actions; slots whose
    share is done keep stepping (the batch must stay whole) but no longer count.
    The env is reset with `seed`, so a fixed `act` gives the same returns.
    """
    if num_episodes < 1:
        raise ValueError(f"num_episodes must be at least 1, got {num_episodes}")
    quotas = _quotas(num_episodes, env.num_envs)
    done = np.zeros(env.num_envs, np.int64)
    running = np.zeros(env.num_envs, np.float64)
    returns: list[list[float]] = [[] for _ in range(env.num_envs)]
    obs = env.reset(seed)
    while np.any(done < quotas):
        step = env.step(act(obs))
        obs = step.obs
        running += step.reward
        for slot in np.flatnonzero(step.episode_end):
            if done[slot] < quotas[slot]:
                returns[slot].append(float(running[slot]))
                done[slot] += 1
            running[slot] = 0.0
    return np.array([r for slot in returns for r in slot], dtype=np.float64)
