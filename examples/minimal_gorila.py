"""Gorila in one file: one bundle and one parameter shard, every call made directly, top to bottom.

The same components as `gorila train` (which places them on Ray and runs many bundles at once);
here the loop of Nair et al. (2015) is written out, to read against the paper:

  actor:    a_t = epsilon-greedy(Q(s_t; theta)), step the env, store (s_t, a_t, r_t, s_t+1) in replay;
            refresh theta <- theta+ every N_act_sync steps
  learner:  every `update_every` steps, sample a minibatch, compute the DQN gradient against theta-,
            send it to the parameter server (never apply it); refresh theta <- theta+
  server:   the shard applies the gradient to its slice of theta+ (asynchronous SGD), and copies
            theta- <- theta+ every `target_update_every` of its updates

Usage: python examples/minimal_gorila.py [--frames 250000] [--seed 0]
Exits 0 once a greedy evaluation reaches 475 and a second one on fresh episodes confirms it.
"""

from __future__ import annotations

import argparse
import sys
import time

from gorila.components.replay.routing import ReplayWriter, Route
from gorila.config import build_config
from gorila.envs import make_vector_env_for
from gorila.messages import env_info
from gorila.runtime.calls import DirectCalls
from gorila.system.agent_builders import make_evaluator
from gorila.system.builders import (
    initial_parameters,
    make_actor,
    make_learner,
    make_replay,
    make_shard,
    parameter_client,
)
from gorila.system.planning import plan_run

TARGET = 475.0


def train(total_frames: int, seed: int) -> bool:
    config = build_config("cartpole", overrides=dict(runtime="local", seed=seed, total_frames=total_frames))
    with make_vector_env_for(config, 1, 0) as probe:
        info = env_info(probe)
    plan = plan_run(config, info)  # what the config implies: replay sizes, warm-up, epsilon schedule, ...
    calls = DirectCalls()  # everything lives in this process

    # The parameter server: one shard holding all of theta+ (and theta-).
    theta0 = initial_parameters(config, info)
    shards, bounds = [make_shard(config, plan, 0, theta0)], [(0, theta0.size)]

    # One bundle: actor -> local replay -> learner, each talking to the server through its own client.
    copies = tuple(range(config.envs_per_actor))  # one replay stream per env copy
    replay = make_replay(config, info, plan.replays[0], seed=seed)
    writer = ReplayWriter([replay], [Route(0, copies, copies)], calls)
    actor = make_actor(config, plan, 0, shards, bounds, calls, writer)
    learner = make_learner(config, plan, 0, shards, bounds, calls, replay)
    evaluator, server = make_evaluator(config, info), parameter_client(config, plan, shards, bounds, calls)

    start, returns = time.time(), []
    eval_every, steps, credit = info.steps(config.eval_every_frames), 0, 0
    next_eval = eval_every
    while steps < info.steps(config.total_frames):
        taken = actor.step()  # each env copy acts once, writes to replay
        writer.flush()  # (a copy that only resets takes no agent step)
        steps, credit = steps + taken, credit + taken
        while credit >= config.update_every:  # DQN's ratio: one update per update_every steps
            credit -= config.update_every
            learner.update()  # sample, gradient vs theta-, push to shard
        returns += actor.report(steps).episode_returns
        if steps < next_eval:
            continue
        next_eval += eval_every
        learner.send(refresh=False)  # nothing left in the learner's outbox
        theta, _ = server.pull()
        score = evaluator.evaluate(theta)["eval_return_mean"]
        recent = sum(returns[-20:]) / max(len(returns[-20:]), 1)
        print(
            f"{info.frames(steps):>8,} frames {time.time() - start:6.1f} s | PS v{shards[0].version:>6,} | "
            f"training return {recent:6.1f} | greedy eval {score:6.1f}",
            flush=True,
        )
        if score >= TARGET:
            confirmation = evaluator.evaluate(theta)["eval_return_mean"]  # same theta, fresh episodes
            print(f"confirmation on fresh episodes: {confirmation:.1f}")
            if confirmation >= TARGET:
                print(f"solved after {info.frames(steps):,} frames, {time.time() - start:.1f} s")
                return True
    print(f"not solved within {config.total_frames:,} frames")
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=250_000, help="training budget in frames")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    return 0 if train(args.frames, args.seed) else 1


if __name__ == "__main__":
    sys.exit(main())
