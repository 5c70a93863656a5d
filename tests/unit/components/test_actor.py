"""The actor's step count: what epsilon, the budget and the update ratio are counted in."""
import numpy as np

from gorila.components.bundle import Bundle
from gorila.components.replay import ReplayMemory
from gorila.components.replay.routing import ReplayWriter, Route
from gorila.config import build_config
from gorila.contracts import EnvInfo
from gorila.runtime.calls import DirectCalls
from gorila.system import builders

CARTPOLE = EnvInfo((4,), "float32", 2, (4,), 1, 1, False)


def one_copy_actor():
    config = build_config("cartpole", overrides={"envs_per_actor": 1, "runtime": "local"})
    theta = builders.initial_parameters(config, CARTPOLE)
    shards, bounds, calls = [builders.make_shard(config, 0, theta)], [(0, theta.size)], DirectCalls()
    replay = ReplayMemory(1_000, 1, (4,), np.float32, min_size=1)
    writer = ReplayWriter([replay], [Route(0, (0,), (0,))], calls)
    return config, builders.make_actor(config, CARTPOLE, 0, shards, bounds, calls, writer), replay


def test_the_step_that_only_resets_a_finished_episode_is_no_agent_step():
    _, actor, replay = one_copy_actor()
    taken = []
    while not actor.completed:                  # play one whole episode
        taken.append(actor.step())
    assert taken == [1] * len(taken)
    assert actor.step() == 0                    # the autoreset: its action is ignored
    assert actor.steps == len(taken) == actor.completed[0]     # CartPole's return is its length
    assert actor.step() == 1
    actor.writer.flush()
    assert len(replay) == len(taken) + 2        # the reset step still marks the episode's end in replay
    actor.close()


def test_a_bundle_credits_its_learner_with_agent_steps_only():
    config, actor, replay = one_copy_actor()
    learner = builders.make_learner(config, CARTPOLE, 0, actor.params.shards, actor.params.bounds,
                                    DirectCalls(), replay)
    bundle = Bundle(actor, replay, learner, update_every=4)
    report = bundle.run(300)
    assert report.steps == actor.steps == 300
    assert bundle.update_credit == 300 % 4
    assert len(replay) == 300 + len(report.episode_returns)   # one reset entry per finished episode
    actor.close()
