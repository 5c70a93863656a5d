"""The table of a MinAtar suite, beside MinAtar's published DQN (Young & Tian 2019).

MinAtar's paper plots, per game, the moving average of training returns over the last 100 episodes
against training frames; it evaluates no greedy policy. So each row holds what a game's run measured
that way at its end (the last train record's mean of the last 100 finished training episodes, and the
frames it was taken at), the published DQN's return at those same frames
(`gorila.evaluation.minatar_reference`) and our return as a ratio of it; beside them, for reference,
the final evaluation of the saved parameters that every suite game gets. Below: how many games
reached the published return, and the lowest ratio. A suite of several seeds has a row per game over
its seeds: the mean of their training returns (each seed's beside it) against the published DQN at
their mean frames.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import yaml

from gorila.evaluation.minatar_reference import published_dqn_curve, published_dqn_return
from gorila.experiments.suite.plan import FINAL_PARAMETERS, SuitePlan
from gorila.experiments.suite.table import TABLE_CSV, TABLE_JSON, TABLE_MD, write_csv
from gorila.records.evaluation_files import load_evaluation
from gorila.records.markdown import cell_number, table_lines
from gorila.records.metrics import read_metrics

WINDOW = 100  # MinAtar's moving average: the last 100 training episodes
PUBLISHED = (
    "MinAtar's published DQN (Young & Tian 2019, mean of 30 runs, read off its figure; full action "
    "set, MinAtar/<Game>-v0)"
)
MINIMAL_MARK = "*"  # the run played the minimal action set (-v1), not the published curves' full one


def training_return(records: list[dict]) -> dict | None:
    """The last train record's mean return of the last 100 training episodes: {'frames', 'return',
    'episodes'} (over fewer episodes where the run finished fewer; 'return' None where it finished
    none), or None for a run without a train record."""
    train = [r for r in records if r.get("kind") == "train"]
    if not train:
        return None
    last = train[-1]
    return {"frames": last["env_frames"], "return": last.get("return_mean"), "episodes": last.get("episodes_recent", 0)}


def run_speed(records: list[dict]) -> float | None:
    """A run's frames/s: the median of its train records' (each a window of `log_every_seconds`)."""
    speeds = [r["fps"] for r in records if r.get("kind") == "train" and r.get("fps")]
    return statistics.median(speeds) if speeds else None


def published_gap(env: str, frames: int) -> str:
    """Why the published curve has no value at `frames`: before its first readable point or after its last."""
    curve = published_dqn_curve(env)
    first, last = int(curve[0, 0]), int(curve[-1, 0])
    return (
        f"the published curve begins at {first:,} frames"
        if frames < first
        else f"the published curve ends at {last:,} frames"
    )


def compared(env: str, records: list[dict]) -> dict:
    """Our training return at a run's end (its frames, the episodes it averages) beside the published
    DQN's at those frames, and their ratio; None where either is missing, and `published_note` saying
    why the published curve has no value there."""
    ours = training_return(records) or {"frames": None, "return": None, "episodes": 0}
    return {
        "frames": ours["frames"],
        "episodes": ours["episodes"],
        "ours_training_return": ours["return"],
        **beside_published(env, ours["frames"], ours["return"]),
    }


def beside_published(env: str, frames: int | None, ours: float | None) -> dict:
    """The published DQN's return at `frames`, `ours` as a ratio of it, and why there is none."""
    published = published_dqn_return(env, frames) if frames is not None else None
    return {
        "published_dqn": published,
        "ratio": ours / published if ours is not None and published else None,
        "published_note": published_gap(env, frames) if published is None and frames else "",
    }


