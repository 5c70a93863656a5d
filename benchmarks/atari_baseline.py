"""Compile an Atari run into a published baseline: its curve, its marks and a figure beside Dopamine's.

Reads a run directory (metrics.jsonl, config.yaml) and writes, under benchmarks/baselines/atari/:
- NAME.tsv: the training curve, one row per metrics record: frames, wall seconds, updates and the
  mean training return of the last 100 episodes (raw game score, played at the run's epsilon);
- NAME.json: what made it (the command, the commit, the machine), the frames and wall time at which
  that mean first reached each mark (-10, 0, +10, +18 on Pong, and --target), the same for the
  evaluations during training (`protocol_first_reached`: DQN's protocol under the atari presets, named
  in `evaluation_protocol`), each evaluation's frames, wall time and mean, each resume from a checkpoint
  (`resumes`: frames, wall time, what the replay held), a `gorila evaluate` result and the processes'
  memory over the run when given;
- NAME.png: the curve by frames beside Dopamine's published agents (benchmarks/reference/), and by
  wall time.
The run directory itself stays where it is: what is kept in the repository is this compiled form.

Usage: python benchmarks/atari_baseline.py RUN_DIR --name pong-atari-fast-seed0 --command "gorila train ..."
       [--commit SHA] [--machine TEXT] [--reference dopamine_dqn_pong.tsv ...] [--evaluation EVAL.json]
       [--memory MEM.txt] [--note TEXT] [--target 18]
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
from pathlib import Path

import numpy as np
import yaml

from gorila.experiments.report.targets import evaluation_first, evaluation_name, evaluation_settings, evaluations
from gorila.records.evaluation_files import load_evaluation
from gorila.records.metrics import read_metrics

HERE = Path(__file__).resolve().parent
OUT = HERE / "baselines" / "atari"
MARKS = {"Pong": (-10.0, 0.0, 10.0, 18.0)}  # the returns whose first frames and minutes are reported, by game
WINDOW = 100


def train_curve(run_dir: Path) -> list[dict]:
    """The train records with a full window of episodes: frames, wall time, updates, mean return."""
    rows = []
    for line in (run_dir / "metrics.jsonl").read_text().splitlines():
        record = json.loads(line) if line.strip() else {}
        if record.get("kind") == "train" and record.get("episodes_recent", 0) >= WINDOW:
            rows.append({key: record[key] for key in ("env_frames", "wall_time", "updates", "return_mean")})
    return rows


def first_reached(rows: list[dict], marks: tuple) -> dict:
    """For each mark, the frames and wall seconds at which the mean return first reached it."""
    reached = {}
    for mark in marks:
        row = next((r for r in rows if r["return_mean"] >= mark), None)
        reached[f"{mark:+g}"] = None if row is None else {"frames": row["env_frames"], "wall_s": row["wall_time"]}
    return reached


def protocol_first_reached(records: list[dict], marks: tuple) -> dict:
    """For each mark, the frames and wall seconds of the first evaluation during training at or above it."""
    reached = {mark: evaluation_first(records, mark) for mark in marks}
    return {f"{mark:+g}": None if at is None else at.as_dict() for mark, at in reached.items()}


def evaluation_rows(records: list[dict]) -> list[dict]:
    """Each evaluation during training: frames, wall seconds from launch, mean return."""
    return [
        {"frames": r["env_frames"], "wall_s": r["wall_time"], "mean": r["eval_return_mean"]}
        for r in evaluations(records)
    ]


def resume_rows(records: list[dict]) -> list[dict]:
    """Each resume of the run from a checkpoint: frames, wall seconds from launch, what its replay held
    (the line the run said) and, where the record has it, whether saved replay files refilled it."""
    rows = []
    for r in records:
        if r["kind"] != "resume":
            continue
        row = {"frames": r["env_frames"], "wall_s": r["wall_time"], "replay": r["replay"]}
        if "replay_files_restored" in r:  # records before it: the line alone
            row["replay_restored"] = r["replay_files_restored"] > 0
        rows.append(row)
    return rows


def machine() -> str:
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    import os

    return f"{model}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}"


def head_commit() -> str:
    return subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()


def memory_summary(path: Path) -> dict:
    """Per process (pid), its resident memory first, at its largest and last, from `memwatch` lines
    `time pid rss_kb command...`; growth from the sample after the replay filled is the caller's to read."""
    seen: dict[str, list] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 4:
            seen.setdefault(parts[1], []).append((int(parts[0]), int(parts[2]) / 1024, " ".join(parts[3:5])))
    return {
        pid: {
            "command": samples[0][2],
            "first_mb": round(samples[0][1]),
            "max_mb": round(max(s[1] for s in samples)),
            "last_mb": round(samples[-1][1]),
            "samples": len(samples),
            "minutes": round((samples[-1][0] - samples[0][0]) / 60, 1),
        }
        for pid, samples in seen.items()
    }


def reference(name: str) -> np.ndarray:
    """[frames, mean, min, max] rows of a published curve in benchmarks/reference/."""
    return np.loadtxt(HERE / "reference" / name, comments="#", delimiter="\t", ndmin=2)


