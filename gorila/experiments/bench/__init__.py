"""`gorila bench`: each stage of Gorila against its own limit, side by side in one run.

Every figure is a ratio of two rates measured here, one after the other, on the same cores: what the
stage achieves inside Gorila over what the bare operation achieves alone. Absolute rates are printed
too, but only the ratios compare across machines.

- actor:      Atari agent steps/s of one actor at its final epsilon (Nature CNN epsilon-greedy inference
              and replay insert included) / bare ALE stepping with the same preprocessing and random
              actions;
- learner:    updates/s of the full learner step (sample, loss, gradient, push, pull) / a bare PyTorch
              train step on the same network and batch; on the local runtime and on Ray;
- server:     push+pull round trip and applied gradients/s for the Nature CNN with 1, 2, 4, 8 shards
              on Ray / an in-memory copy of the same bytes;
- replay:     bytes per stored Atari transition, insert and sample rates, uniform and prioritised
              (and the prioritised memory's priority updates);
- end_to_end: Atari agent steps/s and updates/s of 1 and 2 bundles on Ray at DQN's ratio (one torch
              thread each), and 1 bundle with as many torch threads as the plain single-process DQN
              (all cores) / that DQN at the same ratio, batch and network;
- memory:     resident memory of a bundle once its replay is full, at the start and end of a window;
- scaling:    (not by default) aggregate Atari frames/s of 1, 2, 4, 8, 16 actors on an embedded Ray;
- shared_device: (not by default) aggregate updates/s of 1 and 4 learners on Ray sharing the device,
              each beside its parameter shard / one bare PyTorch step there (benchmarks/device.sh).

The stage sections are in `stages`, the whole-system ones in `system`, what they share in `common`.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from gorila.experiments.bench.stages import bench_actor, bench_learner, bench_replay, bench_server, bench_shared_device
from gorila.experiments.bench.system import bench_end_to_end, bench_memory, bench_scaling

SECTIONS = ("actor", "learner", "server", "replay", "end_to_end", "memory")
EXTRA_SECTIONS = ("scaling", "shared_device")  # for machines with a GPU and many cores (benchmarks/device.sh)


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
