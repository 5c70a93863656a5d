"""Chaos: CartPole on an embedded Ray while a random component process is killed (kill -9) every 10-20 s.

Two topologies: 2 bundles with 2 parameter shards, and global replay (3 actors -> 2 replay shards -> 1
learner, 2 parameter shards). For each, an undisturbed run first, then the same run under chaos. A
victim is drawn from every component process of the run (parameter shards, replay shards, actors,
learners, bundles, the evaluator), found under the driver's pid. The chaos run trains on past its solve
(--no-stop-when-solved), so that every kill lands in a running system; after the last kill it runs
`--grace` seconds more and is then stopped with SIGINT (a clean stop, with a final checkpoint).

Each chaos run must reach a confirmed solve, record a fault for each kill, never let frames, updates
or wall time go back in metrics.jsonl, and keep collecting frames after its last kill.
Usage: python benchmarks/chaos.py [--kills 20] [--every 10 20] [--setups bundled global] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from processes import components

from gorila.records.metrics import read_metrics

SETUPS = {
    "bundled": ["--actors", "2", "--learners", "2", "--param-shards", "2"],
    "global": [
        "--no-bundled",
        "--replay",
        "global",
        "--replay-shards",
        "2",
        "--actors",
        "3",
        "--learners",
        "1",
        "--param-shards",
        "2",
    ],
}
SOLVED = 475.0
SHARDS = 2  # parameter shards in both setups


def train_command(setup: str, seed: int, run_dir: Path, chaos: bool) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "gorila",
        "train",
        "--preset",
        "cartpole",
        "--runtime",
        "ray",
        "--seed",
        str(seed),
        "--run-dir",
        str(run_dir),
        *SETUPS[setup],
    ]
    if chaos:  # train on past the solve; the benchmark stops the run itself
        command += ["--no-stop-when-solved", "--total-frames", "100000000", "--max-failures", "1000"]
    return command


def undisturbed(setup: str, seed: int, folder: Path) -> dict:
    run_dir = folder / f"{setup}-undisturbed"
    with open(folder / f"{setup}-undisturbed.out", "w") as log:
        process = subprocess.run(train_command(setup, seed, run_dir, chaos=False), stdout=log, stderr=subprocess.STDOUT)
    return undisturbed_summary(run_dir, process.returncode)


def undisturbed_summary(run_dir: Path, rc: int) -> dict:
    """An undisturbed run's exit code and confirmed solve."""
    summary = next((r for r in read_metrics(run_dir) if r["kind"] == "summary"), {})
    return {"rc": rc, "solve_s": summary.get("solved_at_seconds"), "solve_frames": summary.get("solved_at_frames")}


def chaos(setup: str, seed: int, folder: Path, kills: int, every: tuple[float, float], grace: float) -> dict:
    run_dir = folder / f"{setup}-chaos"
    log = open(folder / f"{setup}-chaos.out", "w")
    driver = subprocess.Popen(train_command(setup, seed, run_dir, chaos=True), stdout=log, stderr=subprocess.STDOUT)
    start, killed = time.time(), []
    while not (run_dir / "metrics.jsonl").is_file() and driver.poll() is None:
        time.sleep(0.5)
    while len(killed) < kills and driver.poll() is None:
        time.sleep(random.uniform(*every))
        victims = components(driver.pid)
        if not victims:
            continue
        pid = random.choice(sorted(victims))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue
        killed.append({"t": round(time.time() - start, 1), "kind": victims[pid], "pid": pid})
        print(
            f"  {setup}: kill {len(killed)}/{kills} at {killed[-1]['t']:.0f} s: {victims[pid]} (pid {pid})", flush=True
        )
    return after_the_last(driver, run_dir, killed, grace)


def after_the_last(driver: subprocess.Popen, run_dir: Path, events: list[dict], grace: float) -> dict:
    """Once the last kill (or node loss) of `events` is made: let the run go on for `grace` seconds, stop
    it with SIGINT (a clean stop, with a final checkpoint) and judge it."""
    frames_at_last_kill = last_frames(run_dir)
    time.sleep(grace)
    alive = driver.poll() is None
    if alive:
        driver.send_signal(signal.SIGINT)
    try:
        rc = driver.wait(timeout=300)
    except subprocess.TimeoutExpired:
        driver.kill()
        rc = "killed: no clean stop within 300 s"
    return {
        **judge(read_metrics(run_dir), events),
        "rc": rc,
        "alive_at_end": alive,
        "frames_at_last_kill": frames_at_last_kill,
        "frames_at_end": last_frames(run_dir),
    }


def last_frames(run_dir: Path) -> int:
    train = [r for r in read_metrics(run_dir) if r["kind"] == "train"]
    return train[-1]["env_frames"] if train else 0


