"""PQN's parts (algorithm pqn): the rollout actor, the rollout learner and their bundle."""

import numpy as np
import pytest
import torch

from gorila.agent.q_lambda import q_lambda_targets
from gorila.components.bundle import RolloutBundle
from gorila.config import ConfigError, build_config
from gorila.runtime.calls import DirectCalls
from gorila.system import builders
from gorila.system.planning import plan_run
from tests.helpers import CARTPOLE_INFO, MINATAR_INFO


def pqn_bundle(**overrides) -> tuple:
    settings = {**dict(runtime="local", envs_per_actor=4, rollout_steps=40, torch_threads=1), **overrides}
    config = build_config("pqn-cartpole", overrides=settings)
    theta, plan = builders.initial_parameters(config, CARTPOLE_INFO), plan_run(config, CARTPOLE_INFO)
    shards, bounds = [builders.make_shard(config, plan, 0, theta)], [(0, theta.size)]
    return config, builders.make_bundle(config, plan, 0, shards, bounds, DirectCalls()), shards[0]


def test_a_rollout_keeps_each_step_and_the_bootstrap_the_actor_computed_for_it():
    config, bundle, _ = pqn_bundle()
    assert isinstance(bundle, RolloutBundle)
    rollout = bundle.actor.rollout()
    steps, copies = config.rollout_steps, config.envs_per_actor
    assert rollout.obs.shape == (steps, copies, 4) and rollout.next_max_q.shape == (steps, copies)
    assert rollout.lasts.any(), "40 steps of early CartPole end some episode"
    # the step after an episode's last only resets that copy: no agent step, no reward
    after_last = np.zeros_like(rollout.lasts)
    after_last[1:] = rollout.lasts[:-1]
    assert (rollout.acted == ~after_last).all()
    assert not rollout.rewards[~rollout.acted].any()
    assert rollout.steps == bundle.actor.steps == int(rollout.acted.sum())
    # max_a Q(s_{t+1}, a) under the parameters that acted, kept from choosing the next action
    with torch.no_grad():
        q = bundle.actor.network(torch.as_tensor(rollout.obs[1:].reshape(-1, 4)))
    recomputed = q.max(dim=-1).values.numpy().reshape(steps - 1, copies)
    assert rollout.next_max_q[:-1] == pytest.approx(recomputed, abs=1e-5)
    bundle.close()


def test_the_learner_makes_its_passes_of_minibatches_on_the_q_lambda_targets():
    config, bundle, shard = pqn_bundle()
    rollout = bundle.actor.rollout()
    expected = q_lambda_targets(
        *(torch.from_numpy(a) for a in (rollout.rewards, rollout.terminals, rollout.lasts, rollout.next_max_q)),
        config.gamma,
        config.q_lambda,
    )
    torch.testing.assert_close(bundle.learner.targets(rollout), expected.flatten())
    updates = bundle.learner.learn(rollout)
    assert updates == shard.version == config.rollout_epochs * config.rollout_minibatches
    report = bundle.learner.report(updates)
    assert report.q_count == config.rollout_epochs * rollout.steps  # every agent step once per pass
    bundle.close()


def test_targets_bootstrap_from_the_theta_the_learner_starts_with_once_another_bundle_moved_it():
    config, bundle, shard = pqn_bundle()
    rollout = bundle.actor.rollout()
    assert rollout.last_obs.shape == (config.envs_per_actor, 4)
    acted = q_lambda_targets(
        *(torch.from_numpy(a) for a in (rollout.rewards, rollout.terminals, rollout.lasts, rollout.next_max_q)),
        config.gamma,
        config.q_lambda,
    )
    bundle.learner.refresh()
    torch.testing.assert_close(bundle.learner.targets(rollout), acted.flatten())  # nothing moved theta+
    shard.apply(np.full(shard.theta.numel(), 0.5, np.float32), shard.version)  # another bundle's update
    bundle.learner.refresh()
    with torch.no_grad():
        ahead = np.concatenate([rollout.obs[1:].reshape(-1, 4), rollout.last_obs])
        current = bundle.learner.online(torch.as_tensor(ahead)).max(dim=1).values.reshape(rollout.acted.shape)
    assert not torch.allclose(current, torch.from_numpy(rollout.next_max_q), atol=1e-3)
    expected = q_lambda_targets(
        *(torch.from_numpy(a) for a in (rollout.rewards, rollout.terminals, rollout.lasts)),
        current,
        config.gamma,
        config.q_lambda,
    )
    torch.testing.assert_close(bundle.learner.targets(rollout), expected.flatten())
    bundle.learner.rollouts.rollout_bootstrap = "acted"  # PQN's reference: the acting Q-values whatever moved
    torch.testing.assert_close(bundle.learner.targets(rollout), acted.flatten())
    bundle.close()


