"""The bench's stage sections: one actor, one learner (here and on Ray), the parameter server on Ray,
and one replay memory, each against the bare operation it is built on (see `gorila.experiments.bench`)."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import torch

from gorila.components.parameter_server import ParameterClient, slice_bounds
from gorila.config import Config, build_config
from gorila.envs import make_vector_env_for
from gorila.experiments.bench.common import (
    GAME,
    LEARNER_RATE,
    Timed,
    atari,
    bare_train_step,
    filled_replay,
    local_actor,
    rate,
    ray_shards,
    single_shard,
)
from gorila.messages import EnvInfo
from gorila.runtime.calls import DirectCalls
from gorila.system.agent_builders import epsilon_schedule
from gorila.system.builders import initial_parameters, make_learner, make_replay
from gorila.system.planning import plan_run, replay_plan, runtime_resources


# ---- actor ---------------------------------------------------------------------------------------
def bench_actor(seconds: float) -> dict:
    torch.set_num_threads(1)
    config, info = atari()
    env = make_vector_env_for(config, 1, 1)
    env.reset()
    rng = np.random.default_rng(0)
    bare = rate(lambda: env.step(rng.integers(0, env.num_actions, 1)) and 1, seconds)
    env.close()
    actor, _ = local_actor(config, info)
    # At the final epsilon, where a run spends all but its first epsilon_decay_steps: an actor that
    # acts at random skips the network, so a fresh actor (epsilon 1) would flatter the ratio.
    actor.continue_from(epsilon_schedule(config, 0).end_step)
    inside = rate(lambda: actor.run(64).steps, seconds)
    actor.close()
    return {
        "bare_ale_steps_per_s": bare,
        "actor_steps_per_s": inside,
        "ratio": inside / bare,
        "epsilon": float(np.mean(actor.epsilon)),
    }


# ---- learner -------------------------------------------------------------------------------------
def bench_learner(seconds: float, device: str = "cpu", with_ray: bool = True) -> dict:
    """The full learner step against a bare PyTorch step: its shard beside it (on its device, the
    default placement) and apart (on the CPU), in one process; and on Ray."""
    torch.set_num_threads(1)
    config, info = atari(device=device)
    bare = rate(bare_train_step(config, info, device), seconds)
    local = local_learner_rate(config, info, seconds)
    apart = local_learner_rate(atari(device=device, shard_placement="apart")[0], info, seconds)
    result = {
        "bare_updates_per_s": bare,
        "local_updates_per_s": local,
        "ratio": local / bare,
        "local_shard_apart_updates_per_s": apart,
        "shard_apart_ratio": apart / bare,
    }
    if with_ray:
        ray_rate = ray_learner_rate(config, info, seconds)
        result.update(ray_updates_per_s=ray_rate, ray_ratio=ray_rate / bare)
    if device == "cuda":  # many cores: does the server keep up when it is spread out?
        for shards, sync in ((4, 1), (4, 4)):
            spread, _ = atari(device=device, param_shards=shards, learner_sync_every=sync)
            result[f"ray_{shards}_shards_sync_{sync}_updates_per_s"] = ray_learner_rate(spread, info, seconds)
    return result


def local_learner_rate(config: Config, info: EnvInfo, seconds: float) -> float:
    """Updates/s of one learner and its one shard in this process."""
    shards, bounds = single_shard(config, info)
    learner = make_learner(
        config, plan_run(config, info), 0, shards, bounds, DirectCalls(), filled_replay(config, info)
    )
    return rate(lambda: learner.run(4).updates, seconds)


class MeasuredLearner:
    """A learner with a filled replay, built inside a Ray actor (`LEARNER_RATE`, or the same holding
    its `hosted` shards); `rate` measures it there."""

    def __init__(self, config: Config, info: EnvInfo, shards: list, bounds, calls, index: int = 0, hosted=()):
        torch.set_num_threads(1)
        plan, replay = plan_run(config, info), filled_replay(config, info)
        self.learner = make_learner(config, plan, index, shards, bounds, calls, replay, hosted)
        self.hosted_shards = self.learner.hosted_shards

    def rate(self, seconds: float) -> float:
        return rate(lambda: self.learner.run(4).updates, seconds)


def shared_device_rate(config: Config, info: EnvInfo, learners: int, seconds: float) -> float:
    """Aggregate updates/s of `learners` learners on Ray at once, sharing the device (each 1/N of its
    GPU), with N shards, shard i beside learner i (its slice on that learner's device)."""
    from gorila.runtime.ray import RayRuntime

    config = dataclasses.replace(config, learners=learners, actors=learners, param_shards=learners)
    runtime = RayRuntime(runtime_resources(config))
    try:
        bounds = slice_bounds(initial_parameters(config, info).size, learners)
        hosts = [runtime.reserve() for _ in range(learners)]
        shards = [runtime.hosted_shard(host, i) for i, host in enumerate(hosts)]
        placed = [
            runtime.place(
                LEARNER_RATE.hosting_shards(),
                MeasuredLearner,
                config,
                info,
                shards,
                bounds,
                runtime.calls,
                i,
                ((i, *bounds[i], None),),
                as_handle=host,
            )
            for i, host in enumerate(hosts)
        ]
        return float(sum(runtime.calls.get([runtime.calls.call(host, Timed.rate, seconds) for host in placed])))
    finally:
        runtime.shutdown()


def bench_shared_device(seconds: float, device: str = "cpu", counts=(1, 4)) -> dict:
    """Learners sharing one device, each beside its shard: aggregate updates/s of 1 and 4 on Ray /
    one bare PyTorch step's on that device."""
    torch.set_num_threads(1)
    config, info = atari(device=device)
    bare = rate(bare_train_step(config, info, device), seconds)
    result = {"bare_updates_per_s": bare}
    for count in counts:
        aggregate = shared_device_rate(config, info, count, seconds)
        result[f"learners_{count}"] = {"updates_per_s": aggregate, "ratio": aggregate / bare}
    return result


def ray_learner_rate(config: Config, info: EnvInfo, seconds: float) -> float:
    """Updates/s of one learner on Ray, its shards (`config.param_shards`) each in its own process."""
    from gorila.runtime.ray import RayRuntime

    config = dataclasses.replace(config, shard_placement="apart")
    runtime = RayRuntime(runtime_resources(config))
    try:
        bounds = slice_bounds(initial_parameters(config, info).size, config.param_shards)
        host = runtime.place(
            LEARNER_RATE,
            MeasuredLearner,
            config,
            info,
            ray_shards(runtime, config, info, bounds),
            bounds,
            runtime.calls,
        )
        return float(runtime.calls.get([runtime.calls.call(host, Timed.rate, seconds)])[0])
    finally:
        runtime.shutdown()


# ---- parameter server ----------------------------------------------------------------------------
def bench_server(seconds: float, shard_counts=(1, 2, 4, 8)) -> dict:
    """A Nature-CNN gradient's round trip through 1, 2, 4, 8 Ray shards, against copying its bytes."""
    from gorila.runtime.ray import RayRuntime

    config, info = atari()
    theta = initial_parameters(config, info)
    gradient = np.random.default_rng(0).normal(size=theta.size).astype(np.float32) * 1e-3
    scratch = np.empty_like(theta)

    def copy_both_ways() -> int:  # what a round trip moves: a gradient out, theta back
        np.copyto(scratch, gradient)
        np.copyto(scratch, theta)
        return 1

    memory_s = 1.0 / rate(copy_both_ways, seconds / 4)
    result = {"parameters": int(theta.size), "in_memory_round_trip_ms": memory_s * 1e3}
    for count in shard_counts:
        config_n = build_config("atari", overrides=dict(env=GAME, param_shards=count, max_staleness=-1))
        runtime = RayRuntime(runtime_resources(config_n))
        try:
            figures = shard_figures(runtime, config_n, info, gradient, seconds)
        finally:
            runtime.shutdown()
        trip_ms = figures["round_trip_ms"]
        result[f"shards_{count}"] = {
            "round_trip_ms": trip_ms,
            "ratio_to_memory": memory_s * 1e3 / trip_ms,
            "applied_gradients_per_s": figures["applied_gradients_per_s"],
        }
    return result


def shard_figures(runtime, config: Config, info: EnvInfo, gradient: np.ndarray, seconds: float) -> dict:
    """Round trip (push, wait, pull) and pipelined pushes through `config.param_shards` shards."""

    count = config.param_shards
    bounds = slice_bounds(gradient.size, count)
    client = ParameterClient(ray_shards(runtime, config, info, bounds), bounds, runtime.calls, max_inflight=4)

    def round_trip() -> int:
        client.push(gradient, client.versions)
        client.drain()
        client.pull()
        return 1

    trip_s = 1.0 / rate(round_trip, seconds / 2)
    applied_before = sum(s["applied"] for s in client.stats())
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2:  # pushes in flight, at most 4 waiting
        client.push(gradient, client.versions)
    client.drain()
    elapsed = time.perf_counter() - start
    applied = (sum(s["applied"] for s in client.stats()) - applied_before) / count
    return {"round_trip_ms": trip_s * 1e3, "applied_gradients_per_s": applied / elapsed}


# ---- replay --------------------------------------------------------------------------------------
def bench_replay(seconds: float) -> dict:
    """Bytes per Atari transition, and insert and sample rates of a uniform replay memory beside a
    prioritised one (whose priority updates, one per sampled transition, are timed too)."""
    uniform = replay_rates(seconds / 2)
    prioritised = replay_rates(seconds / 2, prioritised=True)
    return {
        **uniform,
        "prioritised": prioritised,
        "prioritised_sample_ratio": prioritised["sampled_transitions_per_s"] / uniform["sampled_transitions_per_s"],
    }


def replay_rates(seconds: float, **overrides) -> dict:
    config, info = atari(**overrides)
    replay = make_replay(config, info, replay_plan(config, info, 50_000, 1, 1), 0)
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 256, (64, 1) + info.frame_shape, dtype=np.uint8)
    actions, rewards = rng.integers(0, 4, (64, 1)), rng.normal(size=(64, 1)).astype(np.float32)
    flags = np.zeros((64, 1), bool)

    def insert() -> int:
        replay.add_steps([0], frames, actions, rewards, flags, flags)
        return 64

    inserts = rate(insert, seconds / 2)
    stats = replay.stats()
    result = {
        "bytes_per_transition": stats["nbytes"] / stats["capacity"],
        "frame_bytes": int(np.prod(info.frame_shape)),
        "inserts_per_s": inserts,
        "sampled_transitions_per_s": rate(lambda: len(replay.sample(config.batch_size)), seconds / 2),
    }
    if config.prioritised:
        batch = replay.sample(config.batch_size)
        errors = rng.exponential(size=len(batch)).astype(np.float32)

        def update() -> int:
            replay.update_priorities(batch.streams, batch.indices, errors)
            return len(batch)

        result["priority_updates_per_s"] = rate(update, seconds / 2)
    return result
