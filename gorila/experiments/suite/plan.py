"""`gorila suite`: the paper's experiment, one agent trained and evaluated per Atari game.

Nair et al. (2015) trained Gorila on each of 49 Atari games and compared the final agents with DQN
under two evaluation protocols (null-op starts and human starts). A suite does the same with a
per-game frame budget: each game is an ordinary run directory under the suite directory, trained
with the same config, then its saved parameters (the final checkpoint, not the best evaluation seen
during training) are evaluated once more on fresh episodes and the result is written beside the run.
That file marks the game finished: a suite started again skips finished games, resumes interrupted
ones from their latest checkpoint and restarts games that left nothing to resume from.

Games run one after another in this process, or `parallel` at a time as Ray tasks (on an embedded
Ray or an existing cluster), each training on the local runtime inside its task.

With several `seeds` a suite is one such suite per seed, each in `seed-<k>/` of the suite directory,
and its own table beside them: each game's result over the seeds (MinAtar suites).

A suite of MinAtar games (Young & Tian 2019) is run the same way and compared with MinAtar's published
DQN curves instead of the paper's Atari scores; each game runs as its `-v0` id, the full action set
those curves were made with. The two kinds do not share a suite: each has its own table.
"""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

from gorila.config import Config, ConfigError, build_config
from gorila.envs.registry import MINATAR_PREFIX, resolve_env
from gorila.evaluation.protocols import get_protocol
from gorila.evaluation.scores import paper_game
from gorila.records.checkpoints import LATEST, load_latest_good
from gorila.records.evaluation_files import load_evaluation
from gorila.records.metrics import read_metrics

SUITE_FILE = "suite.json"
FINAL_PARAMETERS = "parameters saved at the end of training (checkpoints/latest.pt)"


def result_file(run_dir: str | Path, protocol: str) -> Path:
    """Where a suite stores the final evaluation of a game's run under `protocol`."""
    return Path(run_dir) / f"final_eval-{protocol}.json"


@dataclasses.dataclass(frozen=True)
class SuitePlan:
    """What a suite trains: the games, the per-game budget, and the config every game shares."""

    out: Path
    games: tuple[str, ...]
    frames_per_game: int
    preset: str | None = "atari"
    config_file: str | None = None
    overrides: dict = dataclasses.field(default_factory=dict)
    episodes: int | None = None  # final evaluation episodes (default: the config's eval_episodes)
    protocols: tuple[str, ...] = ("noop",)
    starts: str | None = None  # recorded human start points, for the human-starts protocol
    seeds: tuple[int, ...] = ()  # one suite per seed in seed-<k>/ (none: the config's seed, here)

    def game_dir(self, game: str) -> Path:
        return self.out / game.replace("/", "_")

    def seed_plans(self) -> list[SuitePlan]:
        """The suite of each seed, in `seed-<k>/`: the same games and config with `seed` k; none
        for a suite of one seed."""
        return [
            dataclasses.replace(
                self, out=self.out / f"seed-{seed}", overrides={**self.overrides, "seed": seed}, seeds=()
            )
            for seed in self.seeds
        ]

    def result_file(self, game: str, protocol: str) -> Path:
        return result_file(self.game_dir(game), protocol)

    def game_fields(self, game: str) -> dict:
        """The fields a game's run sets on top of the shared config."""
        return {
            "runtime": "local",
            **self.overrides,
            "env": game,
            "total_frames": self.frames_per_game,
            "run_dir": str(self.game_dir(game)),
        }

    def game_config(self, game: str) -> Config:
        return build_config(self.preset, self.config_file, self.game_fields(game))

    @property
    def minatar(self) -> bool:
        """A suite of MinAtar games, whose table sets them beside MinAtar's published DQN curves."""
        return bool(self.games) and all(map(is_minatar, self.games))

    def finished(self, game: str) -> bool:
        """A game is finished once every final evaluation it needs has its result file (of every seed)."""
        if self.seeds:
            return all(plan.finished(game) for plan in self.seed_plans())
        return all(self.result_file(game, p).is_file() for p in self.protocols)

    def to_dict(self) -> dict:
        return {
            **dataclasses.asdict(self),
            "out": str(self.out),
            "games": list(self.games),
            "protocols": list(self.protocols),
            "seeds": list(self.seeds),
        }

    @classmethod
    def load(cls, out: str | Path) -> SuitePlan:
        data = json.loads((Path(out) / SUITE_FILE).read_text())
        data.update(
            out=Path(out),
            games=tuple(data["games"]),
            protocols=tuple(data["protocols"]),
            seeds=tuple(data.get("seeds", ())),
        )
        return cls(**data)


def is_minatar(game: str) -> bool:
    """Whether a game's name is a MinAtar one ('MinAtar/Breakout-v0')."""
    return game.strip().lower().startswith(MINATAR_PREFIX.lower())


def suite_game(name: str) -> str:
    """The id a suite runs a game by: a MinAtar game as MinAtar's own id, its `-v0` (the full action
    set of the published curves) unless a version is given; any other name as it is given."""
    name = name.strip()
    if not is_minatar(name):
        return name
    spec = resolve_env(name if re.search(r"-v\d+$", name) else name + "-v0")
    return spec.id


