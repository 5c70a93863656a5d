"""The bench's whole-system sections: bundles on Ray against a plain DQN, a bundle's memory once its
replay is full, and many actors sharing the shards (see `gorila.experiments.bench`)."""

from __future__ import annotations

import os
import time

import numpy as np
import torch

from gorila.agent.networks import q_network_for
from gorila.config import Config
from gorila.core import ActorWorker, Worker
from gorila.envs import make_vector_env_for
from gorila.experiments.bench.common import (
    ACTOR_RATE,
    Timed,
    actor_with_replay,
    atari,
    bare_train_step,
    rate,
    ray_shards,
    single_shard,
)
from gorila.messages import EnvInfo
from gorila.runtime.calls import DirectCalls
from gorila.system.agent_builders import epsilon_schedule
from gorila.system.builders import initial_parameters, make_bundle
from gorila.system.planning import plan_run, runtime_resources


# ---- actors on many cores ------------------------------------------------------------------------
class MeasuredActor:
    """An actor with its own local replay, reading theta+ from shared Ray shards (`ACTOR_RATE`);
    measured in place."""

    def __init__(self, config: Config, info: EnvInfo, index: int, shards: list, bounds, calls):
        torch.set_num_threads(1)
        self.actor, _ = actor_with_replay(config, info, index, shards, bounds, calls)
        self.actor.continue_from(epsilon_schedule(config, 0).end_step)  # acting greedily mostly, as in bench_actor

    def rate(self, seconds: float) -> float:
        return rate(lambda: self.actor.run(64).steps, seconds)


def bench_scaling(seconds: float, counts=(1, 2, 4, 8, 16)) -> dict:
    """Aggregate Atari frames/s of N actors on an embedded Ray, each on its own core, sharing the shards."""
    from gorila.runtime.ray import RayRuntime

    result = {}
    for count in counts:
        config, info = atari(actors=count, learners=count, runtime="ray", replay_capacity=5_000)
        runtime = RayRuntime(runtime_resources(config))
        try:
            bounds = [(0, initial_parameters(config, info).size)]
            shards = ray_shards(runtime, config, info, bounds)
            hosts = [
                runtime.place(ACTOR_RATE, MeasuredActor, config, info, i, shards, bounds, runtime.calls)
                for i in range(count)
            ]
            rates = runtime.calls.get([runtime.calls.call(h, Timed.rate, seconds) for h in hosts])
            result[f"actors_{count}"] = {
                "frames_per_s": info.frames(sum(rates)),
                "per_actor_frames_per_s": info.frames(sum(rates)) / count,
            }
        finally:
            runtime.shutdown()
    return result


# ---- end to end ----------------------------------------------------------------------------------
def plain_dqn_rate(seconds: float) -> float:
    """Agent steps/s of a plain single-process DQN at DQN's ratio: the same env, network and batch,
    torch's default threads, no Gorila in between (the yardstick a user would compare with), its
    minibatch [B, k, H, W] as such a DQN stacks it, and drawn for free (one fixed batch)."""
    config, info = atari()
    torch.set_num_threads(os.cpu_count() or 1)
    env = make_vector_env_for(config, 1, 2)
    obs = env.reset()
    network = q_network_for(config, info)
    train = bare_train_step(config, info, "cpu", channels_last=False)
    rng = np.random.default_rng(0)
    store = np.zeros((config.replay_capacity,) + info.obs_shape[1:], np.uint8)
    count = [0]

    def four_steps() -> int:
        nonlocal obs
        for _ in range(config.update_every):
            with torch.no_grad():
                greedy = network(torch.as_tensor(obs)).argmax(1).numpy()
            action = np.where(rng.random(1) < 0.1, rng.integers(0, info.num_actions, 1), greedy)
            obs = env.step(action).obs
            store[count[0] % len(store)] = obs[0, -1]
            count[0] += 1
        train()  # its sampling is free: a fixed batch
        return config.update_every

    steps = rate(four_steps, seconds)
    env.close()
    torch.set_num_threads(1)
    return steps