@pytest.mark.parametrize("precision", ["float32", "bfloat16"])
def test_learning_from_a_rollout_brings_q_towards_its_targets(precision):
    _, bundle, _ = pqn_bundle(learning_rate=1e-3, learning_rate_decay=False, learner_precision=precision)
    rollout = bundle.actor.rollout()
    learner = bundle.learner
    assert learner.precision == precision
    targets = learner.targets(rollout).reshape(rollout.acted.shape)[torch.from_numpy(rollout.acted)]

    def error() -> float:
        learner.sync()
        with torch.no_grad():
            q = learner.online(torch.as_tensor(rollout.obs[rollout.acted]))
            taken = q.gather(1, torch.as_tensor(rollout.actions[rollout.acted]).unsqueeze(1)).squeeze(1)
        return float((taken - targets).square().mean())

    before = error()
    for _ in range(5):
        learner.learn(rollout)
    assert error() < 0.5 * before
    bundle.close()


def test_a_pqn_bundle_runs_whole_rollouts_and_reports_both_parts():
    config, bundle, shard = pqn_bundle()
    report = bundle.run(1)
    assert report.steps == bundle.actor.steps > 0
    assert report.updates == shard.version == config.rollout_epochs * config.rollout_minibatches
    assert report.loss_count == report.updates and report.replay_size is None
    assert not hasattr(bundle, "save_replay")  # it holds no replay memory, and says so by its type
    bundle.close()


def test_a_rollout_in_which_every_copy_only_resets_makes_no_update_and_the_bundle_goes_on():
    """One copy, one step per rollout: the rollout after an episode's last step holds no agent step
    (the copy only resets). A bundle's budget runs on past it, counting agent steps only, and the
    learner makes no update from it."""
    config, bundle, shard = pqn_bundle(envs_per_actor=1, rollout_steps=1)
    report = bundle.run(30)
    assert report.episode_returns, "30 steps of early CartPole end some episode"
    assert report.steps == bundle.actor.steps == 30
    assert report.updates == shard.version == config.rollout_epochs * 30  # one minibatch per pass
    while not bundle.actor.rollout().lasts.any():
        pass
    empty = bundle.actor.rollout()
    assert empty.steps == 0 and empty.acted.tolist() == [[False]]
    version = shard.version
    assert bundle.learner.learn(empty) == 0 and shard.version == version
    bundle.close()


def test_pqn_outside_bundles_is_refused_in_one_line():
    with pytest.raises(ConfigError, match="pqn runs in bundles only"):
        build_config("pqn", overrides={"bundled": False})


def test_the_planned_updates_count_what_each_algorithm_makes():
    pqn = build_config("pqn", overrides={"total_frames": 409_600})  # 100 rollouts of 128 x 32
    minatar = MINATAR_INFO
    assert builders.planned_updates(pqn, minatar) == 100 * 2 * 32
    dqn = build_config("minatar", overrides={"total_frames": 160_000})
    assert builders.planned_updates(dqn, minatar) == 160_000 // 16


@pytest.mark.parametrize("read_every, reads", [(1, True), (0, False)])
def test_an_actor_reads_theta_within_its_rollout_when_another_bundle_moves_it(read_every, reads):
    from gorila.agent.networks import flat_parameters

    config, bundle, shard = pqn_bundle(rollout_read_every=read_every)
    start = shard.pull()[0].copy()
    acting = bundle.actor.env.step

    def step_while_another_bundle_learns(actions):
        shard.apply(np.full(start.size, 0.01, np.float32), shard.version)  # its update lands meanwhile
        return acting(actions)

    bundle.actor.env.step = step_while_another_bundle_learns
    rollout = bundle.actor.rollout()
    acted_on = flat_parameters(bundle.actor.network)
    assert shard.version == config.rollout_steps
    if reads:  # the newest but one read (each read takes the answer to the one before)
        assert not np.allclose(acted_on, start) and not np.allclose(acted_on, shard.pull()[0])
    else:
        np.testing.assert_array_equal(acted_on, start)
    assert rollout.steps == int(rollout.acted.sum())
    bundle.close()


def test_an_actor_alone_loads_nothing_within_its_rollouts():
    config, bundle, shard = pqn_bundle(rollout_read_every=1)
    loads = []
    bundle.actor.parameters = Counted(bundle.actor.parameters, loads)
    bundle.actor.rollout()
    assert len(loads) == 1  # the rollout's first read; every later one found theta+ unmoved
    bundle.close()


class Counted(list):
    """The actor's parameter list, counting the loads into it (each load walks it once)."""

    def __init__(self, parameters, loads):
        super().__init__(parameters)
        self.loads = loads

    def __iter__(self):
        self.loads.append(1)
        return super().__iter__()
