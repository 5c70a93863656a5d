"""The published CartPole results (`published.py`): the time to a confirmed solve
(`benchmarks/time_to_solve.py`) and the runs under faults (`benchmarks/chaos.py`,
`benchmarks/node_losses.py`), one function per block, from their files under `benchmarks/results/`."""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path

from chaos import lost_cell
from published_files import indented, load

from gorila.records.markdown import table_lines

TIME_TO_SOLVE = "benchmarks/results/time-to-solve-2026-12-02.json"
SPEED_SETUPS = {  # time_to_solve.py's setups, as the table names them
    "local": "local runtime",
    "ray-1": "Ray, 1 bundle, shard beside it",
    "ray-2": "Ray, 2 bundles, shard in bundle 0",
    "ray-1-apart": "Ray, 1 bundle, shard apart (the paper's layout)",
}
CHAOS_6 = "benchmarks/results/chaos-6-kills-2026-12-05.json"
CHAOS_20 = "benchmarks/results/chaos-20-kills-2026-12-05.json"
CHAOS_20_GLOBAL = "benchmarks/results/chaos-20-kills-global-2026-12-05b.json"
NODE_LOSSES = "benchmarks/results/node-losses-2026-12-05.json"
# The runs under faults the pages show: (file, its setup, what was lost)
FAULT_RUNS = (
    (CHAOS_6, "bundled", "`kill -9`, 2 bundles"),
    (CHAOS_6, "global", "`kill -9`, global replay"),
    (NODE_LOSSES, "bundled, 3 nodes, node losses", "nodes, 2 bundles on 3 nodes"),
    (CHAOS_20_GLOBAL, "global", "`kill -9`, global replay"),
)
KILLED = {
    "Bundle": "bundle",
    "Evaluator": "evaluator",
    "Actor": "actor",
    "Learner": "learner",
    "ReplayMemory": "replay shard",
    "ParameterShard": "parameter shard",
}


def speed_medians(root: Path) -> dict[str, dict]:
    """Per setup of time_to_solve.py: the seeds' solve seconds in seed order, and the medians."""
    runs = load(root, TIME_TO_SOLVE)
    out = {}
    for setup in SPEED_SETUPS:
        mine = sorted((run for run in runs if run["setup"] == setup and run["ok"]), key=lambda run: run["seed"])
        out[setup] = {
            "seconds": [run["solve_s"] for run in mine],
            "seeds": [run["seed"] for run in mine],
            "median_s": statistics.median(run["solve_s"] for run in mine),
            "median_frames": statistics.median(run["solve_frames"] for run in mine),
            "median_fps": statistics.median(run["fps"] for run in mine),
        }
    return out


def cartpole(root: Path) -> str:
    """README: CartPole's time to a confirmed solve."""
    speed = speed_medians(root)
    seeds = speed["local"]["seeds"]
    return (
        f"- **CartPole** (the cartpole preset, seeds {seeds[0]}-{seeds[-1]}): a confirmed solve (greedy mean >= 475 "
        f"on fresh episodes) in a median of {speed['local']['median_s']:.0f} s from launch on the local runtime, "
        f"{speed['ray-1']['median_s']:.0f} s on Ray with one bundle (`{TIME_TO_SOLVE}`)."
    )


def cartpole_speed(root: Path) -> str:
    """docs/results.md: the time-to-solve table of the four setups."""
    speed = speed_medians(root)
    base = speed["ray-1"]["median_s"]
    rows = [
        (
            name,
            " / ".join(f"{s:.1f}" for s in speed[setup]["seconds"]),
            f"{speed[setup]['median_s']:.1f}",
            f"{speed[setup]['median_frames']:,.0f}",
            f"{speed[setup]['median_fps']:,.0f}",
            "" if setup == "local" else f"{speed[setup]['median_s'] / base:.2f}",
        )
        for setup, name in SPEED_SETUPS.items()
    ]
    seeds = speed["local"]["seeds"]
    head = [
        "setup",
        f"seeds {seeds[0]}-{seeds[-1]}",
        "median s",
        "median frames",
        "median frames/s",
        "vs Ray, 1 bundle",
    ]
    return "\n".join(table_lines(head, rows))


def fault_run(root: Path, path: str, setup: str) -> dict:
    (run,) = [run for run in load(root, path)["results"] if run["setup"] == setup]
    return run


def what_was_lost(chaotic: dict) -> str:
    """The components lost, by kind, most first: a node's are those that ran on it."""
    kinds = Counter()
    for kill in chaotic["kill_log"]:
        kinds.update(kill.get("components", [kill["kind"]]))
    return ", ".join(f"{KILLED[kind]} {count}" for kind, count in kinds.most_common())


def fault_rows(root: Path) -> list[str]:
    rows = []
    for path, setup, lost in FAULT_RUNS:
        run = fault_run(root, path, setup)
        chaotic, calm = run["chaos"], run["undisturbed"]
        rows.append(
            (
                f"{chaotic['kills']} {lost} ({what_was_lost(chaotic)})",
                str(chaotic["faults"]),
                "yes" if chaotic["solved"] else "no",
                f"{chaotic['solve_s']:.0f} s / {calm['solve_s']:.0f} s ({chaotic['solve_s'] / calm['solve_s']:.1f}x)",
                str(sum(chaotic["counters_back"].values())),
                lost_cell(chaotic["updates_lost_per_shard_death"]),
            )
        )
    head = [
        "what is lost",
        "faults recorded",
        "confirmed solve",
        "time to solve, faults / undisturbed",
        "counters gone back",
        "updates lost per shard death (median, max)",
    ]
    return table_lines(head, rows)


def fault_sources() -> str:
    return ", ".join(f"`{path}`" for path in dict.fromkeys(path for path, _, _ in FAULT_RUNS))


def faults(root: Path) -> str:
    """README: the runs under faults."""
    kills = [
        fault_run(root, path, setup)["chaos"] for path, setup in ((CHAOS_20, "bundled"), (CHAOS_20_GLOBAL, "global"))
    ]
    nodes = fault_run(root, NODE_LOSSES, "bundled, 3 nodes, node losses")["chaos"]
    lead = (
        f"- **Under faults**: runs survive `kill -9` of any component, {min(k['kills'] for k in kills)} times in a "
        f"row, on both topologies, and reach their solve{'' if all(k['solved'] for k in kills) else ' (not all)'}, "
        f"and a whole node lost, {nodes['kills']} times in a row, on a three-node cluster; a node lost with no room "
        "left runs the run smaller until a node joins; [failures](docs/guides/failures.md) says what each kind of "
        f"failure costs. CartPole, 2-core machine, seed 0 ({fault_sources()}):"
    )
    return "\n".join([lead, "", *indented(fault_rows(root))])


def faults_table(root: Path) -> str:
    """docs/results.md and the failures guide: the same runs under faults as the README's."""
    return "\n".join([*fault_rows(root), "", f"CartPole, 2-core machine, seed 0 ({fault_sources()})."])
