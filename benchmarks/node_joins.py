"""A node joins: CartPole on a Ray cluster of one one-CPU node (a raylet on this machine,
`ray.cluster_utils`), one bundle, allowed to grow to two (`--set max_bundles=2`); a second one-CPU
node joins mid-run. Reports the run's frames/s before the join and after the second bundle has
taken work, side by side in one run, and the lines the run said.

Usage: python benchmarks/node_joins.py [--before 45] [--after 45] [--out FILE.json]
Measure on an otherwise idle machine: the second bundle needs the second core.
"""

from __future__ import annotations

import argparse
import datetime
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gorila.records.metrics import read_metrics

SETTLE_S = 15.0  # after the join: the new bundle starts, builds its environment and fills its replay


def rate(train: list[dict], start: float, stop: float) -> float:
    """Frames per second between wall times `start` and `stop` (the train records nearest inside)."""
    inside = [r for r in train if start <= r["wall_time"] <= stop]
    if len(inside) < 2:
        return float("nan")
    first, last = inside[0], inside[-1]
    return (last["env_frames"] - first["env_frames"]) / (last["wall_time"] - first["wall_time"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=float, default=45.0, help="seconds of training before the node joins")
    parser.add_argument("--after", type=float, default=45.0, help="seconds of training after it has settled")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=f"benchmarks/results/node-joins-{datetime.date.today()}.json")
    args = parser.parse_args()
    from ray.cluster_utils import Cluster

    from gorila.runtime.ray.cluster import cluster_head_args

    folder = Path(tempfile.mkdtemp(prefix="gorila-node-joins-"))
    run_dir = folder / "run"
    cluster = Cluster(
        initialize_head=True,
        head_node_args=cluster_head_args(),
    )
    try:
        flags = f"--preset cartpole --address {cluster.address} --seed {args.seed} --actors 1 --learners 1 "
        flags += "--set max_bundles=2 --no-stop-when-solved --total-frames 100000000"
        command = [sys.executable, "-m", "gorila", "train", *flags.split(), "--run-dir", str(run_dir)]
        with open(folder / "run.out", "w") as log:
            driver = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
            while not (run_dir / "metrics.jsonl").is_file() and driver.poll() is None:
                time.sleep(0.5)
            time.sleep(args.before)
            joined_at = max(r["wall_time"] for r in read_metrics(run_dir) if "wall_time" in r)
            cluster.add_node(num_cpus=1)
            time.sleep(SETTLE_S + args.after)
            driver.send_signal(signal.SIGINT)
            rc = driver.wait(timeout=300)
    finally:
        cluster.shutdown()
    train = [r for r in read_metrics(run_dir) if r["kind"] == "train"]
    before = rate(train, joined_at - args.before + 10, joined_at)
    after = rate(train, joined_at + SETTLE_S, joined_at + SETTLE_S + args.after)
    said = [line.strip() for line in (folder / "run.out").read_text().splitlines() if "joins on room" in line]
    result = {
        "rc": rc,
        "joined_at_s": joined_at,
        "frames_per_s_before": before,
        "frames_per_s_after": after,
        "ratio": after / before,
        "said": said,
        "seed": args.seed,
        "command": " ".join(command[1:]),
    }
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(
        f"frames/s with 1 bundle: {before:,.0f}; after a node joined and bundle 1 took work: {after:,.0f} "
        f"({after / before:.2f}x); {said[0] if said else 'no bundle joined'}"
    )
    print(f"wrote {args.out}; run directory {run_dir}")
    return 0 if said and rc in (0, 130) else 1


if __name__ == "__main__":
    sys.exit(main())
