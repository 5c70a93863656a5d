"""Rainbow's learner (Hessel et al. 2018): Gorila's learner with the distributional loss of C51.

Everything but the loss is Gorila's `Learner`: minibatches from replay, the gradient sent to the
parameter-server shards, theta+ and theta- refreshed from them, outliers dropped. The loss is the
cross-entropy between the predicted return distribution of (s, a) and the categorical projection of
R + discount * Z_target(s', a*) (`gorila.agent.distributional`), a* chosen by the online network's
Q-values where `double_dqn` is on (Rainbow's double Q-learning), else by theta-'s (C51's).
"""

from __future__ import annotations

import numpy as np
import torch

from gorila.agent import distributional
from gorila.components.learner import Learner, LossTerms
from gorila.messages import Minibatch


class DistributionalLearner(Learner):
    """A `Learner` whose network is a `DistributionalQNetwork` and whose loss is C51's. The priority a
    prioritised replay is given is each transition's cross-entropy (Rainbow's choice); the outlier
    test's statistic stays |y - Q(s, a)|, with y the mean of the projected target."""

    def loss(self, batch: Minibatch) -> LossTerms:
        atoms = self.online.atoms
        obs, next_obs, actions = self.tensor(batch.obs), self.tensor(batch.next_obs), self.tensor(batch.actions)
        with torch.no_grad():
            next_target = self.target.logits(next_obs).float()  # float32 after a bfloat16 forward (`precision`)
            next_online = self.online.logits(next_obs).float() if self.rule.double_dqn else None
            returns, discounts = self.tensor(batch.returns), self.tensor(batch.discounts)
            targets = distributional.categorical_targets(returns, discounts, next_target, atoms, next_online)
        taken = distributional.taken_logits(self.online.logits(obs).float(), actions)
        losses = distributional.cross_entropies(taken, targets)
        weighted = losses if batch.weights is None else losses * self.tensor(batch.weights)
        loss = weighted.sum() if self.rule.loss_reduction == "sum" else weighted.mean()
        q_taken = distributional.expected_q(taken.detach().softmax(dim=-1), atoms)
        errors = (distributional.expected_q(targets, atoms) - q_taken).abs()
        return LossTerms(loss, q_taken, as_numpy(losses), as_numpy(errors))


def as_numpy(values: torch.Tensor) -> np.ndarray:
    return values.detach().cpu().numpy().astype(np.float32)
