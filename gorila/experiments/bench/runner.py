"""`run_bench`: measure the chosen sections of `gorila bench`, one after the other, and report each."""

from __future__ import annotations

import json
import time
from pathlib import Path

from gorila.experiments.bench import SECTIONS
from gorila.experiments.bench.stages import bench_actor, bench_learner, bench_replay, bench_server, bench_shared_device
from gorila.experiments.bench.system import bench_end_to_end, bench_memory, bench_scaling


def run_bench(sections=SECTIONS, seconds: float = 10.0, device: str = "cpu", report=print) -> dict:
    """Measure the chosen sections; `report` gets one line per figure as it is measured."""
    results: dict = {}
    jobs = {
        "actor": lambda: bench_actor(seconds),
        "learner": lambda: bench_learner(seconds, device),
        "server": lambda: bench_server(seconds),
        "replay": lambda: bench_replay(seconds),
        "end_to_end": lambda: bench_end_to_end(2 * seconds),
        "memory": lambda: bench_memory(2 * seconds),
        "scaling": lambda: bench_scaling(seconds),
        "shared_device": lambda: bench_shared_device(seconds, device),
    }
    for name in sections:
        began = time.perf_counter()
        results[name] = jobs[name]()
        report(f"{name:10} {describe(results[name])}  ({time.perf_counter() - began:.0f} s)")
    return results


def describe(values: dict) -> str:
    parts = []
    for key, value in values.items():
        if isinstance(value, dict):
            parts.append(f"{key}: [{describe(value)}]")
        elif isinstance(value, float):
            parts.append(f"{key} {value:,.3g}" if abs(value) < 100 else f"{key} {value:,.0f}")
        else:
            parts.append(f"{key} {value}")
    return ", ".join(parts)


def write_json(results: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(results, indent=2) + "\n")