def check_plan(plan: SuitePlan) -> None:
    """Every check that can be made before anything trains: each game's config and environment."""
    from gorila.system.preflight import preflight

    if len({is_minatar(game) for game in plan.games}) > 1:
        raise ConfigError(
            "--games: MinAtar and other games cannot share a suite (each kind has its own published "
            "results to compare with); run them as two suites"
        )
    if plan.frames_per_game < 1:
        raise ConfigError("--frames-per-game must be >= 1")
    if plan.episodes is not None and plan.episodes < 1:
        raise ConfigError("--episodes must be >= 1")
    if plan.seeds and not plan.minatar:
        raise ConfigError(
            "--seeds: a suite of several seeds is tabled for MinAtar games only; run an Atari "
            "suite once per --seed, each with its own --out"
        )
    if len(set(plan.seeds)) != len(plan.seeds):
        raise ConfigError(f"--seeds: each seed once, got {', '.join(map(str, plan.seeds))}")
    if plan.seeds:
        for seed_plan in plan.seed_plans():
            check_plan(seed_plan)
        return
    if any(get_protocol(protocol).start_points for protocol in plan.protocols):
        check_human_starts(plan)
    for game in plan.games:
        if not plan.finished(game):
            check_game_dir(plan.game_dir(game))
            preflight(plan.game_config(game))


RUN_FILES = ("config.yaml", "metrics.jsonl", "checkpoints", "tensorboard")


def check_game_dir(path: Path) -> None:
    """A game's directory is new, empty or a run of an earlier suite: never someone else's files,
    since a game that left nothing to resume from is started again in a cleared directory."""
    if path.exists() and (
        not path.is_dir() or (any(path.iterdir()) and not any((path / name).exists() for name in RUN_FILES))
    ):
        raise ConfigError(f"--out: {path} exists and is not a run directory; choose another --out")


def check_human_starts(plan: SuitePlan) -> None:
    """Every game evaluated with human starts has a start-point file."""
    for game in plan.games:
        path = starts_of(plan, game)
        if not path.is_file():
            raise ConfigError(
                f"--starts: no start points of {game} at {path} (record them with "
                f"`gorila record-starts --env {game} --out {path}`)"
            )


def starts_of(plan: SuitePlan, game: str) -> Path:
    """The start-point file of `game`: --starts itself for a one-game suite given a file, else
    <game>.json (the name as given, or its ale-py name) in the --starts directory."""
    starts = Path(plan.starts or "")
    if starts.is_file() and len(plan.games) == 1:
        return starts
    given = starts / f"{game.replace('/', '_')}.json"
    name = paper_game(game)
    return given if given.is_file() or not name else starts / f"{name}.json"


# ---- one game ----------------------------------------------------------------------------------
def play_game(plan: SuitePlan, game: str, live_progress: bool | None = None) -> dict:
    """Train `game` to the budget (resuming what an earlier suite left), then evaluate its final
    parameters under each protocol still missing; {protocol: result}."""
    train_game(plan, game, live_progress)
    results = {}
    for protocol in plan.protocols:
        path = plan.result_file(game, protocol)
        results[protocol] = load_evaluation(path) if path.is_file() else evaluate_game(plan, game, protocol)
    return results


def training_done(run_dir: Path, frames: int) -> bool:
    """The run stopped by its stop rule, or by its budget of at least `frames` (not interrupted,
    not crashed, not a smaller budget given to an earlier suite)."""
    if not (run_dir / "metrics.jsonl").is_file() or not (run_dir / "checkpoints" / LATEST).exists():
        return False
    summaries = [r for r in read_metrics(run_dir) if r.get("kind") == "summary"]
    last = summaries[-1] if summaries else {}
    return last.get("stop_reason") == "solved" or (last.get("stop_reason") == "budget" and last["env_frames"] >= frames)


def train_game(plan: SuitePlan, game: str, live_progress: bool | None = None) -> None:
    from gorila.system.driver import Driver

    run_dir = plan.game_dir(game)
    if training_done(run_dir, plan.frames_per_game):
        return
    payload = resumable(run_dir)
    if payload is None:
        shutil.rmtree(run_dir, ignore_errors=True)  # a start that left nothing to resume from
        config = plan.game_config(game)
    else:
        fields = {**payload["config"], **plan.game_fields(game)}
        config = build_config(None, None, fields)
    result = Driver(config, run_dir, live_progress=live_progress, resume=payload).run()
    if result["interrupted"]:
        raise KeyboardInterrupt


def resumable(run_dir: Path) -> dict | None:
    """The latest good checkpoint of an interrupted run, or None."""
    if not (run_dir / "checkpoints").is_dir():
        return None
    try:
        return load_latest_good(run_dir, warn=lambda line: None)
    except Exception:  # no good checkpoint: the game starts again
        return None


def evaluate_game(plan: SuitePlan, game: str, protocol: str) -> dict:
    """Evaluate the final parameters of `game` under `protocol` (human starts from its start-point
    file) and store the result file."""
    from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint

    checkpoint = (plan.game_dir(game) / "checkpoints" / LATEST).resolve()  # the file latest.pt links to
    starts = str(starts_of(plan, game)) if get_protocol(protocol).start_points else None
    result = evaluate_checkpoint(checkpoint, episodes=plan.episodes, protocol=protocol, starts=starts)
    result.update(protocol=protocol, parameters=FINAL_PARAMETERS, game=game)  # normalised by evaluate
    path = plan.result_file(game, protocol)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(result, indent=2) + "\n")
    temporary.replace(path)  # atomic: a half-written file never marks a game finished
    return result


def play_game_task(plan: SuitePlan, game: str) -> dict:
    """A game as a Ray task: no live bar (there is no terminal), lines go to the worker's log."""
    return play_game(plan, game, live_progress=False)
