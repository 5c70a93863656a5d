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
from gorila.factory import initial_parameters, make_bundle, make_shard
from gorila.runtime.calls import DirectCalls


def frames_per_second(bundle: Bundle, seconds: float, learn: bool) -> float:
    start, frames = time.time(), 0
    while time.time() - start < seconds:
        if learn:
            frames += bundle.run(64).steps * 4
        else:
            frames += bundle.actor.run(64).steps * 4
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
    with make_vector_env(config.env, 1) as probe:
        info = describe_env(probe)
    theta = initial_parameters(config, info)
    bundle = make_bundle(config, info, 0, [make_shard(config, 0, theta)], [(0, theta.size)], DirectCalls())
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
