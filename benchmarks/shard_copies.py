"""What the driver's copies of the parameter shards cost: updates/s on Ray with the shards copied every
second (the default, so that a killed shard loses at most a second of updates) against every 10 s (the
old interval), side by side, alternated `--rounds` times.

Two cases: CartPole (the cartpole preset, 2 bundles, 2 shards: small shards, many updates) and Pong
(atari-fast, one bundle, its shard beside the learner: 1.7M parameters, a 27 MB state per copy).
Each run trains a fixed budget without evaluations; updates/s is taken over the run's train records
after learning started (updates over wall time between the first and the last record that has updates).

Usage: python benchmarks/shard_copies.py [--rounds 2] [--out benchmarks/results/shard-copies-DATE.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from gorila.records.metrics import read_metrics

CASES = {
    "cartpole-2-bundles": [
        "--preset", "cartpole", "--actors", "2", "--learners", "2", "--param-shards", "2",
        "--total-frames", "60000", "--no-stop-when-solved",
    ],
    "pong-1-bundle": [
        "--preset", "atari-fast", "--env", "Pong", "--total-frames", "120000", "--set", "learning_starts=5000",
    ],
}  # fmt: skip
INTERVALS = (1.0, 10.0)


def updates_per_second(run_dir: Path) -> float:
    """Updates over wall time between the first and the last train record that count updates."""
    train = [r for r in read_metrics(run_dir) if r["kind"] == "train" and r.get("updates")]
    first, last = train[0], train[-1]
    return (last["updates"] - first["updates"]) / max(last["wall_time"] - first["wall_time"], 1e-9)


def run(case: str, interval: float, folder: Path) -> float:
    run_dir = folder / f"{case}-{interval:g}s"
    command = [sys.executable, "-m", "gorila", "train", *CASES[case], "--runtime", "ray", "--eval-every-frames", "0"]
    command += ["--set", f"shard_copy_every_seconds={interval}", "--run-dir", str(run_dir)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return updates_per_second(run_dir)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--out", default=f"benchmarks/results/shard-copies-{datetime.date.today()}.json")
    args = parser.parse_args()
    rates: dict = {case: {f"{i:g}s": [] for i in INTERVALS} for case in args.cases}
    for case in args.cases:
        for round_ in range(args.rounds):
            for interval in INTERVALS if round_ % 2 == 0 else INTERVALS[::-1]:
                with tempfile.TemporaryDirectory() as folder:
                    rate = run(case, interval, Path(folder))
                rates[case][f"{interval:g}s"].append(rate)
                print(f"{case}, copies every {interval:g} s: {rate:.1f} updates/s", flush=True)
    for case, by in rates.items():
        mean = {key: sum(values) / len(values) for key, values in by.items()}
        print(f"{case}: every 1 s / every 10 s = {mean['1s'] / mean['10s']:.3f} of the updates/s")
    Path(args.out).write_text(json.dumps({"rates": rates, "rounds": args.rounds}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