def figure(
    rows: list[dict], references: list[str], marks: tuple, title: str, path: Path, evaluated=(), protocol: str = ""
) -> None:
    """The training mean by frames beside the published curves, and by wall time with its first marks;
    the evaluations during training (`evaluation_rows`, by `protocol`) as squares on both."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frames = np.array([r["env_frames"] for r in rows]) / 1e6
    returns = np.array([r["return_mean"] for r in rows])
    minutes = np.array([r["wall_time"] for r in rows]) / 60
    fig, (by_frames, by_time) = plt.subplots(1, 2, figsize=(11, 4))
    by_frames.plot(frames, returns, color="C0", label=f"gorila (this run), training mean of the last {WINDOW} episodes")
    if evaluated:
        for axes, x in (
            (by_frames, [e["frames"] / 1e6 for e in evaluated]),
            (by_time, [e["wall_s"] / 60 for e in evaluated]),
        ):
            axes.plot(x, [e["mean"] for e in evaluated], "s", color="C0", mfc="none", ms=4, label=f"gorila, {protocol}")
    end = frames.max() if len(frames) else 1
    for index, name in enumerate(references):
        curve = reference(name)
        curve = curve[curve[:, 0] / 1e6 <= max(end * 1.5, 2)]
        _, agent, _ = name.removesuffix(".tsv").split("_")  # dopamine_<agent>_<game>.tsv
        label = f"Dopamine {'Rainbow' if agent == 'rainbow' else agent.upper()}, sticky actions"
        by_frames.plot(curve[:, 0] / 1e6, curve[:, 1], color=f"C{index + 1}", label=f"{label} (mean of 5)")
        by_frames.fill_between(curve[:, 0] / 1e6, curve[:, 2], curve[:, 3], color=f"C{index + 1}", alpha=0.15)
    by_frames.set(xlabel="frames (millions)", ylabel="return", title=title)
    by_frames.legend(fontsize=8)
    by_time.plot(minutes, returns, color="C0")
    for mark in marks:
        hit = np.flatnonzero(returns >= mark)
        if hit.size:
            by_time.plot(minutes[hit[0]], mark, "o", color="C0")
            by_time.annotate(
                f"{mark:+g} at {minutes[hit[0]]:.0f} min",
                (minutes[hit[0]], mark),
                textcoords="offset points",
                xytext=(6, -10),
                fontsize=8,
            )
    by_time.set(xlabel="wall time from launch (minutes)", title="the same run by wall time")
    if evaluated:
        by_time.legend(fontsize=8)
    for axes in (by_frames, by_time):
        axes.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--name", required=True, help="file name stem, e.g. pong-atari-fast-seed0")
    parser.add_argument("--command", required=True, help="the command that made the run, as typed")
    parser.add_argument("--commit", default=None, help="the commit the run ran (default: HEAD)")
    parser.add_argument("--reference", nargs="*", default=[], help="files of benchmarks/reference/ to draw beside")
    parser.add_argument("--evaluation", type=Path, help="`gorila evaluate --json` output of the run's best.pt")
    parser.add_argument("--memory", type=Path, help="memwatch lines: time pid rss_kb command")
    parser.add_argument("--machine", default=None, help="where the run ran, when not here (default: this machine)")
    parser.add_argument("--note", default="", help="one line kept with the result")
    parser.add_argument("--target", type=float, action="append", default=[], help="a mark besides the game's")
    args = parser.parse_args()
    rows = train_curve(args.run_dir)
    if not rows:
        raise SystemExit(f"{args.run_dir}: no train record with {WINDOW} episodes yet")
    OUT.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((args.run_dir / "config.yaml").read_text())
    with open(OUT / f"{args.name}.tsv", "w") as file:
        file.write(
            f"# {args.name}: {args.command} (commit {args.commit or head_commit()}; {args.machine or machine()})\n"
        )
        file.write(
            f"# columns: frames, wall seconds from launch, updates, mean training return of the last {WINDOW} episodes\n"
        )
        for r in rows:
            file.write(f"{r['env_frames']}\t{r['wall_time']:.1f}\t{r['updates']}\t{r['return_mean']:.2f}\n")
    marks = tuple(sorted({*MARKS.get(config["env"], ()), *args.target}))
    records = read_metrics(args.run_dir)
    summary = {
        "name": args.name,
        "command": args.command,
        "commit": args.commit or head_commit(),
        "machine": args.machine or machine(),
        "env": config["env"],
        "note": args.note,
        "frames": rows[-1]["env_frames"],
        "wall_s": rows[-1]["wall_time"],
        "updates": rows[-1]["updates"],
        "final_return_100": rows[-1]["return_mean"],
        "best_return_100": max(r["return_mean"] for r in rows),
        "first_reached": first_reached(rows, marks),
        "evaluation_protocol": f"{evaluation_name(config)} ({evaluation_settings(config)})",
        "protocol_first_reached": protocol_first_reached(records, marks),
        "evaluations": evaluation_rows(records),
        "resumes": resume_rows(records),
        "evaluation": load_evaluation(args.evaluation) if args.evaluation else None,
        "memory": memory_summary(args.memory) if args.memory else None,
        "config": config,
    }
    (OUT / f"{args.name}.json").write_text(json.dumps(summary, indent=1) + "\n")
    title, protocol = f"{config['env']}: {args.name}", f"{evaluation_name(config)}s during training"
    figure(rows, args.reference, marks, title, OUT / f"{args.name}.png", summary["evaluations"], protocol)
    shown = ("frames", "wall_s", "final_return_100", "first_reached", "evaluation_protocol", "protocol_first_reached")
    print(json.dumps({k: summary[k] for k in shown}, indent=1))


if __name__ == "__main__":
    main()
