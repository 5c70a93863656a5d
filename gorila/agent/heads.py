"""Rainbow's head (Hessel et al. 2018): per action, the logits of a return distribution on N atoms
(C51), optionally dueling over atoms and with noisy linear layers in place of the plain ones; and the
builder that puts it on any of the project's torsos.

The head fills the `head` slot of the networks in `networks` (MLP, Nature CNN, MinAtar's CNN, Impala),
so a distributional network has the same torso, and the same hidden layer width, as the DQN one.
"""

from __future__ import annotations

import functools

import torch
from torch import nn

from gorila.agent.distributional import NUM_ATOMS
from gorila.agent.networks import build_q_network, dueling, hidden_then_out
from gorila.agent.noisy import NoisyLinear


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
    ):
        super().__init__()
        self.num_actions, self.num_atoms, self.dueling = num_actions, num_atoms, dueling
        linear = NoisyLinear if noisy else nn.Linear
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
) -> nn.Module:
    """`build_q_network`'s network with a `DistributionalHead`: obs -> [B, A, N] logits (the names of
    `network` as there; a user's own network is refused, having its own head)."""
    head = functools.partial(DistributionalHead, num_atoms=num_atoms, noisy=noisy)
    return build_q_network(network, obs_shape, num_actions, hidden_sizes, dueling, layer_norm, head)
