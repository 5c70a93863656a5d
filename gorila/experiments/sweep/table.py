"""A sweep's results, read from its trials' run directories: one row per trial, one per point (its
trials over the seeds), best first; written as `results.json`, `results.md` and `results.png`."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from pathlib import Path

import yaml

from gorila.experiments.sweep.space import point_name
from gorila.records.durable import write_text_atomically
from gorila.records.markdown import table_lines
from gorila.records.metrics import read_metrics
from gorila.runtime.calls import failure_reason

DONE_SHARE = 0.99  # a trial that reached this share of its budget ran to its end


@dataclass
class SweepResult:
    """`rows`: one per trial (its params, seed, status, the metric's last value, frames, wall time, run
    directory, error); `points`: one per point of the search space, its trials' mean, best first."""

    out: Path
    metric: str
    axes: tuple[str, ...]
    rows: list[dict]
    points: list[dict]

    def best_line(self) -> str:
        scored = [point for point in self.points if point["mean"] is not None]
        if not scored:
            return "no trial reported the metric"
        best = scored[0]
        return f"{describe(best['params'])}: {self.metric} {best['mean']:.2f} over {len(best['values'])} seed(s)"

    def to_dict(self) -> dict:
        return {"metric": self.metric, "axes": list(self.axes), "points": self.points, "trials": self.rows}


def describe(params: dict) -> str:
    return ", ".join(
        f"{key}={value:g}" if isinstance(value, float) else f"{key}={value}" for key, value in params.items()
    )


def collect(plan, outcomes: list[tuple[dict, object]], total_frames: int, ended: set[str] | None = None) -> SweepResult:
    """The rows of every trial Tune reported (`outcomes`: its params and error, if any) and of every
    trial directory found. `ended`: the trials Tune ended (ran out or were stopped early), by name;
    a trial short of its frames that is not among them was interrupted (None: all of them ended)."""
    axes = tuple(axis.field for axis in plan.axes)
    trials = plan.out / "trials"
    errors = {point_name(ordered(params, axes)): error for params, error in outcomes}
    names = set(errors) | ({path.name for path in trials.iterdir() if path.is_dir()} if trials.is_dir() else set())
    rows = [
        trial_row(trials / name, axes, plan.metric, total_frames, errors.get(name), ended is None or name in ended)
        for name in sorted(names)
    ]
    given = {point_name(ordered(params, axes)): ordered(params, axes) for params, _ in outcomes}
    for row in rows:  # a trial that failed before its run began has no config
        row["params"] = row["params"] or {k: v for k, v in given.get(row["trial"], {}).items() if k != "seed"}
    return SweepResult(plan.out, plan.metric, axes, rows, points_of(rows, plan.metric))


def ordered(params: dict, axes: tuple[str, ...]) -> dict:
    """The swept fields in the plan's order, then the seed (how a trial's directory is named)."""
    return {**{axis: params[axis] for axis in axes if axis in params}, "seed": params.get("seed")}


def trial_row(run_dir: Path, axes: tuple[str, ...], metric: str, total_frames: int, error, ended: bool) -> dict:
    """One trial's row from its run directory (which a trial that failed at its start may lack)."""
    config = yaml.safe_load((run_dir / "config.yaml").read_text()) if (run_dir / "config.yaml").is_file() else {}
    records = read_metrics(run_dir) if (run_dir / "metrics.jsonl").is_file() else []
    values = [r[metric] for r in records if r.get(metric) is not None]
    evals = [r["eval_return_mean"] for r in records if "eval_return_mean" in r]
    frames = max((r["env_frames"] for r in records), default=0)
    if error is not None:
        status = "failed"
    elif frames >= DONE_SHARE * total_frames:
        status = "done"
    else:
        status = "stopped early" if ended else "interrupted"
    return {
        "trial": run_dir.name,
        "params": {axis: plain(config[axis]) for axis in axes if axis in config},
        "seed": config.get("seed"),
        "status": status,
        metric: values[-1] if values else None,
        "best_eval": max(evals) if evals else None,
        "env_frames": frames,
        "wall_time": max((r["wall_time"] for r in records), default=0.0),
        "run_dir": str(run_dir),
        "error": None if error is None else failure_reason(error),
    }


def plain(value):
    return tuple(value) if isinstance(value, list) else value


def points_of(rows: list[dict], metric: str) -> list[dict]:
    """Rows grouped by point (the same params over the seeds): `metric`'s mean over the trials that
    reported it, best first; points without a value last."""
    groups: dict[str, dict] = {}
    for row in rows:
        point = groups.setdefault(describe(row["params"]), {"params": row["params"], "values": [], "trials": []})
        point["trials"].append(row["trial"])
        if row[metric] is not None:
            point["values"].append(row[metric])
    for point in groups.values():
        point["mean"] = statistics.fmean(point["values"]) if point["values"] else None
    return sorted(groups.values(), key=lambda p: (p["mean"] is None, -(p["mean"] or 0.0)))


def markdown(result: SweepResult) -> str:
    """The points best first, then every trial."""
    m = result.metric
    shown = lambda v: "-" if v is None else f"{v:.2f}"
    points = [
        [str(rank), *(str(point["params"].get(a, "")) for a in result.axes), shown(point["mean"])]
        + [", ".join(f"{v:.2f}" for v in point["values"]) or "-"]
        for rank, point in enumerate(result.points, 1)
    ]
    trials = [
        [str(row["trial"]), row["status"], shown(row[m]), shown(row["best_eval"])]
        + [f"{row['env_frames']:,}", f"{row['wall_time']:.0f}", row["error"] or ""]
        for row in result.rows
    ]
    axes = len(result.axes)
    lines = [
        f"# Sweep: {m} (higher is better)",
        "",
        *table_lines(["rank", *result.axes, f"{m}, mean", "per seed"], points, right={0, axes + 1}),
        "",
        *table_lines(
            ["trial", "status", m, "best evaluation", "frames", "wall time (s)", "error"], trials, right={2, 3, 4, 5}
        ),
    ]
    return "\n".join(lines) + "\n"


def write_results(result: SweepResult) -> None:
    """results.json, results.md and the figure results.png (each trial's metric against frames)."""
    from gorila.experiments.report.plots import plot_sweep_curves

    out = result.out
    write_text_atomically(out / "results.json", json.dumps(result.to_dict(), indent=1, default=str) + "\n")
    write_text_atomically(out / "results.md", markdown(result))
    runs = {
        row["trial"]: Path(row["run_dir"]) for row in result.rows if (Path(row["run_dir"]) / "metrics.jsonl").is_file()
    }
    curves = [
        (f"{rank}. {describe(point['params'])}", [read_metrics(runs[t]) for t in point["trials"] if t in runs])
        for rank, point in enumerate(result.points, 1)
    ]
    if any(trials for _, trials in curves):
        plot_sweep_curves(curves, result.metric, out / "results.png")
