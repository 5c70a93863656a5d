"""Noisy linear layers with factorised Gaussian noise (Fortunato et al. 2018, "Noisy Networks for
Exploration"): exploration learnt through the weights, in place of epsilon-greedy.

A noisy layer computes y = (mu_w + sigma_w * eps_w) x + mu_b + sigma_b * eps_b, where mu and sigma
are learnt and eps is drawn afresh by `resample_noise`. Factorised noise draws only p + q unit
normals for a layer of p inputs and q outputs: eps_w = f(eps_out) f(eps_in)^T, eps_b = f(eps_out),
with f(x) = sgn(x) sqrt(|x|).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

SIGMA_0 = 0.5  # the paper's sigma_0 for factorised noise


def signed_sqrt(x: torch.Tensor) -> torch.Tensor:
    """f(x) = sgn(x) sqrt(|x|), the paper's scaling of factorised noise."""
    return x.sign() * x.abs().sqrt()


def factorised_noise(in_features: int, out_features: int, generator=None, device=None):
    """One draw of (eps_w [q, p], eps_b [q]) from p + q unit normals (eps_in first, then eps_out)."""
    eps_in = signed_sqrt(torch.randn(in_features, generator=generator, device=device))
    eps_out = signed_sqrt(torch.randn(out_features, generator=generator, device=device))
    return torch.outer(eps_out, eps_in), eps_out


class NoisyLinear(nn.Module):
    """A linear layer of p inputs and q outputs whose weights carry learnt factorised Gaussian noise.

    Initialised as the paper has it for factorised noise: every mu from U[-1/sqrt(p), 1/sqrt(p)],
    every sigma sigma_0 / sqrt(p). In training mode the layer uses its current noise; in evaluation
    mode (`model.eval()`) it is the mu-only layer, deterministic. The noise is a buffer that is not
    saved: only mu and sigma are parameters (and travel in the flat parameter vector).
    """

    def __init__(self, in_features: int, out_features: int, sigma_0: float = SIGMA_0):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight_mu = nn.Parameter(torch.empty(out_features, in_features))
        self.weight_sigma = nn.Parameter(torch.empty(out_features, in_features))
        self.bias_mu = nn.Parameter(torch.empty(out_features))
        self.bias_sigma = nn.Parameter(torch.empty(out_features))
        self.register_buffer("weight_epsilon", torch.zeros(out_features, in_features), persistent=False)
        self.register_buffer("bias_epsilon", torch.zeros(out_features), persistent=False)
        bound = 1.0 / math.sqrt(in_features)
        with torch.no_grad():
            self.weight_mu.uniform_(-bound, bound)
            self.bias_mu.uniform_(-bound, bound)
            self.weight_sigma.fill_(sigma_0 * bound)
            self.bias_sigma.fill_(sigma_0 * bound)
        self.resample_noise()

    def resample_noise(self, generator=None) -> None:
        """Draw new factorised noise (from `generator`, else torch's global generator)."""
        weight, bias = factorised_noise(self.in_features, self.out_features, generator, self.weight_mu.device)
        self.weight_epsilon.copy_(weight)
        self.bias_epsilon.copy_(bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training:
            return F.linear(x, self.weight_mu, self.bias_mu)
        weight = self.weight_mu + self.weight_sigma * self.weight_epsilon
        return F.linear(x, weight, self.bias_mu + self.bias_sigma * self.bias_epsilon)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}"


def resample_noise(model: nn.Module, generator=None) -> int:
    """New noise in every noisy layer of a model; returns how many layers it touched (0: none noisy)."""
    layers = [m for m in model.modules() if isinstance(m, NoisyLinear)]
    for layer in layers:
        layer.resample_noise(generator)
    return len(layers)
