"""MinAtar's published DQN learning curves (Young & Tian 2019), as a reference for a run's curve.

MinAtar's paper plots, for each of its five games, the moving average of training returns over the
last 100 episodes (mean of 30 runs) against training frames, 0-5M; its repository publishes the
figure but no numbers. `minatar/dqn_<game>.tsv` next to this module holds the DQN curve of each panel
as read off that figure by benchmarks/read_minatar_curves.py; each file's header says how, which
frames could not be read (where the DQN line lies under the other curves) and how precise it is.

The curves were made with the full action set of 6 actions (MinAtar's `-v0` Gymnasium ids; `-v1`
has each game's minimal set) and, for Seaquest, a game older than MinAtar 1.0.11's oxygen-bar fix.
A game may be named in any spelling MinAtar's ids take: 'MinAtar/SpaceInvaders-v1',
'space_invaders', 'SpaceInvaders'.
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np

from gorila.envs.registry import MINATAR_GAMES, MINATAR_PREFIX, resolve_env


def minatar_game(name: str) -> str:
    """MinAtar's name of a game ('space_invaders') from any spelling of it, with or without the
    'MinAtar/' prefix and a version; an unknown one raises EnvError naming the real ones.

    Another spelling than MinAtar's own name is resolved by `resolve_env`, which wants the minatar
    package installed; MinAtar's own name is taken as it is, so that reading a published curve does not."""
    name = name.strip()
    if name in MINATAR_GAMES:
        return name
    if not name.lower().startswith(MINATAR_PREFIX.lower()):
        name = MINATAR_PREFIX + name
    return resolve_env(name).game


@functools.lru_cache(maxsize=None)
def _curve(game: str) -> np.ndarray:
    text = resources.files(__package__).joinpath("minatar", f"dqn_{game}.tsv").read_text()
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    return np.array(rows, dtype=float)


def published_dqn_curve(game: str) -> np.ndarray:
    """[frames, return] rows of the published DQN curve of a MinAtar game, in order of frames."""
    return _curve(minatar_game(game)).copy()


def published_dqn_return(game: str, frames: int) -> float | None:
    """The published DQN's return (moving average over 100 episodes) at `frames` training frames,
    interpolated linearly between the points read; None before the first readable point and after
    the last (a gap inside, where the line was hidden, is bridged by the straight line)."""
    curve = _curve(minatar_game(game))
    if not curve[0, 0] <= frames <= curve[-1, 0]:
        return None
    return float(np.interp(frames, curve[:, 0], curve[:, 1]))
