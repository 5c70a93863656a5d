"""Time from launch to a target score, read from a run's metrics.jsonl: when the training mean first
reached it, and when an evaluation during training first did.

The two measure different things. The training mean is the mean return of the last 100 training
episodes, played at the actors' own exploration rates (the atari-fast preset's ladder: 0.0025 to
0.05). An evaluation during training plays theta+ on episodes of its own: on an Atari game under the
atari presets' settings that is DQN's protocol (Mnih et al. 2015: up to 30 no-op actions at the start,
epsilon 0.05, episodes of at most 18,000 frames, 30 episodes, on seeds no training episode played;
`gorila.seeds`), the measure published Atari scores use. Each record carries its frames and its wall
seconds from launch (a resumed run's go on from the time already trained).
"""

from __future__ import annotations

from dataclasses import dataclass

from gorila.envs.atari_constants import EVAL_MAX_FRAMES
from gorila.envs.registry import EnvError, resolve_env
from gorila.evaluation.protocols import DQN_EVAL_EPSILON

WINDOW = 100  # episodes a training mean averages (`gorila.records.metrics.TrainWindow`)
DQN_EPISODES = 30  # episodes of one of DQN's evaluations
# The score a game is said to be learnt at, where the field has one: Pong's +18 (of 21) is the mark
# CleanRL's, Ape-X's and RLlib's Pong runs are timed to.
KNOWN_TARGETS = {"pong": 18.0}


@dataclass(frozen=True)
class Reached:
    """The first record at or above a target: its frames and its wall seconds from launch."""

    frames: int
    wall_s: float

    def as_dict(self) -> dict:
        return {"frames": self.frames, "wall_s": self.wall_s}


def training_first(records: list[dict], target: float) -> Reached | None:
    """The first train record whose mean of the last 100 episodes is >= `target` (a mean of fewer
    episodes, early in a run, does not count)."""
    for record in records:
        mean = record.get("return_mean")
        if record.get("kind") == "train" and record.get("episodes_recent", 0) >= WINDOW and mean is not None:
            if mean >= target:
                return Reached(record["env_frames"], record["wall_time"])
    return None


def evaluation_first(records: list[dict], target: float) -> Reached | None:
    """The first evaluation during training whose mean is >= `target`; a confirmation (100 episodes of
    parameters already evaluated) does not count: it follows an evaluation that passed."""
    for record in evaluations(records):
        if record["eval_return_mean"] >= target:
            return Reached(record["env_frames"], record["wall_time"])
    return None


def evaluations(records: list[dict]) -> list[dict]:
    """The run's evaluations during training, confirmations left out."""
    return [r for r in records if r.get("kind") == "eval" and not r.get("confirmation")]


def atari_game(env: str) -> str | None:
    """The ale-py name of an Atari game's env name ('Pong' -> 'pong'), else None."""
    try:
        spec = resolve_env(env)
    except EnvError:
        return None
    return spec.game if spec.kind == "atari" else None


def is_dqn_protocol(config: dict) -> bool:
    """Do the run's evaluations during training follow DQN's protocol? On an Atari game: epsilon 0.05,
    no sticky actions, DQN's 18,000-frame cap and at least 30 episodes (the null-op starts and the
    seeds apart from training's are how every Atari evaluation begins)."""
    return (
        atari_game(config.get("env", "")) is not None
        and config.get("eval_epsilon") == DQN_EVAL_EPSILON
        and not config.get("sticky_actions")
        and config.get("eval_max_frames") == EVAL_MAX_FRAMES
        and config.get("eval_episodes", 0) >= DQN_EPISODES
    )


def evaluation_name(config: dict) -> str:
    """What the run's evaluations during training are called: 'DQN-protocol evaluation' or 'evaluation'."""
    return "DQN-protocol evaluation" if is_dqn_protocol(config) else "evaluation"


def evaluation_settings(config: dict) -> str:
    """The run's evaluation settings in words, e.g. 'null-op starts, epsilon 0.05, 30 episodes'."""
    settings = f"epsilon {config.get('eval_epsilon', '?'):g}, {config.get('eval_episodes', '?')} episodes"
    if atari_game(config.get("env", "")) is None:
        return settings
    sticky = config.get("sticky_actions") or 0
    starts = f"sticky actions {sticky:g}" if sticky else "null-op starts"
    fire = ", FIRE after each reset" if config.get("fire_reset") else ""
    return f"{starts}{fire}, {settings}, at most {config.get('eval_max_frames', EVAL_MAX_FRAMES):,} frames"


def run_target(config: dict, given: float | None = None) -> float | None:
    """The target a run is timed to: `given` (--target), else the run's stop_at_return, else the game's
    known target (`KNOWN_TARGETS`), else None."""
    if given is not None:
        return float(given)
    if config.get("stop_at_return"):
        return float(config["stop_at_return"])
    return KNOWN_TARGETS.get(atari_game(config.get("env", "")) or "")


def target_lines(records: list[dict], config: dict, target: float) -> list[str]:
    """The two lines of `gorila report`: the training mean's time to `target` and the evaluations'."""
    training = training_first(records, target)
    evaluation = evaluation_first(records, target)
    return [
        f"training mean first >= {target:g}: {_when(training)} (last {WINDOW} training episodes, "
        f"at the actors' exploration rates)",
        f"{evaluation_name(config)} first >= {target:g}: {_when(evaluation)} ({evaluation_settings(config)}; "
        f"{_count(evaluations(records))} during training{_best(records)})",
    ]


def _when(reached: Reached | None) -> str:
    if reached is None:
        return "not reached"
    minutes = f" ({reached.wall_s / 60:.0f} min)" if reached.wall_s >= 600 else ""
    return f"at {reached.frames:,} frames, {reached.wall_s:,.0f} s{minutes}"


def _count(done: list[dict]) -> str:
    return f"{len(done)} evaluation{'' if len(done) == 1 else 's'}"


def _best(records: list[dict]) -> str:
    done = evaluations(records)
    if not done:
        return ""
    best = max(done, key=lambda r: r["eval_return_mean"])
    return f", best {best['eval_return_mean']:.1f} at {best['env_frames']:,} frames"
