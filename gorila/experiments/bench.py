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
- replay:     bytes per stored Atari transition, insert and sample rates;
- end_to_end: Atari agent steps/s and updates/s of 1 and 2 bundles on Ray at DQN's ratio (one torch
              thread each), and 1 bundle with as many torch threads as the plain single-process DQN
              (all cores) / that DQN at the same ratio, batch and network;
- memory:     resident memory of a bundle once its replay is full, at the start and end of a window;
- scaling:    (not by default) aggregate Atari frames/s of 1, 2, 4, 8, 16 actors on an embedded Ray.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from gorila.config import Config, build_config
from gorila.contracts import EnvInfo, env_info
from gorila.envs import make_vector_env
from gorila.system.builders import (initial_parameters, make_actor, make_bundle, make_learner, make_replay, make_shard,
                            make_shard_of)
from gorila.agent.networks import q_network_for
from gorila.components.replay.routing import ReplayWriter, Route
from gorila.runtime.calls import DirectCalls

GAME = "Breakout"
SECTIONS = ("actor", "learner", "server", "replay", "end_to_end", "memory")
EXTRA_SECTIONS = ("scaling",)      # for machines with many cores (benchmarks/gpu.sh)


def atari(**overrides) -> tuple[Config, EnvInfo]:
    """The atari preset on Breakout, sized to fill and learn within seconds."""
    settings = dict(env=GAME, runtime="local", replay_capacity=20_000, learning_starts=1_000,
                    total_frames=10**9, torch_threads=1)
    config = build_config("atari", overrides={**settings, **overrides})
    with make_vector_env(config.env, 1) as probe:
        return config, env_info(probe)


def rate(work: Callable[[], int], seconds: float, warmup: float = 1.0) -> float:
    """Units per second of `work()` (which returns the units it did), after a warm-up."""
    deadline = time.perf_counter() + warmup
    while time.perf_counter() < deadline:
        work()
    start, done = time.perf_counter(), 0
    while time.perf_counter() - start < seconds:
        done += work()
    return done / (time.perf_counter() - start)


def single_shard(config: Config, info: EnvInfo):
    theta = initial_parameters(config, info)
    return [make_shard(config, 0, theta)], [(0, theta.size)]


def local_actor(config: Config, info: EnvInfo):
    shards, bounds = single_shard(config, info)
    replay = make_replay(config, info, config.replay_capacity, config.envs_per_actor, 0, 10**9)
    streams = tuple(range(config.envs_per_actor))
    writer = ReplayWriter([replay], [Route(0, streams, streams)], DirectCalls())
    return make_actor(config, info, 0, shards, bounds, DirectCalls(), writer), replay


# ---- actor ---------------------------------------------------------------------------------------
def bench_actor(seconds: float) -> dict:
    torch.set_num_threads(1)
    config, info = atari()
    env = make_vector_env(config.env, 1, seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    bare = rate(lambda: env.step(rng.integers(0, env.num_actions, 1)) and 1, seconds)
    env.close()
    actor, _ = local_actor(config, info)
    # At the final epsilon, where a run spends all but its first epsilon_decay_steps: an actor that
    # acts at random skips the network, so a fresh actor (epsilon 1) would flatter the ratio.
    actor.continue_from(config.epsilon_decay_steps)
    inside = rate(lambda: actor.run(64).steps, seconds)
    actor.close()
    return {"bare_ale_steps_per_s": bare, "actor_steps_per_s": inside, "ratio": inside / bare,
            "epsilon": actor.epsilon}


# ---- learner -------------------------------------------------------------------------------------
def filled_replay(config: Config, info: EnvInfo, entries: int = 5_000):
    replay = make_replay(config, info, config.replay_capacity, 1, 0, warmup=1)
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (64, 1) + info.frame_shape, dtype=np.uint8)
    for start in range(0, entries, 64):
        replay.add_steps([0], frames, rng.integers(0, info.num_actions, (64, 1)), rng.normal(size=(64, 1)),
                         np.zeros((64, 1), bool), np.zeros((64, 1), bool))
    return replay


