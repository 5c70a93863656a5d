"""Rainbow's head (Hessel et al. 2018): per action, the logits of a return distribution on N atoms
(C51), optionally dueling over atoms and with noisy linear layers in place of the plain ones; the
builder that puts it on any of the project's torsos; and `DistributionalQNetwork`, the network an
actor acts with as with any Q-network (it gives Q-values) and a learner reads the logits of.

The head fills the `head` slot of the networks in `networks` (MLP, Nature CNN, MinAtar's CNN, Impala),
so a distributional network has the same torso, and the same hidden layer width, as the DQN one.
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from gorila.agent import distributional
from gorila.agent.distributional import NUM_ATOMS
from gorila.agent.networks import build_q_network, dueling, hidden_then_out
from gorila.agent.noisy import SIGMA_0, NoisyLinear, resample_noise


class DistributionalHead(nn.Module):
    """Maps features [B, F] to logits [B, A, N]; the softmax over the last axis is each action's return
    distribution. Dueling adds a value stream of N logits to the advantage stream less its mean over
    actions, atom by atom, before the softmax (Rainbow's dueling over atoms). `noisy` builds both dense
    layers of every stream as `NoisyLinear`."""

    def __init__(
        self,
        features: int,
        num_actions: int,
        hidden: int,
        dueling: bool = False,
        layer_norm: bool = False,
        *,
        num_atoms: int = NUM_ATOMS,
        noisy: bool = False,
        sigma_0: float = SIGMA_0,
    ):
        super().__init__()
        self.num_actions, self.num_atoms, self.dueling = num_actions, num_atoms, dueling
        linear = functools.partial(NoisyLinear, sigma_0=sigma_0) if noisy else nn.Linear
        self.advantage = hidden_then_out(features, hidden, num_actions * num_atoms, layer_norm, linear)
        if dueling:
            self.value = hidden_then_out(features, hidden, num_atoms, layer_norm, linear)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        advantage = self.advantage(features).view(-1, self.num_actions, self.num_atoms)
        if not self.dueling:
            return advantage
        return dueling(self.value(features).view(-1, 1, self.num_atoms), advantage)


def build_distributional_network(
    network,
    obs_shape: tuple,
    num_actions: int,
    num_atoms: int = NUM_ATOMS,
    hidden_sizes=(128, 128),
    dueling: bool = False,
    noisy: bool = False,
    layer_norm: bool = False,
    sigma_0: float = SIGMA_0,
) -> nn.Module:
    """`build_q_network`'s network with a `DistributionalHead`: obs -> [B, A, N] logits (the names of
    `network` as there; a user's own network is refused, having its own head)."""
    head = functools.partial(DistributionalHead, num_atoms=num_atoms, noisy=noisy, sigma_0=sigma_0)
    return build_q_network(network, obs_shape, num_actions, hidden_sizes, dueling, layer_norm, head)


class DistributionalQNetwork(nn.Module):
    """A distributional network (`build_distributional_network`) on the support `atoms`: called, it
    gives each action's Q-value, the mean of its return distribution, so that actors, evaluations and
    reports act with it as with any Q-network; a learner reads its `logits`. A network with noisy
    layers draws new noise at every pass in training mode and uses none in evaluation mode (`eval()`)."""

    def __init__(self, body: nn.Module, atoms: torch.Tensor):
        super().__init__()
        self.body = body
        self.register_buffer("atoms", atoms, persistent=False)  # fixed: not a parameter, not in theta
        self.noisy = any(isinstance(module, NoisyLinear) for module in body.modules())

    def logits(self, obs: torch.Tensor) -> torch.Tensor:
        """[B, A, N] logits; the softmax over the last axis is each action's return distribution."""
        if self.noisy and self.training:
            resample_noise(self.body)
        return self.body(obs)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return distributional.q_values(self.logits(obs), self.atoms)


def distributional_q_network(config, info) -> DistributionalQNetwork:
    """The network of an experiment's config with the distributional head its Rainbow section asks for
    (`num_atoms` on [v_min, v_max], `noisy` layers of `noisy_sigma0`), shaped for its environment."""
    body = build_distributional_network(
        config.network,
        info.obs_shape,
        info.num_actions,
        config.num_atoms,
        config.hidden_sizes,
        config.dueling,
        config.noisy,
        config.layer_norm,
        config.noisy_sigma0,
    )
    return DistributionalQNetwork(body, distributional.support(config.v_min, config.v_max, config.num_atoms))
