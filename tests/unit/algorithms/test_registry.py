"""The registry of algorithms: a config names one, an unknown name is refused in one line naming the
known ones, and an algorithm registered from outside builds through the same path as DQN and PQN."""

from dataclasses import replace

import pytest

from gorila.algorithms import ALGORITHMS, DQN, UnknownAlgorithm, algorithm_named, algorithm_of, register
from gorila.components.bundle import Bundle, RolloutBundle
from gorila.config import ConfigError, build_config, validate
from gorila.config.presets import PRESETS, SHARED_BY_ACTORS
from gorila.runtime.calls import DirectCalls
from gorila.system import builders
from gorila.system.budget import describe_schedule
from gorila.system.planning import plan_run
from gorila.system.topology import describe_topology, replay_layout
from tests.helpers import CARTPOLE_INFO


def test_dqn_and_pqn_are_registered_with_their_presets():
    assert list(ALGORITHMS)[:2] == ["dqn", "pqn"]
    for name, algorithm in ALGORITHMS.items():
        assert algorithm.name == name
        assert all(PRESETS[preset] is values for preset, values in algorithm.presets.items())
    assert PRESETS["pqn"]["algorithm"] == "pqn" and "algorithm" not in PRESETS["cartpole"]
    assert "gorila-paper" not in SHARED_BY_ACTORS  # its bundles are whole DQN agents
    assert algorithm_of(build_config("pqn-cartpole")) is ALGORITHMS["pqn"]


def test_an_unknown_algorithm_is_refused_in_one_line_naming_the_known_ones():
    with pytest.raises(UnknownAlgorithm, match=r"^algorithm must be one of dqn, pqn.*, got 'sarsa'$"):
        algorithm_named("sarsa")
    with pytest.raises(ConfigError) as error:
        build_config("cartpole", overrides={"algorithm": "sarsa"})
    assert "\n" not in str(error.value) and "dqn, pqn" in str(error.value)


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="registered already"):
        register(DQN())


class HalfRate(DQN):
    """A toy algorithm: DQN's parts, one update per 2 * update_every agent steps, bundles only."""

    name = "half-rate"
    presets = {}
    bundle_shape = ("half-rate bundle", "actor + local replay + learner, half DQN's updates")
    built = 0

    def check(self, config):
        return None if config.bundled else "algorithm half-rate runs in bundles only"

    def gradients(self, config, steps):
        return steps // (2 * config.update_every)

    def bundle(self, parts, index, saved_replay=None):
        HalfRate.built += 1
        bundle = super().bundle(parts, index, saved_replay)
        bundle.update_every *= 2
        return bundle


@pytest.fixture
def half_rate():
    algorithm = register(HalfRate())
    yield algorithm
    del ALGORITHMS[algorithm.name]


def test_an_algorithm_registered_outside_builds_through_the_same_path(half_rate):
    config = validate(build_config("cartpole", overrides=dict(algorithm="half-rate", runtime="local")))
    with pytest.raises(ConfigError, match="half-rate runs in bundles only"):
        validate(replace(config, bundled=False))
    assert builders.planned_updates(config, CARTPOLE_INFO) == CARTPOLE_INFO.steps(config.total_frames) // 8
    plan = plan_run(config, CARTPOLE_INFO)
    assert describe_topology(config, plan).startswith("1 half-rate bundle (")
    assert "theta- every" in describe_schedule(config, plan)
    assert replay_layout(config) == [(config.replay_capacity, config.envs_per_actor)]  # its bundle's replay
    theta = builders.initial_parameters(config, CARTPOLE_INFO)
    shards, bounds = [builders.make_shard(config, plan, 0, theta)], [(0, theta.size)]
    bundle = builders.make_bundle(config, plan, 0, shards, bounds, DirectCalls())
    assert HalfRate.built == 1 and isinstance(bundle, Bundle) and bundle.update_every == 2 * config.update_every


def test_the_algorithm_decides_the_bundle_and_whether_replay_is_kept():
    pqn = build_config("pqn-cartpole", overrides=dict(envs_per_actor=2, rollout_steps=8, torch_threads=1))
    theta, plan = builders.initial_parameters(pqn, CARTPOLE_INFO), plan_run(pqn, CARTPOLE_INFO)
    shards, bounds = [builders.make_shard(pqn, plan, 0, theta)], [(0, theta.size)]
    assert isinstance(builders.make_bundle(pqn, plan, 0, shards, bounds, DirectCalls()), RolloutBundle)
    assert describe_topology(pqn, plan).startswith("1 PQN bundle (actor --rollouts--> learner, no replay)")