def bare_train_step(config: Config, info: EnvInfo, device: str) -> Callable[[], int]:
    """A plain PyTorch DQN update on one fixed batch: what a learner step costs without Gorila."""
    torch.manual_seed(0)
    online = q_network_for(config, info).to(device)
    target = q_network_for(config, info).to(device).requires_grad_(False)
    optimizer = torch.optim.RMSprop(online.parameters(), lr=config.learning_rate, alpha=0.95, eps=0.01,
                                    centered=True)
    batch = config.batch_size
    obs = torch.randint(0, 256, (batch,) + info.obs_shape, dtype=torch.uint8, device=device)
    next_obs = torch.randint(0, 256, (batch,) + info.obs_shape, dtype=torch.uint8, device=device)
    actions = torch.randint(0, info.num_actions, (batch,), device=device)
    rewards = torch.zeros(batch, device=device)

    def step() -> int:
        with torch.no_grad():
            y = rewards + 0.99 * target(next_obs).max(1).values
        q = online(obs).gather(1, actions[:, None]).squeeze(1)
        loss = torch.nn.functional.huber_loss(q, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        loss.item()                      # wait for the device, as the learner does
        return 1
    return step


def bench_learner(seconds: float, device: str = "cpu", with_ray: bool = True) -> dict:
    torch.set_num_threads(1)
    config, info = atari(device=device)
    bare = rate(bare_train_step(config, info, device), seconds)
    shards, bounds = single_shard(config, info)
    learner = make_learner(config, info, 0, shards, bounds, DirectCalls(), filled_replay(config, info))
    local = rate(lambda: learner.run(4).updates, seconds)
    result = {"bare_updates_per_s": bare, "local_updates_per_s": local, "ratio": local / bare}
    if with_ray:
        ray_rate = ray_learner_rate(config, info, seconds)
        result.update(ray_updates_per_s=ray_rate, ray_ratio=ray_rate / bare)
    if device == "cuda":        # many cores: does the server keep up when it is spread out?
        for shards, sync in ((4, 1), (4, 4)):
            spread, _ = atari(device=device, param_shards=shards, learner_sync_every=sync)
            result[f"ray_{shards}_shards_sync_{sync}_updates_per_s"] = ray_learner_rate(spread, info, seconds)
    return result


class _LearnerHost:
    """A learner with a filled replay, built inside a Ray actor; `rate` measures it there."""

    def __init__(self, config, info, shards, bounds):
        from gorila.runtime.ray import RayCalls
        torch.set_num_threads(1)
        self.learner = make_learner(config, info, 0, shards, bounds, RayCalls(), filled_replay(config, info))

    def rate(self, seconds: float) -> float:
        return rate(lambda: self.learner.run(4).updates, seconds)


def ray_learner_rate(config: Config, info: EnvInfo, seconds: float) -> float:
    """Updates/s of one learner on Ray, its shards (`config.param_shards`) each in its own process."""
    from gorila.components.parameter_server import slice_bounds
    from gorila.runtime.ray import RayRuntime
    runtime = RayRuntime(config)
    try:
        bounds = slice_bounds(initial_parameters(config, info).size, config.param_shards)
        shards = [runtime.place("server", make_shard_of, config, info, i, a, b) for i, (a, b) in enumerate(bounds)]
        host = runtime.place("learner", _LearnerHost, config, info, shards, bounds)
        return float(runtime.calls.get([runtime.calls.call(host, "rate", seconds)])[0])
    finally:
        runtime.shutdown()


# ---- actors on many cores ------------------------------------------------------------------------
class _ActorHost:
    """An actor with its own local replay, reading theta+ from shared Ray shards; measured in place."""

    def __init__(self, config, info, index, shards, bounds):
        from gorila.runtime.ray import RayCalls
        torch.set_num_threads(1)
        replay = make_replay(config, info, config.replay_capacity, config.envs_per_actor, index, 10**9)
        streams = tuple(range(config.envs_per_actor))
        writer = ReplayWriter([replay], [Route(0, streams, streams)], DirectCalls())
        self.actor = make_actor(config, info, index, shards, bounds, RayCalls(), writer)
        self.actor.continue_from(config.epsilon_decay_steps)     # acting greedily mostly, as in bench_actor

    def rate(self, seconds: float) -> float:
        return rate(lambda: self.actor.run(64).steps, seconds)


def bench_scaling(seconds: float, counts=(1, 2, 4, 8, 16)) -> dict:
    """Aggregate Atari frames/s of N actors on an embedded Ray, each on its own core, sharing the shards."""
    from gorila.runtime.ray import RayRuntime
    result = {}
    for count in counts:
        config, info = atari(actors=count, learners=count, runtime="ray", replay_capacity=5_000)
        runtime = RayRuntime(config)
        try:
            theta = initial_parameters(config, info)
            shards = [runtime.place("server", make_shard_of, config, info, 0, 0, theta.size)]
            hosts = [runtime.place("worker", _ActorHost, config, info, i, shards, [(0, theta.size)])
                     for i in range(count)]
            rates = runtime.calls.get([runtime.calls.call(h, "rate", seconds) for h in hosts])
            result[f"actors_{count}"] = {"frames_per_s": info.frames(sum(rates)),
                                         "per_actor_frames_per_s": info.frames(sum(rates)) / count}
        finally:
            runtime.shutdown()
    return result


# ---- parameter server ----------------------------------------------------------------------------
def bench_server(seconds: float, shard_counts=(1, 2, 4, 8)) -> dict:
    from gorila.components.parameter_server import ParameterClient, slice_bounds
    from gorila.runtime.ray import RayRuntime
    config, info = atari()
    theta = initial_parameters(config, info)
    gradient = np.random.default_rng(0).normal(size=theta.size).astype(np.float32) * 1e-3
    scratch = np.empty_like(theta)

    def copy_both_ways() -> int:            # what a round trip moves: a gradient out, theta back
        np.copyto(scratch, gradient)
        np.copyto(scratch, theta)
        return 1
    memory_s = 1.0 / rate(copy_both_ways, seconds / 4)
    result = {"parameters": int(theta.size), "in_memory_round_trip_ms": memory_s * 1e3}
    for count in shard_counts:
        config_n = build_config("atari", overrides=dict(env=GAME, param_shards=count, max_staleness=-1))
        runtime = RayRuntime(config_n)
        try:
            bounds = slice_bounds(theta.size, count)
            shards = [runtime.place("server", make_shard_of, config_n, info, i, a, b) for i, (a, b) in enumerate(bounds)]
            client = ParameterClient(shards, bounds, runtime.calls, max_inflight=4)

            def round_trip() -> int:
                client.push(gradient, client.versions)
                client.drain()
                client.pull()
                return 1
            trip_s = 1.0 / rate(round_trip, seconds / 2)

            applied_before = sum(s["applied"] for s in client.stats())
            start = time.perf_counter()
            while time.perf_counter() - start < seconds / 2:    # pushes in flight, at most 4 waiting
                client.push(gradient, client.versions)
            client.drain()
            elapsed = time.perf_counter() - start
            applied = (sum(s["applied"] for s in client.stats()) - applied_before) / count
            result[f"shards_{count}"] = {"round_trip_ms": trip_s * 1e3, "ratio_to_memory": memory_s / trip_s,
                                         "applied_gradients_per_s": applied / elapsed}
        finally:
            runtime.shutdown()
    return result


# ---- replay --------------------------------------------------------------------------------------
def bench_replay(seconds: float) -> dict:
    config, info = atari()
    replay = make_replay(config, info, 50_000, 1, 0, warmup=1)
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (64, 1) + info.frame_shape, dtype=np.uint8)
    actions, rewards = rng.integers(0, 4, (64, 1)), rng.normal(size=(64, 1)).astype(np.float32)
    flags = np.zeros((64, 1), bool)

    def insert() -> int:
        replay.add_steps([0], frames, actions, rewards, flags, flags)
        return 64
    inserts = rate(insert, seconds / 2)
    stats = replay.stats()
    samples = rate(lambda: len(replay.sample(config.batch_size)), seconds / 2)
    return {"bytes_per_transition": stats["nbytes"] / stats["capacity"], "frame_bytes": int(np.prod(info.frame_shape)),
            "inserts_per_s": inserts, "sampled_transitions_per_s": samples}


