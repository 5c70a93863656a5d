"""PQN's learner: Q(lambda) targets over a rollout, then `rollout_epochs` passes of
`rollout_minibatches` minibatches over it, each gradient sent to the parameter server and theta+ read
back before the next (Gallici et al. 2025); its builder hands it the config's PQN and DQN sections
(gamma, the Huber threshold and the gradient clip are DQN's fields). No replay memory, no theta-, no outlier filter.

The targets are computed once per rollout, as PQN computes them, from the Q-values the actor acted on
(the rollout's `next_max_q`), or, where other bundles moved theta+ since the rollout was acted, from
the theta+ the learner starts with (`rollout_bootstrap`); each minibatch's Q(s, a) is the current
theta+'s.
"""

from __future__ import annotations

import numpy as np
import torch

from gorila.agent import dqn
from gorila.agent.networks import computing_in, flat_gradients, load_flat_parameters, resolved_precision
from gorila.agent.q_lambda import q_lambda_targets
from gorila.components.rollouts import Rollout
from gorila.config.sections import DQNConfig, PQNConfig
from gorila.core import ParameterSource
from gorila.messages import Report


class RolloutLearner:
    """Learns from whole rollouts, pushing one gradient per minibatch to the parameter shards."""

    def __init__(
        self,
        network: torch.nn.Module,
        params: ParameterSource,
        *,
        pqn_config: PQNConfig,
        dqn_config: DQNConfig,
        seed: int,
        device: str = "cpu",
        precision: str = "float32",
    ):
        self.params, self.rollouts, self.rule = params, pqn_config, dqn_config
        self.rng = np.random.default_rng(seed)  # the minibatches' order
        self.device = torch.device(device)
        self.precision = resolved_precision(precision, self.device)  # of the forward passes (`computing_in`)
        self.online = network.to(self.device)
        self.online_parameters = list(self.online.parameters())
        self.losses: list[float] = []
        self.q_sum, self.q_count = 0.0, 0

    def sync(self, pulled=None) -> None:
        flat, _ = pulled or self.params.pull(prefetch=False)
        load_flat_parameters(self.online_parameters, flat)

    def refresh(self) -> None:
        """Read theta+ afresh, forgetting any refresh asked for earlier."""
        self.params.forget()
        self.sync()

    def targets(self, rollout: Rollout) -> torch.Tensor:
        """The Q(lambda) target of every step of `rollout`, flattened to [T * N]."""
        as_tensor = torch.from_numpy
        return q_lambda_targets(
            as_tensor(rollout.rewards),
            as_tensor(rollout.terminals),
            as_tensor(rollout.lasts),
            self.bootstraps(rollout),
            self.rule.gamma,
            self.rollouts.q_lambda,
        ).flatten()

    def bootstraps(self, rollout: Rollout) -> torch.Tensor:
        """max_a Q(s_{t+1}, a) of every step, [T, N]: the acting parameters' (`rollout_bootstrap`
        acted, or where nothing moved theta+ since the rollout began), else the theta+ this learner
        starts its passes from, in one forward pass over the rollout (other bundles moved it)."""
        moved = not np.array_equal(self.params.versions, rollout.versions)
        if self.rollouts.rollout_bootstrap == "acted" or not moved:
            return torch.from_numpy(rollout.next_max_q)
        steps, copies = rollout.next_max_q.shape
        following = rollout.obs[1:].reshape(-1, *rollout.obs.shape[2:])  # s_{t+1} of all steps but the last
        with torch.no_grad(), computing_in(self.precision, self.device):
            ahead = [
                self.online(torch.as_tensor(part, device=self.device)).float().max(dim=1).values
                for part in (following, rollout.last_obs)
            ]
        return torch.cat(ahead).reshape(steps, copies).cpu()

    def learn(self, rollout: Rollout) -> int:
        """`rollout_epochs` passes over the rollout's agent steps in `rollout_minibatches` shuffled
        minibatches; the updates made (none from a rollout in which every copy only reset)."""
        steps = np.flatnonzero(rollout.acted.reshape(-1))
        if not steps.size:
            return 0
        self.refresh()  # not a refresh asked for during the previous rollout
        on_device = lambda array: torch.as_tensor(array, device=self.device)
        obs = on_device(rollout.obs.reshape(-1, *rollout.obs.shape[2:]))
        actions, targets = on_device(rollout.actions.reshape(-1)), self.targets(rollout).to(self.device)
        parts = min(self.rollouts.rollout_minibatches, len(steps))
        updates = 0
        for _ in range(self.rollouts.rollout_epochs):
            for part in np.array_split(self.rng.permutation(steps), parts):
                index = on_device(part)
                self.update(obs[index], actions[index], targets[index])
                updates += 1
        return updates

    def update(self, obs: torch.Tensor, actions: torch.Tensor, targets: torch.Tensor) -> None:
        """One gradient of the loss of Q(s, a) against the fixed targets, to the shards and back."""
        with computing_in(self.precision, self.device):
            q_taken = dqn.taken_q(self.online(obs).float(), actions)
        loss = dqn.huber_loss(q_taken, targets, self.rule.huber_delta)
        for parameter in self.online_parameters:
            parameter.grad = None
        loss.backward()
        gradient = dqn.clip_norm(flat_gradients(self.online_parameters), self.rule.max_grad_norm)
        self.sync(self.params.push_and_pull(gradient.unsqueeze(0), self.params.versions.copy()))
        self.losses.append(float(loss.detach()))
        self.q_sum += float(q_taken.detach().sum())
        self.q_count += len(q_taken)

    def report(self, updates: int) -> Report:
        losses, self.losses = self.losses, []
        q_sum, q_count, self.q_sum, self.q_count = self.q_sum, self.q_count, 0.0, 0
        return Report(
            updates=updates, loss_sum=float(np.sum(losses)), loss_count=len(losses), q_sum=q_sum, q_count=q_count
        )
