"""Pong with the atari preset, for a machine with a GPU: does the training return follow DQN's curve?

Runs `gorila train --preset atari --env Pong` (DQN's settings, Gorila's parameter server) with B bundles on
an embedded Ray, learners on the GPU, for a frame budget (default 10M frames, 2.5M agent steps), then
prints the mean training return of the last 100 episodes at every million frames beside the expected
curve, Dopamine's DQN on Pong (benchmarks/reference/dopamine_dqn_pong.tsv: mean, min and max of its 5
runs), and checks two things:
- learned: the last-100-episode return at the end is above -15 (random play scores -20.7);
- on the curve: at 10M frames or more, that return is at least the lowest of Dopamine's 5 runs there
  (a run under DQN's protocol, without sticky actions, should do no worse).
Exit status 0 when both hold (only the first below 10M frames). Writes results/pong-<frames>.json.
Without a GPU it runs the same way on the CPU, e.g. a smoke run: python benchmarks/pong.py --frames 20000
Usage: python benchmarks/pong.py [--frames 10000000] [--bundles 4] [--set KEY=VALUE]
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

from gorila.records.metrics import read_metrics

HERE = Path(__file__).resolve().parent
RANDOM_PONG = -20.7  # random play (reference/atari_scores.tsv)
LEARNED = -15.0
WINDOW = 100


def expected_curve() -> np.ndarray:
    """[frames, mean, min, max] rows of Dopamine's DQN on Pong."""
    return np.loadtxt(HERE / "reference" / "dopamine_dqn_pong.tsv", comments="#", delimiter="\t", ndmin=2)


def train(args, run_dir: Path) -> float:
    """One `gorila train` run; its wall time. Short budgets evaluate one short episode at the end
    instead of 30 full ones (the preset's), which would take longer than the training."""
    evaluation = ["--set=eval_every_frames=0"]
    if args.frames < 1_000_000:
        evaluation += ["--set=eval_episodes=1", "--set=eval_max_frames=2000"]
    command = [
        sys.executable,
        "-m",
        "gorila",
        "train",
        "--preset",
        "atari",
        "--env",
        "Pong",
        "--total-frames",
        str(args.frames),
        "--actors",
        str(args.bundles),
        "--learners",
        str(args.bundles),
        "--run-dir",
        str(run_dir),
        *evaluation,
        *[f"--set={item}" for item in args.set],
    ]
    start = time.time()
    process = subprocess.run(command, capture_output=True, text=True)
    if process.returncode != 0:
        sys.exit(f"gorila train failed ({process.returncode}):\n{process.stdout[-2000:]}{process.stderr[-2000:]}")
    return time.time() - start


def curve_at_millions(records: list[dict], frames: int) -> list[tuple[int, float]]:
    """(frames, last-100-episode training return) at each million frames reached (and at the end)."""
    train = [
        (r["env_frames"], r["return_mean"])
        for r in records
        if r["kind"] == "train" and r.get("return_mean") is not None
    ]
    marks = list(range(1_000_000, frames + 1, 1_000_000)) or [frames]
    return [next(((f, v) for f, v in train if f >= mark), train[-1]) for mark in marks if train]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10_000_000)
    parser.add_argument("--bundles", type=int, default=4)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--out", default=str(HERE / "results"))
    args = parser.parse_args()
    expected = expected_curve()
    with tempfile.TemporaryDirectory() as folder:
        wall = train(args, Path(folder) / "run")
        records = read_metrics(Path(folder) / "run")
    curve = curve_at_millions(records, args.frames)
    final = curve[-1][1] if curve else None
    print(
        f"Pong, {args.bundles} bundle{'s' if args.bundles > 1 else ''}: {args.frames:,} frames in {wall / 60:.1f} min"
    )
    print(f"{'frames':>12} {'gorila':>8} {'Dopamine DQN mean [min, max]':>30}")
    for frames, value in curve:
        row = expected[np.argmin(abs(expected[:, 0] - frames))]
        near = f"{row[1]:.1f} [{row[2]:.1f}, {row[3]:.1f}]" if abs(row[0] - frames) <= 500_000 else "-"
        print(f"{frames:>12,} {value:8.1f} {near:>30}")
    learned = final is not None and final > LEARNED
    on_curve = None
    if args.frames >= 10_000_000 and final is not None:
        floor = float(np.interp(args.frames, expected[:, 0], expected[:, 2]))
        on_curve = final >= floor
        print(f"on the curve: {final:.1f} >= Dopamine's lowest run {floor:.1f}: {'yes' if on_curve else 'NO'}")
    print(
        f"learned: last-{WINDOW}-episode return {final} > {LEARNED} (random {RANDOM_PONG}): {'yes' if learned else 'NO'}"
    )
    Path(args.out).mkdir(parents=True, exist_ok=True)
    result = {
        "frames": args.frames,
        "bundles": args.bundles,
        "wall_s": round(wall, 1),
        "curve": curve,
        "final_return_100": final,
        "learned": learned,
        "on_curve": on_curve,
        "overrides": args.set,
    }
    (Path(args.out) / f"pong-{args.frames}.json").write_text(json.dumps(result, indent=1))
    sys.exit(0 if learned and on_curve is not False else 1)


if __name__ == "__main__":
    main()