# ---- end to end ----------------------------------------------------------------------------------
def plain_dqn_rate(seconds: float) -> float:
    """Agent steps/s of a plain single-process DQN at DQN's ratio: the same env, network and batch,
    torch's default threads, no Gorila in between (the yardstick a user would compare with)."""
    config, info = atari()
    torch.set_num_threads(os.cpu_count() or 1)
    env = make_vector_env(config.env, 1, seed=2)
    obs = env.reset()
    network = q_network_for(config, info)
    train = bare_train_step(config, info, "cpu")
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
        train()                          # its sampling is free: a fixed batch
        return config.update_every
    steps = rate(four_steps, seconds)
    env.close()
    torch.set_num_threads(1)
    return steps


def bundles_rate(bundles: int, seconds: float, threads: int = 1) -> dict:
    """Agent steps/s and updates/s of `bundles` Atari bundles on an embedded Ray, as the driver runs them,
    each with `threads` torch threads."""
    from gorila.runtime.ray import RayRuntime
    from gorila.system.topology import build_system
    config, info = atari(actors=bundles, learners=bundles, runtime="ray", learning_starts=500,
                         replay_capacity=10_000, torch_threads=threads)
    runtime = RayRuntime(config)
    try:
        system = build_system(config, info, runtime.place, runtime.calls)
        handles, calls = list(system.workers.values()), runtime.calls
        # At the final epsilon, as the plain DQN acts: a bundle acting at random would skip the network.
        calls.get([calls.call(h, "continue_from", config.epsilon_decay_steps) for h in handles])
        calls.get([calls.call(h, "run", 1_000) for h in handles])          # past learning_starts
        start, steps, updates = time.perf_counter(), 0, 0
        pending = {calls.call(h, "run", 64): h for h in handles}
        while time.perf_counter() - start < seconds or not steps:
            done, _ = calls.wait(list(pending), timeout=1.0)
            for future in done:
                handle = pending.pop(future)
                report = calls.get([future])[0]
                steps, updates = steps + report.steps, updates + report.updates
                pending[calls.call(handle, "run", 64)] = handle
        elapsed = time.perf_counter() - start
        calls.get(list(pending))
        return {"steps_per_s": steps / elapsed, "updates_per_s": updates / elapsed}
    finally:
        runtime.shutdown()