def against_published(env: str, records: list[dict]) -> str:
    """A MinAtar run's training return at its end beside MinAtar's published DQN, as a line."""
    c = compared(env, records)
    if c["ours_training_return"] is None:
        return "no training episode finished: nothing to set beside MinAtar's published DQN"
    there = (
        f"none ({c['published_note']})"
        if c["published_dqn"] is None
        else f"{c['published_dqn']:.2f}" + ("" if c["ratio"] is None else f" (ours / published: {c['ratio']:.2f})")
    )
    return (
        f"training return {c['ours_training_return']:.2f} (mean of the last {c['episodes']} training episodes) "
        f"at {c['frames']:,} frames; MinAtar's published DQN there: {there}"
    )


def ran_env(run_dir: Path, game: str) -> str:
    """The env id the game's run was trained on, from its saved config."""
    config = run_dir / "config.yaml"
    return (yaml.safe_load(config.read_text()) or {}).get("env", game) if config.is_file() else game


def minatar_row(plan: SuitePlan, game: str) -> dict:
    """One row: the id that ran, `compared` at the run's end, and the final evaluation of the saved parameters."""
    run_dir = plan.game_dir(game)
    env = ran_env(run_dir, game)
    final = load_evaluation(plan.result_file(game, "noop"))
    records = read_metrics(run_dir)
    return {
        "game": game,
        "env": env,
        **compared(env, records),
        "frames_per_s": run_speed(records),
        "ours_final_eval": final["return_mean"],
        "eval_episodes": final["episodes"],
    }


def seeds_row(plan: SuitePlan, game: str) -> dict:
    """A game's row over the seeds of `plan`: the mean training return of its seeds' runs (and each
    one's) against the published DQN at their mean frames; the mean of their final evaluations."""
    rows = [minatar_row(seed_plan, game) for seed_plan in plan.seed_plans()]
    returns = [r["ours_training_return"] for r in rows]
    mean = None if None in returns else sum(returns) / len(returns)
    frames = round(sum(r["frames"] for r in rows) / len(rows)) if all(r["frames"] for r in rows) else None
    return {
        "game": game,
        "env": rows[0]["env"],
        "seeds": list(plan.seeds),
        "frames": frames,
        "episodes": min(r["episodes"] for r in rows),
        "ours_training_return": mean,
        "seed_returns": returns,
        "seed_frames_per_s": [r["frames_per_s"] for r in rows],
        **beside_published(rows[0]["env"], frames, mean),
        "ours_final_eval": sum(r["ours_final_eval"] for r in rows) / len(rows),
        "eval_episodes": rows[0]["eval_episodes"],
    }


def row_speeds(row: dict) -> list[float | None]:
    """The frames/s of each run a row stands for: its seeds' runs, or its one run."""
    return row.get("seed_frames_per_s", [row.get("frames_per_s")])


def minatar_rows(plan: SuitePlan) -> list[dict]:
    """A row per finished game (over its seeds, for a suite of several), in the suite's order."""
    row = seeds_row if plan.seeds else minatar_row
    return [row(plan, game) for game in plan.games if plan.finished(game)]


def minatar_summary(rows: list[dict]) -> dict:
    """Over the games with a ratio: how many, how many at or above the published return, the lowest ratio."""
    rated = [r for r in rows if r["ratio"] is not None]
    lowest = min(rated, key=lambda r: r["ratio"], default=None)
    speeds = [s for r in rows for s in row_speeds(r) if s]
    return {
        "games": len(rated),
        "at_or_above_published": sum(r["ratio"] >= 1.0 for r in rated),
        "lowest_ratio": lowest and lowest["ratio"],
        "lowest_game": lowest and lowest["game"],
        "runs": len(speeds),
        "median_frames_per_s": statistics.median(speeds) if speeds else None,
    }


def summary_line(summary: dict) -> str:
    if not summary["games"]:
        return "No finished game has a published return at its frames yet: no ratio."
    line = (
        f"Games at >= 1.0 of the published DQN: {summary['at_or_above_published']} of {summary['games']}; "
        f"lowest ratio {summary['lowest_ratio']:.2f} ({summary['lowest_game']})."
    )
    if summary.get("median_frames_per_s"):
        line += (
            f" Frames/s, the median over the {summary['runs']} runs of each run's median train record: "
            f"{summary['median_frames_per_s']:,.0f}."
        )
    return line


