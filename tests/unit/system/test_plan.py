"""The run plan (`gorila.system.plan`): made once from a config and its environment, it holds what the
functions that compute each value give (and, for a few topologies, the numbers worked out by hand), it
cannot be changed, and the system builds from it rather than working the values out again."""

import dataclasses
import inspect

import numpy as np
import pytest

from gorila.agent import dqn
from gorila.components.replay.routing import Route
from gorila.config import build_config, derived
from gorila.placement import LEARNER, WorkerId
from gorila.runtime import make_runtime
from gorila.runtime.local import LocalRuntime
from gorila.system import agent_builders, budget, builders, topology
from gorila.system.plan import ReplayPlan
from gorila.system.planning import plan_run, runtime_resources
from tests.helpers import ATARI_INFO, CARTPOLE_INFO, MINATAR_INFO

CONFIGS = {
    "bundled": ("cartpole", dict(runtime="local", actors=2, learners=2, param_shards=2), CARTPOLE_INFO),
    "global replay": (
        "cartpole",
        dict(bundled=False, actors=3, learners=2, envs_per_actor=2, replay="global", replay_shards=2, param_shards=3),
        CARTPOLE_INFO,
    ),
    "synchronous rounds on ray": (
        "minatar",
        dict(synchronous_sgd=True, runtime="ray", actors=4, learners=4),
        MINATAR_INFO,
    ),
    "epsilon ladder": ("atari", dict(env="Breakout", actors=3, learners=3, epsilon_ladder=True), ATARI_INFO),
    "pqn": ("pqn-cartpole", dict(actors=2, learners=2), CARTPOLE_INFO),
}


def planned(name: str) -> tuple:
    preset, overrides, info = CONFIGS[name]
    config = build_config(preset, overrides=overrides)
    return config, plan_run(config, info)


@pytest.mark.parametrize("name", CONFIGS)
def test_the_plan_holds_what_each_function_gives(name):
    config, plan = planned(name)
    info = plan.info
    warmup = builders.replay_warmup(config)
    size = builders.initial_parameters(config, info).size  # the real network, not the counted one
    assert plan.bounds == tuple(builders.parameter_bounds(config, size))
    assert (plan.staleness_limit, plan.round_size) == (derived.staleness_limit(config), derived.round_size(config))
    assert plan.shards_beside_learners is derived.shards_beside_learners(config)
    assert plan.synchronous_refresh is derived.synchronous_refresh(config)
    assert plan.synchronous_when_holding_all is derived.synchronous_refresh(config, holds_every_shard=True)
    assert plan.refresh_mode == topology.refresh_mode(config)
    assert plan.planned_updates == builders.planned_updates(config, info)
    assert plan.replay_count == topology.replay_count(config)
    assert [(m.capacity, m.streams) for m in plan.replays] == topology.replay_layout(config)
    assert [m.priority for m in plan.replays] == [builders.priority_rule(config, info, m.streams) for m in plan.replays]
    assert (plan.replay_warmup, plan.min_sample_size) == (warmup, builders.min_sample_size(config, warmup))
    assert all(m.min_size == plan.min_sample_size for m in plan.replays)
    assert plan.routes == tuple(tuple(topology.actor_routes(config, i)) for i in range(config.actors))
    assert plan.learner_replays == tuple(tuple(topology.learner_replays(config, j)) for j in range(config.learners))
    assert (plan.actor_steps, plan.memory_steps) == (
        budget.actor_steps(config, info),
        budget.memory_steps(config, info),
    )
    assert plan.total_steps == info.steps(config.total_frames)
    assert plan.on_ladder is agent_builders.on_ladder(config)
    assert plan.epsilon_hold_steps == agent_builders.epsilon_hold_steps(config)
    for i in range(config.actors):
        given, wanted = plan.epsilon[i], agent_builders.epsilon_schedule(config, i)
        assert (given.start, given.decay_steps, given.hold_steps) == (
            wanted.start,
            wanted.decay_steps,
            wanted.hold_steps,
        )
        np.testing.assert_allclose(given.end, wanted.end)


def test_a_bundled_plan_by_hand():
    config, plan = planned("bundled")
    # two bundles, each an actor with its local replay and a learner; shards beside them on one machine
    assert plan.resources.workers == plan.resources.learner_processes == 2
    assert plan.resources.shard_holders == 2 and plan.shards_beside_learners
    assert plan.replays == (ReplayPlan(config.replay_capacity, config.envs_per_actor, plan.min_sample_size, None),) * 2
    assert plan.replay_warmup == config.learning_starts  # a bundle's replay feeds its own learner only
    assert plan.memory_steps == plan.actor_steps == plan.total_steps // 2
    assert plan.staleness_limit == 100 and plan.round_size == 1  # few learners: the auto threshold's floor
    assert plan.refresh_mode == "synchronous theta+ refresh"  # the local runtime


