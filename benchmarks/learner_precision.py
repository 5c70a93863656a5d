"""What one learner update costs in float32 and in bfloat16 (`learner_precision`), on this CPU.

Each setup is Gorila's own learner (`gorila.system.builders.make_learner`) with its one parameter shard
in this process and a replay of random Atari transitions: an update samples its minibatch, runs the
target's and the online network's forward passes (under torch.autocast in bfloat16), the backward pass,
and pushes the gradient to the shard, which applies it. The setups take turns one update at a time
(after a warm-up), so that a load coming and going on the machine falls on all alike; each reports the
median of its timed updates, and each preset the ratio float32 / bfloat16 (how many times faster
bfloat16 is). On a CPU without bfloat16 instructions (AVX-512 BF16, AMX) expect no gain.

Presets, on Pong's shapes: atari-fast (DQN, batch 64, the Nature CNN), the same with the Impala
network, and rainbow-dopamine (C51, batch 32).

Usage: python benchmarks/learner_precision.py [--repeats 30] [--warmup 5] [--threads 2] [--json FILE]
       [--note TEXT]
"""

from __future__ import annotations

import argparse
import datetime
import json
import shlex
import sys
from functools import partial
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from atari_baseline import head_commit, machine  # noqa: E402
from network_costs import take_turns, timings  # noqa: E402

from gorila.config import build_config  # noqa: E402
from gorila.envs import make_vector_env_for  # noqa: E402
from gorila.experiments.bench.common import filled_replay, single_shard  # noqa: E402
from gorila.messages import env_info  # noqa: E402
from gorila.runtime.calls import DirectCalls  # noqa: E402
from gorila.system.builders import make_learner  # noqa: E402
from gorila.system.planning import plan_run  # noqa: E402

SETUPS = {  # name: (preset, overrides)
    "atari-fast": ("atari-fast", {}),
    "atari-fast impala_cnn": ("atari-fast", {"network": "impala_cnn"}),
    "rainbow-dopamine": ("rainbow-dopamine", {}),
}
PRECISIONS = ("float32", "bfloat16")
SIZED = dict(env="Pong", runtime="local", replay_capacity=20_000, learning_starts=1_000, total_frames=10**9)


def learner(preset: str, overrides: dict, precision: str, threads: int):
    """A learner of `preset` in `precision`, with a filled replay and its shard beside it."""
    config = build_config(preset, overrides={**SIZED, **overrides, "learner_precision": precision})
    with make_vector_env_for(config, 1, 0) as probe:
        info = env_info(probe)
    shards, bounds = single_shard(config, info)
    built = make_learner(config, plan_run(config, info), 0, shards, bounds, DirectCalls(), filled_replay(config, info))
    torch.set_num_threads(threads)  # the builder sets the preset's threads; every setup gets the same
    return built


def measure(repeats: int, warmup: int, threads: int) -> dict[str, list[float]]:
    """The seconds of each setup's timed updates, the setups taking turns."""
    learners = {
        f"{name} {precision}": learner(preset, overrides, precision, threads)
        for name, (preset, overrides) in SETUPS.items()
        for precision in PRECISIONS
    }
    return take_turns({name: partial(update, name, each) for name, each in learners.items()}, repeats, warmup)


def update(name: str, each) -> None:
    if each.update() != 1:
        raise RuntimeError(f"{name}: the replay gave no minibatch")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    times = measure(args.repeats, args.warmup, args.threads)
    medians, shown = timings(times)
    result = {
        "command": "python " + shlex.join(["benchmarks/learner_precision.py", *sys.argv[1:]]),
        "commit": head_commit(),
        "machine": machine(),
        "date": datetime.date.today().isoformat(),
        "torch": torch.__version__,
        "threads": args.threads,
        "timed_updates": args.repeats,
        "note": args.note,
        **shown,
        "float32_over_bfloat16": {
            name: round(medians[f"{name} float32"] / medians[f"{name} bfloat16"], 2) for name in SETUPS
        },
    }
    print(json.dumps(result, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
