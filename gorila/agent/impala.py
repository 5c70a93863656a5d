"""The torso of the Impala network (Espeholt et al. 2018, "IMPALA", Figure 3's deep network): a small
ResNet that Rainbow's later implementations (Dopamine, CleanRL) use on Atari in place of the Nature CNN.

Three stages of channels 16, 32, 32, each a 3x3 convolution, a 3x3 max-pool of stride 2 and two
residual blocks (x + conv(relu(conv(relu(x))))), then a ReLU. Every convolution and pool pads by one,
so a stage keeps the frame's size until its pool, which halves it rounding up: 84 -> 42 -> 21 -> 11,
10 -> 5 -> 3 -> 2. The 256-unit dense layer that follows belongs to the Q-network's head.
"""

from __future__ import annotations

import torch
from torch import nn

CHANNELS = (16, 32, 32)


class ResidualBlock(nn.Module):
    """x + conv(relu(conv(relu(x)))), both convolutions 3x3 keeping the channels and the size."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv0 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.conv1(torch.relu(self.conv0(torch.relu(x))))


def stage(in_channels: int, out_channels: int) -> nn.Sequential:
    """conv 3x3 -> max-pool 3x3 stride 2 -> two residual blocks."""
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, padding=1),
        nn.MaxPool2d(3, stride=2, padding=1),
        ResidualBlock(out_channels),
        ResidualBlock(out_channels),
    )


def impala_torso(in_channels: int) -> nn.Sequential:
    """The three stages, the final ReLU and the flattening: [B, C, H, W] -> [B, impala_features(H, W)]."""
    stages, width = [], in_channels
    for channels in CHANNELS:
        stages.append(stage(width, channels))
        width = channels
    return nn.Sequential(*stages, nn.ReLU(), nn.Flatten())


def impala_features(height: int, width: int) -> int:
    """The torso's output size for H x W frames: each stage's pool halves the size, rounding up."""
    for _ in CHANNELS:
        height, width = (height + 1) // 2, (width + 1) // 2
    return CHANNELS[-1] * height * width
