"""What the parameter server absorbs: gradients per second through 1, 2 and 4 shards, for the Nature CNN
(Atari) and the MinAtar network, against what one bundle sends.

Two figures per network and shard count:
- `apply_per_s`: one shard applying its slice of a gradient in its own process (the optimizer's step,
  no message): what a shard on a core of its own could absorb at best;
- `ray_applied_per_s`: gradients applied per second when one client pushes them through Ray as fast as
  it can, at most 4 in flight (`ParameterClient`), each shard in a process of its own: the message's
  cost included (and the client's: on a 2-core machine the client and the shards share the cores).
With N bundles each sending u gradients/s, the server sets the pace once N u exceeds what its shards
absorb: `benchmarks/baselines/scaling/README.md` reads the limit N* from these figures.

Usage: python benchmarks/shard_capacity.py [--seconds 6] [--out benchmarks/baselines/scaling/shard-capacity.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

from gorila.components.parameter_server import slice_bounds
from gorila.config import build_config
from gorila.envs import make_vector_env_for
from gorila.experiments.bench.common import rate
from gorila.experiments.bench.stages import shard_figures
from gorila.messages import env_info
from gorila.system.builders import initial_parameters, make_shard
from gorila.system.planning import plan_run, runtime_resources

NETWORKS = {  # the preset whose network and optimizer each line measures
    "nature_cnn (atari-fast, Adam)": ("atari-fast", {"env": "Pong"}),
    "minatar_cnn (pqn, RAdam)": ("pqn", {"env": "MinAtar/Breakout-v0"}),
}


def config_and_info(preset: str, fields: dict, shards: int):
    config = build_config(preset, overrides={**fields, "param_shards": shards, "max_staleness": -1, "runtime": "ray"})
    with make_vector_env_for(config, 1, 0) as probe:
        return config, env_info(probe)


def apply_rate(config, info, shards: int, seconds: float) -> float:
    """Gradients/s one shard applies to its slice (1/`shards` of theta+) in this process."""
    theta = initial_parameters(config, info)
    start, stop = slice_bounds(theta.size, shards)[0]
    shard = make_shard(config, plan_run(config, info), 0, theta[start:stop])
    gradient = np.random.default_rng(0).normal(size=stop - start).astype(np.float32) * 1e-3

    def apply() -> int:
        shard.apply(gradient, shard.version)
        return 1

    return rate(apply, seconds)


def ray_rate(config, info, seconds: float) -> dict:
    from gorila.runtime.ray import RayRuntime

    theta = initial_parameters(config, info)
    gradient = np.random.default_rng(0).normal(size=theta.size).astype(np.float32) * 1e-3
    runtime = RayRuntime(runtime_resources(config))
    try:
        return shard_figures(runtime, config, info, gradient, seconds)
    finally:
        runtime.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--out", default="benchmarks/baselines/scaling/shard-capacity.json")
    args = parser.parse_args()
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    result = {"date": time.strftime("%Y-%m-%d"), "cores": os.cpu_count(), "seconds": args.seconds, "networks": {}}
    for name, (preset, fields) in NETWORKS.items():
        rows = {}
        for shards in (1, 2, 4):
            config, info = config_and_info(preset, fields, shards)
            ray = ray_rate(config, info, args.seconds)
            rows[str(shards)] = {
                "parameters": int(initial_parameters(config, info).size),
                "optimizer": config.optimizer,
                "apply_per_s": round(apply_rate(config, info, shards, args.seconds / 2), 1),
                "ray_applied_per_s": round(ray["applied_gradients_per_s"], 1),
                "ray_round_trip_ms": round(ray["round_trip_ms"], 2),
            }
            print(f"{name}, {shards} shard{'s' if shards > 1 else ''}: {rows[str(shards)]}", flush=True)
        result["networks"][name] = rows
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
