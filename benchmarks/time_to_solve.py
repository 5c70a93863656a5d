"""Wall time from launch to a solved CartPole-v1, side by side.

Runs the cartpole preset on the local runtime and with 1, 2 and 4 bundles on an embedded Ray, the same
seeds for each, one run at a time, and prints the median time to solve and the ratio to 1 Ray bundle.
Solved means what `gorila train` means: a greedy evaluation mean >= 475, confirmed by a second
evaluation of the same parameters on fresh episodes. The time of the first passing evaluation,
confirmed or not, is reported beside it ("first pass").
Usage: python benchmarks/time_to_solve.py [--seeds 0 1 2 3 4] [--setups local ray-1 ray-2 ray-4] [--set KEY=VALUE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gorila.records.metrics import read_metrics

SETUPS = {
    "local": ["--runtime", "local"],
    "ray-1": ["--runtime", "ray", "--actors", "1", "--learners", "1", "--param-shards", "1"],
    "ray-2": ["--runtime", "ray", "--actors", "2", "--learners", "2", "--param-shards", "1"],
    "ray-4": ["--runtime", "ray", "--actors", "4", "--learners", "4", "--param-shards", "1"],
}
# The Ray setups with each shard in a process of its own instead of beside a learner (the default);
# each setup again with the learner waiting for the theta+ that includes its own last gradient, and
# with proportional prioritised replay instead of uniform.
SETUPS.update(
    {
        f"{name}-apart": [*flags, "--shard-placement", "apart"]
        for name, flags in list(SETUPS.items())
        if name.startswith("ray")
    }
)
SETUPS.update({f"{name}-sync": [*flags, "--learner-refresh", "synchronous"] for name, flags in list(SETUPS.items())})
SETUPS.update(
    {
        f"{name}-prioritised": [*flags, "--prioritised"]
        for name, flags in list(SETUPS.items())
        if not name.endswith(("-sync", "-apart"))
    }
)


def gorila_command() -> list[str]:
    return [sys.executable, "-m", "gorila"]


def time_to_solve(setup: str, seed: int, folder: Path, overrides: list[str] = ()) -> dict:
    run_dir = folder / f"{setup}-seed{seed}"
    start = time.time()
    process = subprocess.run(
        gorila_command()
        + [
            "train",
            "--preset",
            "cartpole",
            "--seed",
            str(seed),
            "--run-dir",
            str(run_dir),
            *SETUPS[setup],
            *[f"--set={item}" for item in overrides],
        ],
        capture_output=True,
        text=True,
    )
    wall = time.time() - start
    records = read_metrics(run_dir) if (run_dir / "metrics.jsonl").is_file() else []
    first = next((r for r in records if r["kind"] == "eval" and r["eval_return_mean"] >= 475), None)
    summary = next((r for r in records if r["kind"] == "summary"), {})
    train = [r for r in records if r["kind"] == "train"]
    return {
        "setup": setup,
        "seed": seed,
        "ok": process.returncode == 0,
        "process_s": wall,
        "solve_s": summary.get("solved_at_seconds"),
        "solve_frames": summary.get("solved_at_frames"),
        "first_pass_s": first["wall_time"] if first else None,
        "fps": statistics.median(r["fps"] for r in train) if train else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--setups", nargs="+", default=list(SETUPS), choices=list(SETUPS))
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a preset field in every run (repeatable)",
    )
    parser.add_argument("--json", help="also write all runs as JSON")
    args = parser.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in args.seeds:  # seeds outermost: setups are interleaved in time
            for setup in args.setups:
                runs.append(time_to_solve(setup, seed, Path(folder), args.set))
                print(json.dumps(runs[-1]), flush=True)
    median = {}
    print(
        f"\n{'setup':8} {'solved':>7} {'median s':>9} {'first pass s':>13} {'median frames':>14} "
        f"{'median fps':>11} {'vs ray-1':>9}"
    )
    inf = float("inf")
    for setup in args.setups:
        mine = [r for r in runs if r["setup"] == setup]
        times = [r["solve_s"] if r["solve_s"] is not None else inf for r in mine]
        first = statistics.median(r["first_pass_s"] if r["first_pass_s"] is not None else inf for r in mine)
        frames = [r["solve_frames"] or 0 for r in mine]
        median[setup] = statistics.median(times)
        fps = statistics.median(r["fps"] or 0 for r in mine)
        ratio = (
            median[setup] / median["ray-1"] if "ray-1" in median and median["ray-1"] < float("inf") else float("nan")
        )
        print(
            f"{setup:8} {sum(t < inf for t in times)}/{len(mine):<5} {median[setup]:9.1f} {first:13.1f} "
            f"{statistics.median(frames):14,.0f} {fps:11,.0f} {ratio:9.2f}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=2))


if __name__ == "__main__":
    main()
