"""Rainbow as an algorithm of the registry: its presets, its checks, and its workers built through
DQN's path with its own network and learner, in bundles and outside them."""

from dataclasses import replace

import numpy as np
import pytest

from gorila.agent.heads import DistributionalQNetwork
from gorila.algorithms import ALGORITHMS, algorithm_of
from gorila.components.distributional_learner import DistributionalLearner
from gorila.components.learner import Learner
from gorila.components.replay import ReplayMemory
from gorila.config import ConfigError, build_config, validate
from gorila.config.presets import PRESETS, SHARED_BY_ACTORS
from gorila.runtime.calls import DirectCalls
from gorila.system import builders
from gorila.system.budget import describe_schedule
from gorila.system.planning import plan_run
from tests.helpers import CARTPOLE_INFO

CARTPOLE_RAINBOW = dict(algorithm="rainbow", runtime="local", v_min=0.0, v_max=100.0, num_atoms=11)


def test_rainbow_is_registered_with_its_presets():
    rainbow = ALGORITHMS["rainbow"]
    assert set(rainbow.presets) == {"rainbow", "rainbow-dopamine", "rainbow-minatar", "rainbow-cartpole"}
    for name in rainbow.presets:
        config = validate(build_config(name))
        assert algorithm_of(config) is rainbow and config.num_atoms == 51
        assert SHARED_BY_ACTORS[name] == SHARED_BY_ACTORS["atari"]  # shared among bundles as DQN's are
    assert PRESETS["rainbow"]["noisy"] and PRESETS["rainbow"]["epsilon_end"] == 0.0
    assert not PRESETS["rainbow-dopamine"]["noisy"] and PRESETS["rainbow-dopamine"]["sticky_actions"] == 0.25


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(v_min=5.0, v_max=5.0), r"v_min must be below v_max .*got \[5, 5\]"),
        (dict(network="tests.helpers:tiny_network"), "built-in network"),
        (dict(weight_init="he_normal"), "weight_init he_normal"),
        (dict(num_atoms=1), "num_atoms must be >= 2, got 1"),
    ],
)
def test_what_rainbow_cannot_run_is_refused_in_one_line(overrides, message):
    with pytest.raises(ConfigError, match=message) as error:
        build_config("cartpole", overrides={**CARTPOLE_RAINBOW, **overrides})
    assert "\n" not in str(error.value)


def shards_for(config):
    theta = builders.initial_parameters(config, CARTPOLE_INFO)
    return [builders.make_shard(config, plan_run(config, CARTPOLE_INFO), 0, theta)], [(0, theta.size)]


def test_a_rainbow_bundle_has_dqns_actor_and_replay_and_the_distributional_learner():
    config = validate(build_config("cartpole", overrides=CARTPOLE_RAINBOW))
    shards, bounds = shards_for(config)
    bundle = builders.make_bundle(config, plan_run(config, CARTPOLE_INFO), 0, shards, bounds, DirectCalls())
    assert type(bundle.learner) is DistributionalLearner
    assert isinstance(bundle.actor.network, DistributionalQNetwork)
    assert bundle.run(2_000).steps >= 2_000  # acts, writes its replay and learns past the warm-up
    assert bundle.learner.updates > 0 and shards[0].stats()["version"] > 0
    assert "return distributions on 11 atoms in [0, 100]" in describe_schedule(config, plan_run(config, CARTPOLE_INFO))


def test_outside_bundles_rainbows_learner_samples_any_replay():
    config = validate(build_config("cartpole", overrides=dict(CARTPOLE_RAINBOW, bundled=False)))
    shards, bounds = shards_for(config)
    replay = ReplayMemory(1_000, 1, (4,), np.float32, seed=0, min_size=1)
    for step in range(100):
        replay.add([0], np.full((1, 4), step / 100, np.float32), [step % 2], [1.0], [False], [False])
    learner = builders.make_learner(config, plan_run(config, CARTPOLE_INFO), 0, shards, bounds, DirectCalls(), replay)
    assert type(learner) is DistributionalLearner
    assert learner.run(3).updates == 3 and shards[0].stats()["version"] == 3
    as_dqn = replace(config, algorithm="dqn")
    dqn = builders.make_learner(as_dqn, plan_run(as_dqn, CARTPOLE_INFO), 0, shards, bounds, DirectCalls(), replay)
    assert type(dqn) is Learner
