"""Rainbow's learner: its loss on a minibatch worked by hand (the projection of a one-step target on a
three-atom support), the priorities it sends back, and the gradient that lowers the loss."""

import numpy as np
import pytest
import torch
from torch import nn

from gorila.agent.heads import DistributionalQNetwork
from gorila.components.distributional_learner import DistributionalLearner
from gorila.config.sections import DQNConfig, ParameterServerConfig
from gorila.messages import Minibatch


class FixedLogits(nn.Module):
    """obs -> the same logits for every observation: [1, A, N] learnt biases, A = 2 actions, N = 3 atoms."""

    def __init__(self, logits):
        super().__init__()
        self.logits = nn.Parameter(torch.tensor(logits, dtype=torch.float32)[None])

    def forward(self, obs):
        return self.logits.expand(len(obs), -1, -1)


class Priorities:
    """The replay side of a prioritised minibatch: what the learner sends back."""

    def update_priorities(self, streams, indices, values):
        self.sent = (streams, indices, np.asarray(values))


def learner_with(logits, double_dqn=False):
    atoms = torch.tensor([-1.0, 0.0, 1.0])
    network = DistributionalQNetwork(FixedLogits(logits), atoms)
    return DistributionalLearner(
        network,
        params=None,
        replay=Priorities(),
        dqn_config=DQNConfig(double_dqn=double_dqn),
        server_config=ParameterServerConfig(),
    )


def minibatch(rewards, discounts, actions):
    count = len(rewards)
    return Minibatch(
        obs=np.zeros((count, 1), np.float32),
        actions=np.asarray(actions, np.int64),
        returns=np.asarray(rewards, np.float32),
        discounts=np.asarray(discounts, np.float32),
        next_obs=np.zeros((count, 1), np.float32),
        weights=None,
        streams=np.zeros(count, np.int64),
        indices=np.arange(count),
    )


def test_the_loss_is_the_cross_entropy_to_the_projected_target_worked_by_hand():
    # Action 1's distribution is all on atom +1 (Q = 1), action 0's uniform (Q = 0): a* = 1 in s'.
    big = 30.0
    learner = learner_with([[0.0, 0.0, 0.0], [-big, -big, big]])
    # r = 0.5, discount 0.5: T z_j = 0.5 + 0.5 * z_j; a* puts all its mass on z = +1 -> T z = 1.0, atom +1.
    # r = -0.25, discount 0 (terminal): all the mass at -0.25: 0.25 on atom -1, 0.75 on atom 0.
    batch = minibatch([0.5, -0.25], [0.5, 0.0], [0, 0])
    terms = learner.loss(batch)
    log_uniform = np.log(1 / 3)
    expected = np.array([-log_uniform, -(0.25 + 0.75) * log_uniform])  # action 0 is uniform: -log(1/3) each
    np.testing.assert_allclose(terms.priorities, expected, rtol=1e-5)
    assert float(terms.loss.detach()) == pytest.approx(expected.mean(), rel=1e-5)
    np.testing.assert_allclose(terms.q_taken.numpy(), [0.0, 0.0], atol=1e-6)  # action 0's mean
    np.testing.assert_allclose(terms.abs_errors, [1.0, 0.25], rtol=1e-5)  # |E[target] - Q(s, a)|


def test_a_gradient_step_moves_the_taken_actions_distribution_toward_its_target():
    learner = learner_with([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    batch = minibatch([1.0, 1.0], [0.0, 0.0], [0, 0])  # terminal, all the mass on atom +1
    loss, abs_error, gradient = learner.gradient(batch)
    assert abs_error == pytest.approx(1.0)
    grad = gradient.view(2, 3)
    assert grad[1].abs().max() == 0  # the action not taken is not touched
    assert grad[0, 2] < 0 < grad[0, 0]  # descending raises atom +1's logit, lowers atom -1's
    streams, indices, priorities = learner.replay.sent
    np.testing.assert_allclose(priorities, [np.log(3)] * 2, rtol=1e-5)  # the cross-entropies go back
    with torch.no_grad():
        learner.online.body.logits -= 0.5 * grad[None]
    assert float(learner.loss(batch).loss.detach()) < loss


@pytest.mark.parametrize("double_dqn, error", [(True, 1.0), (False, 2.0)])
def test_double_q_learning_bootstraps_from_the_online_networks_choice(double_dqn, error):
    # theta- (the copy made at construction): action 0 uniform (Q = 0), action 1 all on +1 (Q = 1).
    learner = learner_with([[0.0, 0.0, 0.0], [-30.0, -30.0, 30.0]], double_dqn)
    with torch.no_grad():  # theta+ moves on: action 0 all on +1 (Q = 1), action 1 all on -1 (Q = -1)
        learner.online.body.logits.copy_(torch.tensor([[[-30.0, -30.0, 30.0], [30.0, -30.0, -30.0]]]))
    terms = learner.loss(minibatch([0.0], [1.0], [1]))  # Q(s, 1) = -1
    # double: a* = 0 by theta+, theta-'s uniform distribution of it, mean 0; C51: a* = 1 by theta-, mean +1
    assert terms.abs_errors[0] == pytest.approx(error, abs=1e-4)
