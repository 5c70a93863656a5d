"""Does a solve hold? CartPole past its first solve, evaluated every 5,120 frames with no stop.

Trains the cartpole preset (local runtime, deterministic per seed) for `--frames` frames with the stop
rule off, then counts the greedy evaluations from the first one at 500 onwards that stayed >= 475.
"Held" is that count out of the evaluations after the first 500; the lowest of them is printed beside it.
Usage: python benchmarks/stability.py [--seeds 0 1] [--frames 120000] [--set KEY=VALUE ...] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gorila.records.metrics import read_metrics

EVAL_EVERY = 5_120


def held(evaluations: list[float], threshold: float = 475.0) -> dict:
    """From the first perfect (500) evaluation on: how many stayed >= threshold, and the lowest."""
    first = next((i for i, value in enumerate(evaluations) if value >= 500.0), None)
    if first is None:
        return {"first_500_eval": None, "held": 0, "after": 0, "lowest": None}
    after = evaluations[first:]
    return {
        "first_500_eval": first,
        "held": sum(v >= threshold for v in after),
        "after": len(after),
        "lowest": min(after),
    }


def run(seed: int, frames: int, overrides: list[str], folder: Path) -> dict:
    run_dir = folder / f"seed{seed}"
    start = time.time()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "gorila",
            "train",
            "--preset",
            "cartpole",
            "--runtime",
            "local",
            "--seed",
            str(seed),
            "--run-dir",
            str(run_dir),
            "--total-frames",
            str(frames),
            "--stop-at-return",
            "100000",
            "--eval-every-frames",
            str(EVAL_EVERY),
            *[f"--set={item}" for item in overrides],
        ],
        check=True,
        capture_output=True,
    )
    evaluations = [r["eval_return_mean"] for r in read_metrics(run_dir) if r["kind"] == "eval"]
    return {
        "seed": seed,
        "overrides": overrides,
        "wall_s": round(time.time() - start, 1),
        "evaluations": evaluations,
        **held(evaluations),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--frames", type=int, default=120_000)
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a preset field (repeatable)"
    )
    parser.add_argument("--json", help="also write the runs as JSON")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in args.seeds:
            runs.append(run(seed, args.frames, args.set, Path(folder)))
            r = runs[-1]
            print(
                f"seed {seed}: held {r['held']}/{r['after']}, lowest {r['lowest']}, {r['wall_s']} s "
                f"({' '.join(args.set) or 'the preset'})",
                flush=True,
            )
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