def test_a_global_replay_plan_by_hand():
    config, plan = planned("global replay")
    # 3 actors x 2 copies = 6 streams over 2 shards: even streams in shard 0, odd in shard 1, 3 each
    half = config.replay_capacity // 2
    assert [(m.capacity, m.streams) for m in plan.replays] == [(half, 3), (half, 3)]
    assert plan.routes[1] == (Route(0, (0,), (1,)), Route(1, (1,), (1,)))  # actor 1's streams 2 and 3
    assert plan.learner_replays == ((0, 1), (0, 1))  # every learner samples every shard
    assert plan.replay_warmup == config.learning_starts // 2 and plan.memory_steps == plan.total_steps // 2
    assert plan.resources.workers == 3 + 2 and plan.resources.learner_processes == 2
    assert plan.resources.shard_holders == 2  # min(N_learn, N_param)
    assert plan.resources.shards_per_holder == 2  # 3 shards over 2 holders


def test_a_plan_of_synchronous_rounds_on_ray_by_hand():
    config, plan = planned("synchronous rounds on ray")
    assert plan.round_size == 4  # one update averages the 4 bundles' gradients
    assert plan.resources.shard_threads == 4 + 2  # each learner waiting in its round, and two for the driver
    assert plan.synchronous_refresh and plan.refresh_mode == "synchronous theta+ refresh"
    assert plan.planned_updates == builders.planned_updates(config, MINATAR_INFO)
    assert plan.planned_updates == MINATAR_INFO.steps(config.total_frames) // config.update_every // 4
    assert plan.resources.runtime == "ray" and plan.resources.worker_cpus == config.worker_cpus


def test_an_epsilon_ladder_gives_each_actor_its_rung_and_a_joining_bundle_the_rung_of_n_mod_actors():
    config, plan = planned("epsilon ladder")
    rungs = [dqn.epsilon_ladder(i, 3, config.ladder_base, config.ladder_alpha) for i in range(3)]
    assert [schedule.end for schedule in plan.epsilon] == pytest.approx(rungs)
    assert plan.on_ladder and plan.epsilon_of(3) == plan.epsilon[0] and plan.epsilon_of(5) == plan.epsilon[2]
    assert all(schedule.hold_steps == config.learning_starts for schedule in plan.epsilon)  # each bundle's own


def test_a_plan_without_replay_has_no_memories_but_counts_the_bundles_for_saving():
    _, plan = planned("pqn")
    assert plan.replays == () and plan.replay_count == 2


def test_the_plan_and_its_resources_are_frozen():
    _, plan = planned("bundled")
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.staleness_limit = 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.resources.worker_cpus = 8.0
    assert isinstance(plan.bounds, tuple) and isinstance(plan.replays, tuple) and isinstance(plan.epsilon, tuple)


def test_counting_the_parameters_leaves_torchs_random_state_as_it_was():
    import torch

    torch.manual_seed(0)
    before = torch.get_rng_state()
    plan_run(build_config("cartpole"), CARTPOLE_INFO)
    assert torch.equal(torch.get_rng_state(), before)


def test_the_system_is_built_from_the_plan_not_from_the_config_again():
    """A plan whose values differ from what the config gives: every component gets the plan's."""
    preset, overrides, info = CONFIGS["global replay"]
    config = build_config(preset, overrides={**overrides, "runtime": "local", "hidden_sizes": "8"})
    plan = plan_run(config, info)
    changed = dataclasses.replace(
        plan,
        staleness_limit=7,
        replays=tuple(dataclasses.replace(memory, min_size=123) for memory in plan.replays),
        epsilon=tuple(dataclasses.replace(schedule, end=0.25) for schedule in plan.epsilon),
        synchronous_refresh=False,
        synchronous_when_holding_all=False,
    )
    runtime = LocalRuntime()
    try:
        system = topology.build_system(config, changed, runtime)
        assert [shard.max_staleness for shard in system.shards] == [7, 7, 7]
        assert [replay.min_size for replay in system.replays] == [123, 123]
        actor = system.workers[WorkerId("actor", 1)]
        assert actor.schedule.end == 0.25
        assert not system.workers[WorkerId(LEARNER.name, 0)].params.synchronous  # the config's would wait
    finally:
        runtime.shutdown()


def test_a_runtime_is_given_resources_not_the_config():
    from gorila.runtime.ray import RayRuntime

    assert list(inspect.signature(RayRuntime).parameters) == ["resources"]
    assert list(inspect.signature(LocalRuntime).parameters) == []
    local = runtime_resources(build_config("cartpole", overrides={"runtime": "local"}))
    assert isinstance(make_runtime(local), LocalRuntime)  # (what Ray reserves for each role: test_ray_placement.py)
