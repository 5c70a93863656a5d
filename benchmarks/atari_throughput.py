"""Atari frames/s of one actor (acting only, and a bundle acting + learning) and replay bytes per transition.

Usage: python benchmarks/atari_throughput.py [--game Breakout] [--seconds 20]
"""
from __future__ import annotations

import argparse
import time

from gorila.bundle import Bundle
from gorila.config import build_config
from gorila.core import describe_env
from gorila.envs import make_vector_env
from gorila.parameter_server import ParameterShard, slice_bounds
from gorila.runtime.calls import DirectCalls
from gorila.runtime.topology import initial_parameters


def frames_per_second(bundle: Bundle, seconds: float, learn: bool) -> float:
    start, frames = time.time(), 0
    while time.time() - start < seconds:
        if learn:
            frames += bundle.run(64)["frames"]
        else:
            frames += bundle.actor.run(64)["frames"]
    return frames / (time.time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="Breakout")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--envs-per-actor", type=int, default=1)
    args = parser.parse_args()
    config = build_config("atari", overrides=dict(env=args.game, runtime="local", replay_capacity=50_000,
                                                  learning_starts=1_000, total_frames=10**9,
                                                  envs_per_actor=args.envs_per_actor))
    probe = make_vector_env(config.env, 1)
    info = describe_env(probe)
    probe.close()
    theta = initial_parameters(config, info)
    bounds = slice_bounds(theta.size, 1)
    shards = [ParameterShard(0, theta, config.optimizer, config.learning_rate, config.optimizer_eps,
                             config.rmsprop_alpha, config.max_staleness, config.target_update_every)]
    bundle = Bundle(config, info, 0, shards, bounds, DirectCalls())
    acting = frames_per_second(bundle, args.seconds, learn=False)
    bundle.run(4_000)  # fill past learning_starts
    learning = frames_per_second(bundle, args.seconds, learn=True)
    stats = bundle.replay.stats()
    print(f"{args.game}, {args.envs_per_actor} env(s) per actor, 1 CPU thread")
    print(f"actor only:               {acting:8,.0f} frames/s ({acting / 4:,.0f} agent steps/s)")
    print(f"bundle (1 update/4 steps): {learning:8,.0f} frames/s")
    print(f"replay: {stats['nbytes'] / stats['capacity']:,.0f} bytes per stored transition "
          f"(one 84x84 frame = {84 * 84:,} bytes)")


if __name__ == "__main__":
    main()