def bundles_rate(bundles: int, seconds: float, threads: int = 1, **fields) -> dict:
    """Agent steps/s and updates/s of `bundles` Atari bundles on an embedded Ray, as the driver runs them,
    each with `threads` torch threads (and any other config `fields`)."""
    from gorila.runtime.ray import RayRuntime
    from gorila.system.topology import build_system

    config, info = atari(
        actors=bundles,
        learners=bundles,
        runtime="ray",
        learning_starts=500,
        replay_capacity=10_000,
        torch_threads=threads,
        **fields,
    )
    plan = plan_run(config, info)
    runtime = RayRuntime(plan.resources)
    try:
        system = build_system(config, plan, runtime)
        handles, calls = list(system.workers.values()), runtime.calls
        # At the final epsilon, as the plain DQN acts: a bundle acting at random would skip the network.
        calls.get([calls.call(h, ActorWorker.continue_from, plan.epsilon_of(0).end_step) for h in handles])
        calls.get([calls.call(h, Worker.run, 1_000) for h in handles])  # past learning_starts
        start, steps, updates = time.perf_counter(), 0, 0
        pending = {calls.call(h, Worker.run, 64): h for h in handles}
        while time.perf_counter() - start < seconds or not steps:
            done, _ = calls.wait(list(pending), timeout=1.0)
            for future in done:
                handle = pending.pop(future)
                report = calls.get([future])[0]
                steps, updates = steps + report.steps, updates + report.updates
                pending[calls.call(handle, Worker.run, 64)] = handle
        elapsed = time.perf_counter() - start
        calls.get(list(pending))
        return {"steps_per_s": steps / elapsed, "updates_per_s": updates / elapsed}
    finally:
        runtime.shutdown()


def local_bundle_rate(seconds: float, threads: int) -> dict:
    """Agent steps/s and updates/s of one Atari bundle on the local runtime (actor, replay and learner
    in this process, DQN's ratio) with `threads` torch threads, at the final epsilon as the plain DQN."""
    config, info = atari(learning_starts=500, replay_capacity=10_000, torch_threads=threads)
    shards, bounds = single_shard(config, info)
    bundle = make_bundle(config, plan_run(config, info), 0, shards, bounds, DirectCalls())
    bundle.actor.continue_from(epsilon_schedule(config, 0).end_step)
    bundle.run(1_000)  # past learning_starts
    totals = {"steps": 0, "updates": 0}

    def work() -> int:
        report = bundle.run(64)
        totals["steps"] += report.steps
        totals["updates"] += report.updates
        return report.steps

    steps_per_s = rate(work, seconds, warmup=0.0)
    bundle.close()
    torch.set_num_threads(1)
    return {"steps_per_s": steps_per_s, "updates_per_s": steps_per_s * totals["updates"] / totals["steps"]}


def bench_end_to_end(seconds: float) -> dict:
    """Bundles against a plain DQN at DQN's ratio, and a local bundle's learner against the bare step
    on as many threads: what its actor, sampling and parameter server cost the learner."""
    plain = plain_dqn_rate(seconds)
    one, two = bundles_rate(1, seconds), bundles_rate(2, seconds)
    cores = os.cpu_count() or 1  # what the plain DQN uses: a lone bundle may use them too
    one_all = bundles_rate(1, seconds, threads=cores) if cores > 1 else one
    local = local_bundle_rate(seconds, threads=cores)
    torch.set_num_threads(cores)
    config, info = atari()
    bare = rate(bare_train_step(config, info, "cpu"), seconds)
    torch.set_num_threads(1)
    return {
        "plain_dqn_steps_per_s": plain,
        "bundles_1": one,
        "bundles_2": two,
        f"bundles_1_threads_{cores}": one_all,
        f"local_bundle_threads_{cores}": local,
        f"bare_updates_per_s_threads_{cores}": bare,
        "one_bundle_vs_plain_dqn": one_all["steps_per_s"] / plain,
        "local_bundle_vs_plain_dqn": local["steps_per_s"] / plain,
        "local_learner_vs_bare_step": local["updates_per_s"] / bare,
        "two_bundles_vs_one": two["steps_per_s"] / one["steps_per_s"],
    }


# ---- memory --------------------------------------------------------------------------------------
def resident_mb() -> float:
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def bench_memory(seconds: float) -> dict:
    config, info = atari(replay_capacity=5_000, learning_starts=250)
    shards, bounds = single_shard(config, info)
    bundle = make_bundle(config, plan_run(config, info), 0, shards, bounds, DirectCalls())
    while len(bundle.replay) < config.replay_capacity:  # fill by acting alone: learning is slow here
        bundle.actor.run(256)
    bundle.run(256)  # the first updates and forward passes allocate their buffers once: not growth
    start_mb, start = resident_mb(), time.perf_counter()
    samples = []
    while time.perf_counter() - start < seconds:
        bundle.run(256)
        samples.append(resident_mb())
    bundle.close()
    return {
        "rss_mb_when_full": start_mb,
        "rss_mb_after": samples[-1],
        "rss_growth_mb": samples[-1] - start_mb,
        "window_s": seconds,
    }
