"""Q-networks (MLP, Nature CNN, optional dueling head) and the flat-vector view of their parameters.

Parameters and gradients travel between components as one flat float32 vector;
`flat_parameters`, `load_flat_parameters` and `flat_gradients` are the only conversions.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn


class QHead(nn.Module):
    """Maps features to Q-values; dueling splits them into V(s) + A(s, a) - mean_a A(s, a)."""

    def __init__(self, features: int, num_actions: int, hidden: int, dueling: bool):
        super().__init__()
        self.dueling = dueling
        self.advantage = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, num_actions))
        if dueling:
            self.value = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        advantage = self.advantage(features)
        if not self.dueling:
            return advantage
        return self.value(features) + advantage - advantage.mean(dim=1, keepdim=True)


class MLPQNetwork(nn.Module):
    """Fully connected Q-network for vector observations (classic control)."""

    def __init__(self, obs_dim: int, num_actions: int, hidden_sizes=(128, 128), dueling: bool = False):
        super().__init__()
        layers, width = [], obs_dim
        for size in hidden_sizes[:-1]:
            layers += [nn.Linear(width, size), nn.ReLU()]
            width = size
        self.torso = nn.Sequential(nn.Flatten(), *layers)
        self.head = QHead(width, num_actions, hidden_sizes[-1], dueling)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.head(self.torso(obs.float()))


class NatureCNN(nn.Module):
    """The DQN network of Mnih et al. (2015) on 4x84x84 uint8 frames, scaled to [0, 1] inside."""

    def __init__(self, in_channels: int, num_actions: int, dueling: bool = False):
        super().__init__()
        self.torso = nn.Sequential(
            nn.Conv2d(in_channels, 32, 8, stride=4), nn.ReLU(),
            nn.Conv2d(32, 64, 4, stride=2), nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=1), nn.ReLU(),
            nn.Flatten(),
        )
        self.head = QHead(64 * 7 * 7, num_actions, 512, dueling)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        # Observations stay uint8 until here: the division is the network's first operation.
        return self.head(self.torso(obs.float() / 255.0))


def build_q_network(network: str, obs_shape: tuple, num_actions: int, hidden_sizes=(128, 128),
                    dueling: bool = False) -> nn.Module:
    """The Q-network a config asks for; `auto` means the Nature CNN for image stacks, else an MLP."""
    if network == "auto":
        network = "nature_cnn" if len(obs_shape) == 3 else "mlp"
    if network == "nature_cnn":
        if len(obs_shape) != 3:
            raise ValueError(f"the Nature CNN needs image observations (C, H, W), got shape {obs_shape}")
        return NatureCNN(obs_shape[0], num_actions, dueling)
    return MLPQNetwork(int(np.prod(obs_shape)), num_actions, tuple(hidden_sizes), dueling)


def q_network_for(config, info) -> nn.Module:
    """The Q-network an experiment's config asks for, shaped for its environment (an `EnvInfo`)."""
    return build_q_network(config.network, info.obs_shape, info.num_actions, config.hidden_sizes,
                           config.dueling)


def flat_parameters(model: nn.Module) -> np.ndarray:
    """theta as one float32 numpy vector (a copy)."""
    return torch.nn.utils.parameters_to_vector(model.parameters()).detach().cpu().numpy().astype(np.float32)


def load_flat_parameters(model: nn.Module, flat: np.ndarray) -> None:
    """Overwrite the model's parameters from a flat vector made by `flat_parameters`."""
    vector = torch.as_tensor(np.asarray(flat, dtype=np.float32))
    device = next(model.parameters()).device
    torch.nn.utils.vector_to_parameters(vector.to(device), model.parameters())


def flat_gradients(model: nn.Module) -> np.ndarray:
    """The gradient of every parameter, concatenated in parameter order (zeros where none)."""
    parts = [p.grad.reshape(-1) if p.grad is not None else torch.zeros(p.numel(), device=p.device)
             for p in model.parameters()]
    return torch.cat(parts).detach().cpu().numpy().astype(np.float32)


def num_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
