"""The actor's step count: what epsilon, the budget and the update ratio are counted in."""

import numpy as np
import pytest

from gorila.agent import dqn
from gorila.components.bundle import Bundle
from gorila.components.replay import ReplayMemory
from gorila.components.replay.routing import ReplayWriter, Route
from gorila.config import build_config
from gorila.messages import Report
from gorila.runtime.calls import DirectCalls
from gorila.system import builders
from gorila.system.agent_builders import reward_rule
from gorila.system.planning import plan_run
from tests.helpers import CARTPOLE_INFO


def one_copy_actor():
    config = build_config("cartpole", overrides={"envs_per_actor": 1, "runtime": "local"})
    theta, plan = builders.initial_parameters(config, CARTPOLE_INFO), plan_run(config, CARTPOLE_INFO)
    shards, bounds, calls = [builders.make_shard(config, plan, 0, theta)], [(0, theta.size)], DirectCalls()
    replay = ReplayMemory(1_000, 1, (4,), np.float32, min_size=1)
    writer = ReplayWriter([replay], [Route(0, (0,), (0,))], calls)
    return config, builders.make_actor(config, plan, 0, shards, bounds, calls, writer), replay


def test_the_step_that_only_resets_a_finished_episode_is_no_agent_step():
    _, actor, replay = one_copy_actor()
    taken = []
    while not actor.completed:  # play one whole episode
        taken.append(actor.step())
    assert taken == [1] * len(taken)
    assert actor.step() == 0  # the autoreset: its action is ignored
    assert actor.steps == len(taken) == actor.completed[0]  # CartPole's return is its length
    assert actor.step() == 1
    actor.writer.flush()
    assert len(replay) == len(taken) + 2  # the reset step still marks the episode's end in replay
    actor.close()


def test_a_bundle_credits_its_learner_with_agent_steps_only():
    config, actor, replay = one_copy_actor()
    plan, params = plan_run(config, CARTPOLE_INFO), actor.params
    learner = builders.make_learner(config, plan, 0, params.shards, params.bounds, DirectCalls(), replay)
    bundle = Bundle(actor, replay, learner, update_every=4)
    report = bundle.run(300)
    assert report.steps == actor.steps == 300
    assert bundle.update_credit == 300 % 4
    assert len(replay) == 300 + len(report.episode_returns)  # one reset entry per finished episode
    assert report.updates and report.q_count == report.updates * config.batch_size  # the learner's part
    actor.close()


def test_an_actor_reports_each_episodes_length_and_the_exploration_rate_of_its_steps():
    config, actor, _ = one_copy_actor()
    report = actor.run(300)
    assert report.steps == 300 and report.episode_lengths
    assert report.episode_lengths == tuple(int(r) for r in report.episode_returns)  # CartPole: return = length
    # one copy: the agent steps are 0, 1, ..., 299 of epsilon's schedule, each taken at its own epsilon
    expected = sum(
        dqn.linear_epsilon(s, config.epsilon_start, actor.schedule.end, config.epsilon_decay_steps) for s in range(300)
    )
    assert report.epsilon_sum == pytest.approx(expected)
    assert actor.report(0) == Report(process=report.process)  # the report took what it counted
    actor.close()


def test_learners_see_rewards_clipped_then_scaled_and_the_raw_ones_stay_for_the_returns():
    reward = np.array([-3.0, 0.5, 2.0])
    config = build_config("cartpole", overrides={"clip_rewards": True, "reward_scale": 0.1})
    np.testing.assert_allclose(reward_rule(config)(reward), [-0.1, 0.05, 0.1])
    plain = build_config("cartpole", overrides={"clip_rewards": False})
    assert reward_rule(plain)(reward) is reward