def updates_lost(records: list[dict], shards: int) -> list[int]:
    """Per death of parameter shards (the shard faults recorded within a second of each other), the
    applied updates lost with it. Every update is applied by every shard, and a restored shard's counters
    go back with its state to the driver's last copy, so what the learners made and no shard holds,
    shards * (updates - dropped outliers) - ps_applied - ps_discarded, jumps across the death by the
    updates lost times the shards that died. Gradients a dying learner still had in flight count too (at
    most `max_inflight_pushes`)."""
    dropped, points = 0, []  # (wall time, unheld updates) of each train record the shards answered for
    for record in records:
        if record["kind"] == "train":
            dropped += record.get("dropped_outliers") or 0
            if "ps_applied" in record:
                unheld = shards * (record["updates"] - dropped) - record["ps_applied"] - record["ps_discarded"]
                points.append((record["wall_time"], unheld))
    deaths: list[list[float]] = []  # the fault times of each death
    for fault in (r for r in records if r["kind"] == "fault" and r["component"].startswith("parameter shard")):
        if deaths and fault["wall_time"] - deaths[-1][-1] <= 1.0:
            deaths[-1].append(fault["wall_time"])
        else:
            deaths.append([fault["wall_time"]])
    lost = []
    for times in deaths:
        before = [unheld for t, unheld in points if t < times[0]]
        after = [unheld for t, unheld in points if t > times[-1]]
        if before and after:
            lost.append(max(0, after[0] - before[-1]) // len(times))
    return lost


def judge(records: list[dict], killed: list[dict]) -> dict:
    """What the metrics say about a chaos run: faults, the first confirmed solve, counters going back."""
    faults = [r for r in records if r["kind"] == "fault"]
    solves = [r for r in records if r["kind"] == "eval" and r.get("confirmation") and r["eval_return_mean"] >= SOLVED]
    train = [r for r in records if r["kind"] == "train"]
    back = {
        key: sum(b < a for a, b in zip(series, series[1:]))
        for key, series in {
            "env_frames": [r["env_frames"] for r in train],
            "updates": [r["updates"] for r in train],
            "wall_time": [r["wall_time"] for r in records],
        }.items()
    }
    first = solves[0] if solves else None
    return {
        "kills": len(killed),
        "kills_by_kind": dict(Counter(k["kind"] for k in killed)),
        "kill_log": killed,
        "faults": len(faults),
        "fault_reasons": [f"{r['wall_time']:.0f} s: {r['reason']}" for r in faults],
        "solved": first is not None,
        "solve_s": first["wall_time"] if first else None,
        "solve_frames": first["env_frames"] if first else None,
        "kills_before_solve": sum(k["t"] <= first["wall_time"] for k in killed) if first else None,
        "counters_back": back,
        "updates_lost_per_shard_death": updates_lost(records, SHARDS),
    }


def verdict(result: dict) -> bool:
    chaotic = result["chaos"]
    return (
        chaotic["solved"]
        and chaotic["faults"] >= chaotic["kills"]
        and not any(chaotic["counters_back"].values())
        and chaotic["frames_at_end"] > chaotic["frames_at_last_kill"]
        and chaotic["rc"] == (130 if chaotic["alive_at_end"] else 0)
    )  # 130: stopped by our SIGINT, cleanly


def table(results: list[dict]) -> list[str]:
    lines = [
        "| topology | kills (by kind) | faults recorded | confirmed solve | time to solve, chaos / undisturbed "
        "| frames after last kill | counters back | updates lost per shard death (median, max) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        chaotic, calm = result["chaos"], result["undisturbed"]
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(chaotic["kills_by_kind"].items()))
        times = (
            f"{chaotic['solve_s']:.0f} s / {calm['solve_s']:.0f} s ({chaotic['solve_s'] / calm['solve_s']:.1f}x)"
            if chaotic["solve_s"] and calm["solve_s"]
            else f"{chaotic['solve_s']} / {calm['solve_s']}"
        )
        solved = f"yes, after {chaotic['kills_before_solve']} kills" if chaotic["solved"] else "no"
        lines.append(
            f"| {result['setup']} | {chaotic['kills']} ({kinds}) | {chaotic['faults']} | {solved} | {times} | "
            f"{chaotic['frames_at_end'] - chaotic['frames_at_last_kill']:,} | "
            f"{sum(chaotic['counters_back'].values())} | {lost_cell(chaotic.get('updates_lost_per_shard_death'))} |"
        )
    return lines


def lost_cell(lost: list[int] | None) -> str:
    """The table's cell of updates lost per shard death: median and max over the deaths, and how many."""
    if not lost:
        return "no shard death"
    return f"{sorted(lost)[len(lost) // 2]:,}, {max(lost):,} ({len(lost)} deaths)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--every", type=float, nargs=2, default=[10.0, 20.0], metavar=("MIN_S", "MAX_S"))
    parser.add_argument("--grace", type=float, default=60.0, help="seconds the run goes on after its last kill")
    parser.add_argument("--setups", nargs="+", default=list(SETUPS), choices=list(SETUPS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=f"benchmarks/results/chaos-{datetime.date.today()}.json")
    args = parser.parse_args()
    random.seed(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="gorila-chaos-"))
    results = []
    for setup in args.setups:
        calm = undisturbed(setup, args.seed, folder)
        print(f"{setup}: undisturbed solve at {calm['solve_s']} s", flush=True)
        result = {
            "setup": setup,
            "seed": args.seed,
            "undisturbed": calm,
            "chaos": chaos(setup, args.seed, folder, args.kills, tuple(args.every), args.grace),
        }
        result["ok"] = verdict(result)
        results.append(result)
        Path(args.out).write_text(
            json.dumps({"kills": args.kills, "every_s": args.every, "results": results}, indent=1)
        )
    print("\n".join(table(results)))
    print(f"wrote {args.out}; run directories in {folder}")
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
