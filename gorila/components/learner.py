"""The Gorila learner: sample a minibatch, compute the DQN gradient against theta-, send it on.

The learner never applies its gradient: the parameter-server shards do (Nair et al. 2015, section 4).
It refreshes its copy of theta+ every `sync_every` updates (the config's `learner_sync_every`) and its
theta- whenever the server reports a new target version, and it drops gradients whose loss is an outlier.
Its builder (`gorila.system.agent_builders`) hands it the config's DQN and parameter-server sections.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
import torch

from gorila.agent import dqn
from gorila.agent.networks import computing_in, flat_gradients, load_flat_parameters, resolved_precision
from gorila.config.sections import DQNConfig, ParameterServerConfig
from gorila.core import MinibatchSource, ParameterSource
from gorila.messages import Minibatch, Report


@dataclass(frozen=True)
class LossTerms:
    """What a learner's loss gives for one minibatch: the loss to differentiate (a scalar tensor), the
    taken actions' Q(s, a) (detached, [B]; summed for the report), each transition's new priority for
    a prioritised replay (|delta| for DQN) and its absolute TD error |y - Q(s, a)| (the outlier test's
    statistic), both float32 numpy [B]."""

    loss: torch.Tensor
    q_taken: torch.Tensor
    priorities: np.ndarray
    abs_errors: np.ndarray


class LossOutlierFilter:
    """Running mean and standard deviation of the absolute DQN loss; flags one more than k std above the mean.

    The statistic is the paper's (Nair et al. 2015, section 4: "a running average and standard
    deviation of the absolute DQN loss"): a minibatch's mean |y - Q(s, a)|, not its Huber loss, whose
    square inside the clip makes the rare minibatches that hold a reward stand out further.

    An outlier is folded into the statistics clipped to the band's edge: one huge loss cannot widen
    the band much, yet a loss that keeps growing (Q-values do as they learn) moves the band with it
    instead of freezing it and dropping every later gradient.
    """

    def __init__(self, k: float, warmup: int, decay: float = 0.99):
        self.k, self.warmup, self.decay = k, warmup, decay
        self.count, self.mean, self.var = 0, 0.0, 0.0

    def is_outlier(self, loss: float) -> bool:
        if not math.isfinite(loss):
            return True
        if self.k and self.count >= self.warmup:
            edge = self.mean + self.k * math.sqrt(self.var)
            if loss > edge:
                self._observe(edge)
                return True
        self._observe(loss)
        return False

    def _observe(self, loss: float) -> None:
        self.count += 1
        if self.count <= self.warmup:  # plain average while warming up
            delta = loss - self.mean
            self.mean += delta / self.count
            self.var += (delta * (loss - self.mean) - self.var) / self.count
        else:
            delta = loss - self.mean
            self.mean += (1 - self.decay) * delta
            self.var = self.decay * (self.var + (1 - self.decay) * delta * delta)


class Learner:
    """Computes DQN gradients from minibatches of a replay and pushes them to the parameter server."""

    def __init__(
        self,
        network: torch.nn.Module,
        params: ParameterSource,
        replay: MinibatchSource,
        *,
        dqn_config: DQNConfig,
        server_config: ParameterServerConfig,
        device: str = "cpu",
        hosted_shards: dict | None = None,
        precision: str = "float32",
    ):
        self.hosted_shards = hosted_shards or {}  # index -> ParameterShard held in this process
        self.params, self.replay, self.rule = params, replay, dqn_config
        self.sync_every, self.push_every = server_config.learner_sync_every, server_config.push_every
        self.outliers = LossOutlierFilter(server_config.outlier_k, server_config.outlier_warmup)
        self.device = torch.device(device)
        self.precision = resolved_precision(precision, self.device)  # of the forward passes (`computing_in`)
        self.online = network.to(self.device)
        self.target = copy.deepcopy(self.online).requires_grad_(False)
        # Kept as lists: walking a module for its parameters on every update costs more than a small
        # network's update.
        self.online_parameters = list(self.online.parameters())
        self.target_parameters = list(self.target.parameters())
        self.updates = 0
        self.dropped = 0
        self.outbox: list[torch.Tensor] = []  # gradients waiting to travel together (push_every)
        self.outbox_versions = None
        self.losses: list[float] = []
        # Q(s, a) summed on the learner's device: adding to it makes the GPU wait for nothing; the
        # report reads it once per budget, not once per update.
        self.q_sum = torch.zeros((), device=self.device)
        self.q_count = 0
        # theta+ is first read at the first update, not here: a learner that holds shards is built while
        # the others are, and none may wait for another's constructor.
        self.synced = False

    def sync(self, pulled: tuple | None = None) -> None:
        """Copy theta+ from the server, and theta- when the server has refreshed it.

        Pipelined (`learner_refresh`), the pull is prefetched: the learner takes the parameters it asked
        for at its previous refresh and asks for the next ones, so the server is never on its critical
        path; synchronous, it waits for the newest.
        """
        flat, target_changed = pulled or self.params.pull(prefetch=not self.params.synchronous)
        load_flat_parameters(self.online_parameters, flat)
        if target_changed:
            load_flat_parameters(self.target_parameters, self.params.pull_target())
        self.synced = True

    def refresh(self) -> None:
        """Read theta+ and theta- afresh, forgetting any refresh asked for earlier (the shards in this
        process were just given their states after a restart)."""
        self.params.forget()
        self.sync()
        load_flat_parameters(self.target_parameters, self.params.pull_target())

    def tensor(self, array) -> torch.Tensor:
        """A minibatch's array on the learner's device."""
        return torch.as_tensor(array, device=self.device)

    def loss(self, batch: Minibatch) -> LossTerms:
        """The DQN loss (`loss_reduction`) of one minibatch against y = R + discount * Q_target(s', a*),
        theta- fixed, and each transition's |delta| = |y - Q(s, a)|. An algorithm with another loss
        (Rainbow's `DistributionalLearner`) gives its own terms here; the rest of the update is shared."""
        obs, next_obs = self.tensor(batch.obs), self.tensor(batch.next_obs)
        with torch.no_grad():  # .float(): a bfloat16 forward pass's outputs back to float32 (`precision`)
            next_q_target = self.target(next_obs).float()
            next_q_online = self.online(next_obs).float() if self.rule.double_dqn else None
            targets = dqn.td_targets(
                self.tensor(batch.returns), self.tensor(batch.discounts), next_q_target, next_q_online
            )
        q_online, actions = self.online(obs).float(), self.tensor(batch.actions)
        q_taken = dqn.taken_q(q_online, actions)
        weights = None if batch.weights is None else self.tensor(batch.weights)
        loss = dqn.taken_q_loss(q_taken, targets, self.rule.huber_delta, self.rule.loss_reduction, weights)
        errors = dqn.td_errors(q_online, actions, targets)
        return LossTerms(loss, q_taken.detach(), errors, errors)

    def gradient(self, batch: Minibatch) -> tuple[float, float, torch.Tensor]:
        """Mean loss per transition, mean absolute TD error |y - Q(s, a)| (the outlier test's statistic)
        and flat gradient (a tensor on the learner's device) of the loss (`loss`) on one minibatch; a
        prioritised minibatch's loss is weighted by its importance-sampling weights, and its entries' new
        priorities go back to the replay as soon as they are known. The minibatch's Q(s, a) are added
        up for the report."""
        with computing_in(self.precision, self.device):
            terms = self.loss(batch)
        self.q_sum += terms.q_taken.sum()
        self.q_count += len(batch)
        for parameter in self.online_parameters:
            parameter.grad = None
        terms.loss.backward()
        if batch.streams is not None:  # prioritised: the new priorities go back to the memory that gave them
            self.replay.update_priorities(batch.streams, batch.indices, terms.priorities)
        per_transition = float(terms.loss.item()) / (len(batch) if self.rule.loss_reduction == "sum" else 1)
        return (
            per_transition,
            float(terms.abs_errors.mean()),
            dqn.clip_norm(flat_gradients(self.online_parameters), self.rule.max_grad_norm),
        )

    def update(self) -> int:
        """One learner step: the number of updates made, 1, or 0 while the replay cannot give a
        minibatch yet."""
        batch = self.replay.sample(self.rule.batch_size)
        if batch is None:
            return 0
        if not self.synced:
            self.sync()
        loss, abs_error, grad = self.gradient(batch)
        self.updates += 1
        if self.outliers.is_outlier(abs_error) or not math.isfinite(loss):
            self.dropped += 1
        else:
            self.losses.append(loss)
            if not self.outbox:
                self.outbox_versions = self.params.versions.copy()  # what these gradients were computed on
            self.outbox.append(grad)
        refresh = self.updates % self.sync_every == 0
        if refresh or len(self.outbox) >= self.push_every:
            self.send(refresh)
        return 1

    def send(self, refresh: bool) -> None:
        """Push the waiting gradients (one message per shard); refresh theta+ in the same round trip."""
        if not self.outbox:
            if refresh:
                self.sync()
            return
        gradients, self.outbox = torch.stack(self.outbox), []
        if refresh:
            self.sync(self.params.push_and_pull(gradients, self.outbox_versions))
        else:
            self.params.push(gradients, self.outbox_versions)

    def run(self, budget: int) -> Report:
        """Up to `budget` updates (fewer while the replay is warming up); a report for the driver."""
        done = 0
        while done < budget and self.update():
            done += 1
        self.send(refresh=False)
        return self.report(done)

    def report(self, updates: int) -> Report:
        losses, self.losses = self.losses, []
        dropped, self.dropped = self.dropped, 0
        q_sum, q_count, self.q_count = float(self.q_sum), self.q_count, 0
        self.q_sum.zero_()
        return Report(
            updates=updates,
            loss_sum=float(np.sum(losses)),
            loss_count=len(losses),
            dropped_outliers=dropped,
            q_sum=q_sum,
            q_count=q_count,
        )
