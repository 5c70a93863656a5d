"""Node losses: CartPole on a Ray cluster of three nodes (raylets on this machine, `ray.cluster_utils`)
while a node that runs a component of the run is removed every 20-30 s, every process on it at once
(a machine crashed or preempted), and a fresh node joins in its place a few seconds later (its
replacement). The run joins the cluster by address: 2 bundles of one CPU each on three one-CPU nodes,
2 parameter shards and the evaluator apart on none, so that a lost bundle finds room on the node left
free and the shards are placed again at once.

An undisturbed run on a fresh cluster first, then the run under node losses, judged as chaos.py judges
its kills: a confirmed solve, a fault for each component lost (at least one per loss), no counter
going back, frames collected after the last loss, a clean stop by SIGINT.
Usage: python benchmarks/node_losses.py [--losses 6] [--every 20 30] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from chaos import after_the_last, table, train_command, undisturbed_summary, verdict
from processes import COMPONENT_KINDS, children, title

ON_THE_CLUSTER = ["--set", "worker_cpus=1", "--set", "server_cpus=0", "--set", "shard_placement=apart"]


@contextmanager
def cluster_of_three():
    from ray.cluster_utils import Cluster

    from gorila.runtime.ray.cluster import cluster_head_args

    cluster = Cluster(
        initialize_head=True,
        head_node_args=cluster_head_args(),
    )
    for _ in range(2):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        yield cluster
    finally:
        cluster.shutdown()


def components_on(node) -> list[str]:
    """The kinds of the component processes under a node's raylet (`ray::Bundle`, ...)."""
    raylet = node.all_processes["raylet"][0].process.pid
    kinds = [(title(pid) or "").removeprefix("ray::").split(".")[0] for pid in children(raylet)]
    return sorted(kind for kind in kinds if kind in COMPONENT_KINDS)


def command(seed: int, run_dir: Path, address: str, chaos: bool) -> list[str]:
    return [*train_command("bundled", seed, run_dir, chaos), "--address", address, *ON_THE_CLUSTER]


def calm_run(seed: int, folder: Path) -> dict:
    with cluster_of_three() as cluster, open(folder / "undisturbed.out", "w") as log:
        run_dir = folder / "undisturbed"
        process = subprocess.run(command(seed, run_dir, cluster.address, False), stdout=log, stderr=subprocess.STDOUT)
        return undisturbed_summary(run_dir, process.returncode)


def lossy_run(seed: int, folder: Path, losses: int, every: tuple[float, float], grace: float) -> dict:
    run_dir = folder / "node-losses"
    with cluster_of_three() as cluster, open(folder / "node-losses.out", "w") as log:
        driver = subprocess.Popen(command(seed, run_dir, cluster.address, True), stdout=log, stderr=subprocess.STDOUT)
        start, lost = time.time(), []
        while not (run_dir / "metrics.jsonl").is_file() and driver.poll() is None:
            time.sleep(0.5)
        while len(lost) < losses and driver.poll() is None:
            time.sleep(random.uniform(*every))
            running = [(node, components_on(node)) for node in cluster.worker_nodes]
            running = [(node, kinds) for node, kinds in running if kinds]
            if not running:
                continue
            node, kinds = random.choice(running)
            cluster.remove_node(node, allow_graceful=False)
            lost.append({"t": round(time.time() - start, 1), "kind": "node", "components": kinds})
            print(f"  node loss {len(lost)}/{losses} at {lost[-1]['t']:.0f} s: {', '.join(kinds)}", flush=True)
            time.sleep(5)
            cluster.add_node(num_cpus=1)  # its replacement
        return after_the_last(driver, run_dir, lost, grace)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--losses", type=int, default=6)
    parser.add_argument("--every", type=float, nargs=2, default=[20.0, 30.0], metavar=("MIN_S", "MAX_S"))
    parser.add_argument("--grace", type=float, default=60.0, help="seconds the run goes on after its last loss")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=f"benchmarks/results/node-losses-{datetime.date.today()}.json")
    args = parser.parse_args()
    random.seed(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="gorila-node-losses-"))
    calm = calm_run(args.seed, folder)
    print(f"undisturbed solve at {calm['solve_s']} s", flush=True)
    result = {"setup": "bundled, 3 nodes, node losses", "seed": args.seed, "undisturbed": calm}
    result["chaos"] = lossy_run(args.seed, folder, args.losses, tuple(args.every), args.grace)
    result["ok"] = verdict(result)
    Path(args.out).write_text(json.dumps({"losses": args.losses, "every_s": args.every, "results": [result]}, indent=1))
    print("\n".join(table([result])))
    print(f"wrote {args.out}; run directories in {folder}")
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
