"""How a config becomes a run's plan (`gorila.system.plan.RunPlan`): `plan_run`, the one function that
works out what a config implies in an environment, once, from the pure functions that compute each
value; and the parts of it that a benchmark or a test builds on its own (a replay memory's plan, the
runtime's resources)."""

from __future__ import annotations

from gorila.config import Config
from gorila.config.derived import (
    learner_processes,
    round_size,
    shard_holders,
    shard_threads,
    shards_beside_learners,
    staleness_limit,
    synchronous_refresh,
)
from gorila.messages import EnvInfo
from gorila.placement import Resources
from gorila.system.agent_builders import epsilon_hold_steps, epsilon_schedule, on_ladder
from gorila.system.budget import actor_steps, memory_steps
from gorila.system.builders import (
    min_sample_size,
    parameter_bounds,
    parameter_count,
    planned_updates,
    priority_rule,
    replay_warmup,
    shard_device,
)
from gorila.system.plan import ReplayPlan, RunPlan
from gorila.system.topology import actor_routes, learner_replays, refresh_mode, replay_count, replay_layout


def plan_run(config: Config, info: EnvInfo) -> RunPlan:
    """The run's plan: `config` (validated) in the environment `info` describes. Raises ConfigError
    where the plan cannot be made (more shards than parameters)."""
    warmup = replay_warmup(config)
    updates = planned_updates(config, info)
    return RunPlan(
        info=info,
        resources=runtime_resources(config),
        bounds=tuple(parameter_bounds(config, parameter_count(config, info))),
        shards_beside_learners=shards_beside_learners(config),
        shard_device=shard_device(config),
        staleness_limit=staleness_limit(config),
        round_size=round_size(config),
        planned_updates=updates,
        decay_updates=updates if config.learning_rate_decay else 0,
        synchronous_refresh=synchronous_refresh(config),
        synchronous_when_holding_all=synchronous_refresh(config, holds_every_shard=True),
        refresh_mode=refresh_mode(config),
        replay_count=replay_count(config),
        replays=tuple(
            replay_plan(config, info, capacity, streams, warmup) for capacity, streams in replay_layout(config)
        ),
        replay_warmup=warmup,
        min_sample_size=min_sample_size(config, warmup),
        routes=tuple(tuple(actor_routes(config, i)) for i in range(config.actors)),
        learner_replays=tuple(tuple(learner_replays(config, j)) for j in range(config.learners)),
        total_steps=info.steps(config.total_frames),
        actor_steps=actor_steps(config, info),
        memory_steps=memory_steps(config, info),
        epsilon=tuple(epsilon_schedule(config, i) for i in range(config.actors)),
        on_ladder=on_ladder(config),
        epsilon_hold_steps=epsilon_hold_steps(config),
    )


def replay_plan(config: Config, info: EnvInfo, capacity: int, streams: int, warmup: int) -> ReplayPlan:
    """A replay memory of `capacity` transitions over `streams` env streams that gives minibatches once
    it holds `warmup` (and one minibatch); also for one built by hand (benchmarks, the example)."""
    return ReplayPlan(capacity, streams, min_sample_size(config, warmup), priority_rule(config, info, streams))


def runtime_resources(config: Config) -> Resources:
    """What a runtime needs of `config`: the processes it places and what each reserves."""
    return Resources(
        runtime=config.runtime,
        address=config.address,
        workers=config.actors if config.bundled else config.actors + config.learners,
        learner_processes=learner_processes(config),
        worker_cpus=config.worker_cpus,
        server_cpus=config.server_cpus,
        learner_gpus=config.learner_gpus,
        device=config.device,
        param_shards=config.param_shards,
        shard_holders=shard_holders(config),
        shard_threads=shard_threads(config),
    )