def bench_end_to_end(seconds: float) -> dict:
    plain = plain_dqn_rate(seconds)
    one, two = bundles_rate(1, seconds), bundles_rate(2, seconds)
    cores = os.cpu_count() or 1       # what the plain DQN uses: a lone bundle may use them too
    one_all = bundles_rate(1, seconds, threads=cores) if cores > 1 else one
    return {"plain_dqn_steps_per_s": plain, "bundles_1": one, "bundles_2": two,
            f"bundles_1_threads_{cores}": one_all,
            "one_bundle_vs_plain_dqn": one_all["steps_per_s"] / plain,
            "two_bundles_vs_one": two["steps_per_s"] / one["steps_per_s"]}


# ---- memory --------------------------------------------------------------------------------------
def resident_mb() -> float:
    with open("/proc/self/statm") as file:
        return int(file.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def bench_memory(seconds: float) -> dict:
    config, info = atari(replay_capacity=5_000, learning_starts=250)
    shards, bounds = single_shard(config, info)
    bundle = make_bundle(config, info, 0, shards, bounds, DirectCalls())
    while len(bundle.replay) < config.replay_capacity:      # fill by acting alone: learning is slow here
        bundle.actor.run(256)
    bundle.run(256)       # the first updates and forward passes allocate their buffers once: not growth
    start_mb, start = resident_mb(), time.perf_counter()
    samples = []
    while time.perf_counter() - start < seconds:
        bundle.run(256)
        samples.append(resident_mb())
    bundle.close()
    return {"rss_mb_when_full": start_mb, "rss_mb_after": samples[-1], "rss_growth_mb": samples[-1] - start_mb,
            "window_s": seconds}


# ---- the command ---------------------------------------------------------------------------------
def run_bench(sections=SECTIONS, seconds: float = 10.0, device: str = "cpu", report=print) -> dict:
    """Measure the chosen sections; `report` gets one line per figure as it is measured."""
    results: dict = {}
    jobs = {"actor": lambda: bench_actor(seconds), "learner": lambda: bench_learner(seconds, device),
            "server": lambda: bench_server(seconds), "replay": lambda: bench_replay(seconds),
            "end_to_end": lambda: bench_end_to_end(2 * seconds), "memory": lambda: bench_memory(2 * seconds),
            "scaling": lambda: bench_scaling(seconds)}
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
