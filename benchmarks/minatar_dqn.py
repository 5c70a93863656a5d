"""Learning from pixels on a CPU: the minatar preset on MinAtar Breakout, against MinAtar's published DQN.

Trains `gorila train --preset minatar` (MinAtar's DQN settings and network, Young & Tian 2019) for a
fixed frame budget, one run at a time with one torch thread per component, and measures what MinAtar's
paper plots: the moving average of training returns over the last 100 episodes, against frames. Writes
results/minatar-<game>-<setup>-seed<S>.json and a PNG of that curve with the published DQN curve
(gorila/evaluation/minatar/dqn_<game>.tsv, read off the paper's figure) at the same frames, and the
published curve over its whole 5M frames beside it.
Usage: python benchmarks/minatar_dqn.py [--frames 100000] [--setup local|ray-1|ray-2] [--seed 0] [--set KEY=VALUE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gorila.evaluation.minatar_reference import published_dqn_curve, published_dqn_return
from gorila.records.metrics import read_metrics

HERE = Path(__file__).resolve().parent
GAMES = {"breakout": "MinAtar/Breakout-v0"}  # v0: the full action set of the published curves
SETUPS = {
    "local": ["--runtime", "local"],
    "ray-1": ["--runtime", "ray", "--actors", "1", "--learners", "1"],
    "ray-2": ["--runtime", "ray", "--actors", "2", "--learners", "2"],
}
WINDOW = 100  # MinAtar's moving average: returns of the last 100 training episodes


def train(args, run_dir: Path) -> float:
    """One `gorila train` run; its wall time in seconds (launch to exit, imports and evaluation included)."""
    command = [
        sys.executable,
        "-m",
        "gorila",
        "train",
        "--preset",
        "minatar",
        "--env",
        GAMES[args.game],
        "--total-frames",
        str(args.frames),
        "--seed",
        str(args.seed),
        "--run-dir",
        str(run_dir),
        *SETUPS[args.setup],
        *[f"--set={item}" for item in args.set],
    ]
    start = time.time()
    process = subprocess.run(command, capture_output=True, text=True)
    if process.returncode != 0:
        sys.exit(f"gorila train failed ({process.returncode}):\n{process.stdout[-2000:]}{process.stderr[-2000:]}")
    return time.time() - start


def measured_curve(records: list[dict]) -> list[tuple[int, float]]:
    """(frames, mean return of the last 100 training episodes) from each train record once 100 episodes
    have ended, as MinAtar's curves start."""
    return [
        (r["env_frames"], r["return_mean"])
        for r in records
        if r["kind"] == "train" and r.get("episodes_recent", 0) >= WINDOW
    ]


def compare(curve: list[tuple[int, float]], game: str) -> list[dict]:
    """Our return beside the published one at the frames where both exist (every 10,000 frames)."""
    frames = np.array([f for f, _ in curve])
    returns = np.array([r for _, r in curve])
    rows = []
    for at in range(10_000, int(frames.max()) + 1, 10_000) if len(frames) else []:
        ours = float(np.interp(at, frames, returns))
        theirs = published_dqn_return(game, at)
        rows.append({"frames": at, "gorila": round(ours, 2), "published_dqn": theirs and round(theirs, 2)})
    return rows


def plot(result: dict, published: np.ndarray, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frames, returns = zip(*result["curve"]) if result["curve"] else ((), ())
    figure, (near, whole) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [3, 2]})
    for axes, limit in ((near, result["frames"]), (whole, published[-1, 0])):
        shown = published[published[:, 0] <= limit * 1.02]
        axes.plot(shown[:, 0], shown[:, 1], "--", color="tab:blue", label="MinAtar paper: DQN (30 runs)")
        axes.plot(frames, returns, color="tab:red", label=f"gorila, {result['setup']}, seed {result['seed']}")
        axes.set_xlim(0, limit)
        axes.set_xlabel("training frames")
        axes.grid(alpha=0.3)
    greedy = result["greedy_evaluations"]
    near.plot(
        [e["frames"] for e in greedy],
        [e["greedy_mean"] for e in greedy],
        "o",
        color="tab:red",
        fillstyle="none",
        label="gorila, greedy evaluation (20 episodes)",
    )
    whole.ticklabel_format(axis="x", style="sci", scilimits=(6, 6))
    near.set_ylabel(f"mean return, last {WINDOW} training episodes")
    near.set_title(f"MinAtar {result['game']}: {result['frames']:,} frames in {result['minutes']:.1f} min on CPU")
    whole.set_title("the published curve over its 5M frames")
    near.legend(loc="upper left")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="breakout", choices=list(GAMES))
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--setup", default="local", choices=list(SETUPS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a preset field (repeatable)"
    )
    parser.add_argument("--out", default=str(HERE / "results"), help="folder of the JSON and PNG")
    args = parser.parse_args()
    published = published_dqn_curve(args.game)
    with tempfile.TemporaryDirectory() as folder:
        wall = train(args, Path(folder) / "run")
        records = read_metrics(Path(folder) / "run")
    curve = measured_curve(records)
    evals = [
        {"frames": r["env_frames"], "greedy_mean": r["eval_return_mean"], "episodes": r["eval_episodes"]}
        for r in records
        if r["kind"] == "eval"
    ]
    result = {
        "game": args.game,
        "env": GAMES[args.game],
        "setup": args.setup,
        "seed": args.seed,
        "frames": args.frames,
        "wall_s": round(wall, 1),
        "minutes": round(wall / 60, 2),
        "overrides": args.set,
        "curve": curve,
        "final_return_100": curve[-1][1] if curve else None,
        "greedy_evaluations": evals,
        "vs_published": compare(curve, args.game),
        "published_final": {"frames": int(published[-1, 0]), "return": float(published[-1, 1])},
    }
    stem = Path(args.out) / f"minatar-{args.game}-{args.setup}-seed{args.seed}"
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1))
    plot(result, published, stem.with_suffix(".png"))
    print(
        f"{args.game}, {args.setup}: {args.frames:,} frames in {wall / 60:.1f} min; last-100-episode return "
        f"{result['final_return_100']}; greedy {evals[-1]['greedy_mean'] if evals else None}"
    )
    for row in result["vs_published"]:
        print(f"  {row['frames']:>9,} frames: gorila {row['gorila']:6.2f}   published DQN {row['published_dqn']}")
    print(f"wrote {stem}.json and .png")


if __name__ == "__main__":
    main()