HEAD = [
    "game",
    "env id that ran",
    "frames",
    "episodes",
    "ours, training return",
    "published DQN",
    "ratio",
    "ours, final evaluation",
    "frames/s",
]
SEEDS_HEAD = [
    {
        "ours, training return": "ours, training return: mean (each seed)",
        "ours, final evaluation": "ours, final evaluation: mean",
        "frames/s": "frames/s (each seed)",
    }.get(column, column)
    for column in HEAD
]


def markdown_rows(rows: list[dict]) -> list[str]:
    """The table's header, rule and rows, as Markdown."""
    head = SEEDS_HEAD if rows and "seed_returns" in rows[0] else HEAD
    table = []
    for r in rows:
        published = cell_number(r["published_dqn"], 2) + (f" ({r['published_note']})" if r["published_note"] else "")
        frames = "—" if r["frames"] is None else f"{r['frames']:,}"
        mark = MINIMAL_MARK if r["env"].endswith("-v1") else ""
        ours = cell_number(r["ours_training_return"], 2)
        if "seed_returns" in r:
            ours += " (" + ", ".join(cell_number(value, 2) for value in r["seed_returns"]) + ")"
        cells = [
            r["game"],
            r["env"] + mark,
            frames,
            str(r["episodes"]),
            ours,
            published,
            cell_number(r["ratio"], 2),
            f"{cell_number(r['ours_final_eval'], 2)} ({r['eval_episodes']} episodes)",
            " / ".join(cell_number(value, 0) for value in row_speeds(r)),
        ]
        table.append(cells)
    return table_lines(head, table)


def notes(rows: list[dict]) -> list[str]:
    """What the table's columns are, and a line for the games that played the minimal action set."""
    lines = [
        f"Training return: the mean return of the last {WINDOW} finished training episodes (fewer where "
        "the run finished fewer: see episodes) at the run's last train record, as MinAtar's paper plots it; "
        f"published DQN: {PUBLISHED}, at the same frames; ratio: ours / published. Final evaluation: the "
        f"{FINAL_PARAMETERS}, evaluated afresh (not MinAtar's measure). Frames/s: the median of the run's "
        "train records, each the frames/s of one logging window."
    ]
    if rows and "seed_returns" in rows[0]:
        lines.append(
            f"Over the seeds {', '.join(map(str, rows[0]['seeds']))}: the mean of their training returns "
            "(each seed's in brackets) against the published DQN at their mean frames; the lowest of "
            "their episode counts; the mean of their final evaluations."
        )
    minimal = [r["game"] for r in rows if r["env"].endswith("-v1")]
    if minimal:
        lines.append(
            f"{MINIMAL_MARK} Played with the game's minimal action set (-v1), not the full set of the "
            f"published curves: {', '.join(minimal)}."
        )
    return lines


def markdown(plan: SuitePlan, rows: list[dict], summary: dict) -> str:
    seeds = f" with seeds {', '.join(map(str, plan.seeds))}" if plan.seeds else ""
    lines = [
        f"# MinAtar suite results: {len(rows)} of {len(plan.games)} games finished{seeds}",
        "",
        *markdown_rows(rows),
        "",
        *notes(rows),
        "",
        summary_line(summary),
    ]
    return "\n".join(lines) + "\n"


def write_minatar_tables(plan: SuitePlan) -> list[Path]:
    """results.md, results.csv and results.json of a MinAtar suite, from its games' runs."""
    rows = minatar_rows(plan)
    summary = minatar_summary(rows)
    paths = [plan.out / TABLE_MD, plan.out / TABLE_CSV, plan.out / TABLE_JSON]
    paths[0].write_text(markdown(plan, rows, summary))
    write_csv(paths[1], rows)
    paths[2].write_text(json.dumps({"rows": rows, "summary": summary, "published": PUBLISHED}, indent=2) + "\n")
    return paths
