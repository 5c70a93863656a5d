"""The driver's copy of the shards' states: what it gives a restarted shard, what it says it gave, and
the first states it keeps (theta_0's, or the resumed ones) computed as the shards compute them."""

import numpy as np
import torch

from gorila.config import build_config
from gorila.runtime.local import LocalRuntime
from gorila.system.builders import first_shard_states, initial_parameters, make_shard, make_shard_of, parameter_bounds
from gorila.system.planning import plan_run
from gorila.system.shard_states import Restored, ShardStates
from tests.helpers import CARTPOLE_INFO

CONFIG = build_config(overrides=dict(env="CartPole-v1", runtime="local", hidden_sizes="8", param_shards=2))
PLAN = plan_run(CONFIG, CARTPOLE_INFO)


def shards_and_states():
    """Two shards of theta_0 and the state of each after one gradient of ones."""
    bounds = parameter_bounds(CONFIG, initial_parameters(CONFIG, CARTPOLE_INFO).size)
    states, _ = first_shard_states(CONFIG, PLAN, bounds)
    ahead = [make_shard(CONFIG, PLAN, i, s["theta"].numpy()) for i, s in enumerate(states)]
    for shard in ahead:
        shard.apply(np.ones(shard.theta.numel(), np.float32), 0)
    fresh = [make_shard(CONFIG, PLAN, i, s["theta"].numpy()) for i, s in enumerate(states)]
    return fresh, [shard.state() for shard in ahead], bounds


def test_a_restarted_shard_is_given_the_last_state_kept_and_the_driver_is_told():
    shards, states, _ = shards_and_states()
    kept = ShardStates(LocalRuntime(), shards, states, 100)
    newer = [dict(s, version=7) for s in states]
    kept.keep(newer, 300)
    kept.give_back(1, ("node", 42))
    assert shards[1].version == 7 and torch.equal(shards[1].theta, states[1]["theta"])
    assert shards[0].version == 0  # only the restarted one
    assert kept.restored() == [Restored(1, ("node", 42), 300, version=7)] and kept.restored() == []


def test_a_state_that_does_not_fit_is_reported_not_raised_in_the_watchs_thread():
    shards, states, _ = shards_and_states()
    cut = dict(states[0], theta=states[0]["theta"][:3])  # another network's slice
    kept = ShardStates(LocalRuntime(), shards, [cut, states[1]], 0)
    kept.give_back(0, ("node", 1))
    [restored] = kept.restored()
    assert restored.index == 0 and "ValueError: shard 0: saved slice has" in restored.error


def test_without_first_states_nothing_is_kept_or_watched():
    kept = ShardStates(LocalRuntime(), [], None)
    assert kept.latest is None and kept.restored() == []
    kept.give_all()  # nothing to give, nothing called


def test_first_states_are_what_the_shards_start_from_or_the_resumed_ones():
    bounds = parameter_bounds(CONFIG, initial_parameters(CONFIG, CARTPOLE_INFO).size)
    states, frames = first_shard_states(CONFIG, PLAN, bounds)
    assert frames == 0
    for index, ((start, stop), state) in enumerate(zip(bounds, states)):
        built = make_shard_of(CONFIG, PLAN, index, start, stop).state()
        assert torch.equal(state["theta"], built["theta"]) and torch.equal(state["target"], built["target"])
        assert state["version"] == 0 and state["optimizer"].keys() == built["optimizer"].keys()
    resume = {"shards": [{"version": 5}], "env_frames": 640}
    assert first_shard_states(CONFIG, PLAN, bounds, resume) == ([{"version": 5}], 640)
