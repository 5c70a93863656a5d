"""The one epsilon-greedy policy over a Q-network (`gorila.agent.policy`)."""

import numpy as np
import torch

from gorila.agent import dqn
from gorila.agent.policy import EpsilonGreedyPolicy


class Recording(torch.nn.Module):
    """Q-values that are a fixed function of the observation; records the batch sizes it is run on."""

    def __init__(self):
        super().__init__()
        self.batches = []

    def forward(self, obs):
        self.batches.append(len(obs))
        return torch.stack([obs[:, 0], -obs[:, 0], obs[:, 1]], dim=1)


def test_both_ways_draw_what_the_pure_functions_draw():
    obs = np.random.default_rng(0).normal(size=(32, 2)).astype(np.float32)
    q = Recording()(torch.as_tensor(obs)).numpy()
    expected = dqn.greedy_with_epsilon(q, 0.3, np.random.default_rng(5))
    for whole_batch in (False, True):
        policy = EpsilonGreedyPolicy(Recording(), 3, np.random.default_rng(5), whole_batch=whole_batch)
        assert (policy.act(obs, 0.3) == expected).all()


def test_by_default_the_network_runs_only_on_the_rows_that_exploit():
    obs = np.ones((16, 2), np.float32)
    network = Recording()
    policy = EpsilonGreedyPolicy(network, 3, np.random.default_rng(0))
    policy.act(obs, 1.0)
    assert network.batches == []  # every row explored: no forward pass
    policy.act(obs, 0.5)
    assert len(network.batches) == 1 and 0 < network.batches[0] < 16
    policy.act(obs, 0.0)
    assert network.batches[-1] == 16


def test_whole_batch_runs_the_network_on_every_observation():
    network = Recording()
    EpsilonGreedyPolicy(network, 3, np.random.default_rng(0), whole_batch=True).act(np.ones((16, 2), np.float32), 0.5)
    assert network.batches == [16]


class Flat(torch.nn.Module):
    """Q = 0 for every action: every greedy choice is a three-way tie."""

    def forward(self, obs):
        return torch.zeros((len(obs), 3))


def test_greedy_ties_are_broken_at_random_without_moving_the_exploration_draws():
    obs = np.ones((64, 2), np.float32)
    tied = EpsilonGreedyPolicy(Flat(), 3, np.random.default_rng(5)).act(obs, 0.3)
    plain = EpsilonGreedyPolicy(Recording(), 3, np.random.default_rng(5)).act(obs, 0.3)
    explore = np.random.default_rng(5).random(64) < 0.3  # the rows that explored, in both
    assert (tied[explore] == plain[explore]).all()
    assert set(tied[~explore].tolist()) == {0, 1, 2}  # not always the lowest index
    again = EpsilonGreedyPolicy(Flat(), 3, np.random.default_rng(5)).act(obs, 0.3)
    assert (again == tied).all()  # seeded
