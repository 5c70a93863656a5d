"""Start points for the human-starts protocol, and the files that hold them.

Gorila's table 3 evaluates each game from 100 start points sampled from a human expert's play; those
start points were never published. gorila therefore stores a start point as the way to reach it: an
emulator seed and the actions played from `reset` (ALE action ids 0-17, each repeated for 4 frames,
sticky actions off). Replaying them on `AtariGame` reaches the same state every time; the file keeps a
digest of that state so a replay that went elsewhere (another ale-py, another ROM) is noticed.

A start-point file is JSON:

    {"format": "gorila-start-points-1", "game": "pong", "ale_py": "0.12.1",
     "source": "random" | "checkpoint" | "trajectory" | "human", "recorded_from": "...",
     "frameskip": 4, "sticky_actions": 0.0,
     "start_points": [{"seed": 7, "actions": [0, 3, ...], "frames": 1240,
                       "reward_before": -2.0, "digest": "<sha256 of RAM and screen>"}, ...]}

`source` and `recorded_from` say who played to the start points (`start_points_source`): only start
points from human play are the paper's protocol. `human` is a person's play, at the keyboard or in
trajectory files that say `"played_by": "human"`.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from gorila.envs.ale_single import AtariGame
from gorila.envs.atari_constants import FRAMESKIP, FULL_ACTIONS
from gorila.envs.registry import resolve_env

FORMAT = "gorila-start-points-1"
SOURCES = ("random", "checkpoint", "trajectory", "human")
HUMAN_PLAY = "human"  # the one source whose start points are the paper's human starts


class StartPointError(ValueError):
    """A start-point or trajectory file that cannot be used; the message is one line."""


@dataclasses.dataclass(frozen=True)
class Trajectory:
    """A game played from `reset` with emulator seed `seed`: ALE action ids, one per agent step;
    `played_by` is who played it where the file says ("human"), else empty."""

    seed: int
    actions: tuple[int, ...]
    played_by: str = ""


@dataclasses.dataclass(frozen=True)
class StartPoint:
    """The state reached by playing `actions` from a reset with emulator seed `seed`."""

    seed: int
    actions: tuple[int, ...]
    frames: int  # emulator frames played to reach it (4 per action)
    reward_before: float  # game score earned on the way; never counted in an evaluation
    digest: str  # `AtariGame.state_digest()` at the start point

    def play(self, game: AtariGame) -> np.ndarray:
        """Replay this start point on `game`; the observation there (the last 4 frames stacked)."""
        obs = game.reset(self.seed)
        for action in self.actions:
            obs, _, over = game.step(action)
            if over:
                raise StartPointError(f"a start point of {game.spec.game} ends the game while it is replayed")
        if game.state_digest() != self.digest:
            raise StartPointError(
                f"a start point of {game.spec.game} does not replay to its recorded state "
                "(recorded with another ale-py or ROM?)"
            )
        return obs


def start_points_of(trajectory: Trajectory, game: AtariGame) -> list[StartPoint]:
    """Every state along `trajectory` before its game ends or reaches the frame cap, as a start point."""
    game.reset(trajectory.seed)
    points, reward = [], 0.0
    for step, action in enumerate(trajectory.actions, start=1):
        _, gained, over = game.step(action)
        reward += gained
        if over or game.truncated:
            break
        points.append(
            StartPoint(trajectory.seed, tuple(trajectory.actions[:step]), game.frames, reward, game.state_digest())
        )
    return points


def sample_start_points(trajectories: list[Trajectory], game: AtariGame, count: int, seed: int = 0) -> list[StartPoint]:
    """`count` start points drawn uniformly from the states along the trajectories (without
    replacement while there are enough), in the order they were played."""
    candidates = [point for trajectory in trajectories for point in start_points_of(trajectory, game)]
    if not candidates:
        raise StartPointError("the trajectories reach no state before the game ends: no start point to take")
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(candidates), size=count, replace=count > len(candidates))
    return [candidates[i] for i in sorted(chosen)]


def _header(game: str, source: str, recorded_from: str) -> dict:
    from ale_py import __version__ as ale_version

    return {
        "format": FORMAT,
        "game": resolve_env(game).game,
        "ale_py": ale_version,
        "source": source,
        "recorded_from": recorded_from,
        "frameskip": FRAMESKIP,
        "sticky_actions": 0.0,
    }


def save_start_points(
    path: str | Path, game: str, points: list[StartPoint], source: str, recorded_from: str = ""
) -> None:
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
    data = {
        **_header(game, source, recorded_from),
        "start_points": [dataclasses.asdict(point) | {"actions": list(point.actions)} for point in points],
    }
    Path(path).write_text(json.dumps(data, separators=(",", ":")) + "\n")


def start_points_source(header: dict | None) -> str:
    """Who played to the start points of a file, from its header: "human", "random-play",
    "agent:<checkpoint>", "trajectory:<files>" (trajectory files that do not say who played them) or
    "unknown" (a file that does not say, as hand-made ones may not)."""
    header = header or {}
    source, origin = header.get("source"), header.get("recorded_from") or ""
    if source == "human":
        return HUMAN_PLAY
    if source == "random":
        return "random-play"
    if source in ("checkpoint", "trajectory"):
        name = "agent" if source == "checkpoint" else "trajectory"
        return f"{name}:{origin}" if origin else name
    return "unknown"


def load_start_points(path: str | Path, game: str) -> tuple[list[StartPoint], dict]:
    """The start points of a file recorded for `game`, and the file's header; a damaged file or one
    recorded for another game raises StartPointError."""
    data = _read_json(path, "start-point")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise StartPointError(f'{path} is not a gorila start-point file (no "format": "{FORMAT}")')
    wanted = resolve_env(game).game
    if data.get("game") != wanted:
        raise StartPointError(f"{path} holds start points of {data.get('game')!r}, not of {wanted!r}")
    try:
        points = [_start_point(item) for item in data["start_points"]]
    except (KeyError, TypeError, ValueError) as error:
        raise StartPointError(f"{path} is damaged: a start point is malformed ({error})") from None
    if not points:
        raise StartPointError(f"{path} holds no start points")
    return points, {key: value for key, value in data.items() if key != "start_points"}


def _start_point(item: dict) -> StartPoint:
    actions = tuple(_check_actions(item["actions"]))
    point = StartPoint(
        int(item["seed"]), actions, int(item["frames"]), float(item["reward_before"]), str(item["digest"])
    )
    if point.frames != FRAMESKIP * len(actions):
        raise ValueError(f"frames {point.frames} != {FRAMESKIP} x {len(actions)} actions")
    return point


def _check_actions(actions) -> list[int]:
    values = [int(a) for a in actions]
    if any(a != b for a, b in zip(values, actions)) or any(not 0 <= a < FULL_ACTIONS for a in values):
        raise ValueError(f"actions must be ALE action ids 0-{FULL_ACTIONS - 1}")
    return values


def _read_json(path, what: str):
    try:
        return json.loads(Path(path).read_text())
    except OSError as error:
        raise StartPointError(f"cannot read {what} file {path} ({error.strerror or error})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StartPointError(f"{path} is not a {what} file (not JSON: {error})") from None


def load_trajectory(path: str | Path, game: str) -> Trajectory:
    """A trajectory a user supplies: JSON `{"game": ..., "seed": S, "actions": [...]}` or NPZ with
    arrays `actions` (and optionally `seed`, `game`); actions are ALE action ids (0-17), one per agent
    step of 4 frames, played from a reset with sticky actions off."""
    path = Path(path)
    try:
        if path.suffix == ".npz":
            with np.load(path, allow_pickle=False) as npz:
                data = {key: npz[key].tolist() for key in npz.files}
        else:
            data = _read_json(path, "trajectory")
        recorded = data.get("game")
        if recorded is not None and resolve_env(str(recorded)).game != resolve_env(game).game:
            raise StartPointError(f"{path} is a trajectory of {recorded!r}, not of {game!r}")
        return Trajectory(
            int(data.get("seed", 0)), tuple(_check_actions(data["actions"])), str(data.get("played_by", ""))
        )
    except StartPointError:
        raise
    except (OSError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise StartPointError(f"{path} is not a trajectory file ({type(error).__name__}: {error})") from None
