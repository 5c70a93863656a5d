"""The update rules a parameter shard applies to its slice of theta+, written out.

Each `step` is a handful of in-place tensor operations on one flat slice: a shard applies thousands of
small gradients a second, and a framework optimizer's per-call bookkeeping would cost more than the
arithmetic. Every rule subtracts; `gradient` is the gradient of the loss.

- `sgd`:      theta -= lr * g
- `adagrad`:  n += g^2;  theta -= lr * g / (sqrt(n) + eps)                      (Gorila, Nair et al. 2015)
- `rmsprop`:  a = 0.95 by default; m = a m + (1-a) g;  n = a n + (1-a) g^2;
              theta -= lr * g / sqrt(n - m^2 + eps)            (DQN's RMSProp, Graves 2013; eps inside)
- `adam`:     Kingma & Ba (2015), with bias correction.
- `radam`:    Liu et al. (2020): Adam's step scaled by its variance rectification r_t once the
              variance of its adaptive rate is tractable (rho_t > 5), a momentum step before (PQN).

DQN's rule was tuned on the gradient of the clipped TD errors summed over the minibatch, not averaged
(`loss_reduction: sum`): on a mean, 32 times smaller, its eps would dominate the root. AdaGrad divides
the scale out, so the reduction matters to it only through eps.
"""

from __future__ import annotations

import math

import torch


class UpdateRule:
    """What every rule shares: its state (moments, step count) as tensors on the shard's device and
    numbers; for checkpoints, as CPU tensors."""

    device = torch.device("cpu")

    def state(self) -> dict:
        """Everything but scratch space (names starting with an underscore) and the device."""
        return {
            key: value.cpu().clone() if torch.is_tensor(value) else value
            for key, value in vars(self).items()
            if not key.startswith("_") and key != "device"
        }

    def restore(self, state: dict) -> None:
        """Continue from `state()` of a rule of the same kind and size (a resumed or restarted shard)."""
        for key, value in state.items():
            setattr(self, key, value.to(self.device).clone() if torch.is_tensor(value) else value)

    def on(self, device: torch.device) -> UpdateRule:
        """This rule with its moments on `device` (made on the CPU, as every rule's constructor makes them)."""
        self.device = torch.device(device)
        for key, value in vars(self).items():
            if torch.is_tensor(value):
                setattr(self, key, value.to(self.device))
        return self


class SGD(UpdateRule):
    def __init__(self, size: int, learning_rate: float, **_):
        self.lr = learning_rate

    def step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        theta.add_(gradient, alpha=-self.lr)


class AdaGrad(UpdateRule):
    def __init__(self, size: int, learning_rate: float, eps: float = 1e-10, **_):
        self.lr, self.eps = learning_rate, eps
        self.sum_squares = torch.zeros(size)

    def step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        self.sum_squares.addcmul_(gradient, gradient)
        theta.addcdiv_(gradient, self.sum_squares.sqrt().add_(self.eps), value=-self.lr)


class DQNRMSProp(UpdateRule):
    def __init__(self, size: int, learning_rate: float, eps: float = 0.01, alpha: float = 0.95, **_):
        self.lr, self.eps, self.alpha = learning_rate, eps, alpha
        self.mean = torch.zeros(size)  # m: running mean of g
        self.mean_square = torch.zeros(size)  # n: running mean of g^2
        self._denominator = torch.empty(size)  # scratch, reused: no allocation per gradient

    def step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        a = self.alpha
        self.mean.lerp_(gradient, 1 - a)  # a m + (1-a) g in one pass
        self.mean_square.mul_(a).addcmul_(gradient, gradient, value=1 - a)
        denominator = torch.addcmul(self.mean_square, self.mean, self.mean, value=-1, out=self._denominator)
        theta.addcdiv_(gradient, denominator.add_(self.eps).sqrt_(), value=-self.lr)


class Adam(UpdateRule):
    """Kingma & Ba's rule. `beta1` may change between steps (a shard lowers it as its gradients' staleness
    adds momentum of its own): the first moment's bias correction is then the weight its average has
    gathered, c1 = 1 - prod(beta1_i), which is 1 - beta1 ** steps while beta1 stays put."""

    def __init__(self, size: int, learning_rate: float, eps: float = 1e-8, betas=(0.9, 0.999), **_):
        self.lr, self.eps, (self.beta1, self.beta2) = learning_rate, eps, betas
        self.first, self.second = torch.zeros(size), torch.zeros(size)
        self.steps = 0
        self.first_weight = 0.0  # c1: the weight of the gradients in the first moment, 1 - prod(beta1_i)
        self._denominator = torch.empty(size)  # scratch, reused: no allocation per gradient

    def _moments(self, gradient: torch.Tensor) -> None:
        self.steps += 1
        self.first.lerp_(gradient, 1 - self.beta1)
        self.first_weight += (1 - self.beta1) * (1 - self.first_weight)
        self.second.mul_(self.beta2).addcmul_(gradient, gradient, value=1 - self.beta2)

    def step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        """theta -= lr / c1 * m / (sqrt(v / c2) + eps), c2 = 1 - beta2 ** steps, in six passes and no
        allocation: sqrt(c2) moves from the denominator into the step size and eps."""
        self._moments(gradient)
        root_c2 = math.sqrt(1 - self.beta2**self.steps)
        denominator = torch.sqrt(self.second, out=self._denominator).add_(self.eps * root_c2)
        theta.addcdiv_(self.first, denominator, value=-self.lr * root_c2 / self.first_weight)

    def restore(self, state: dict) -> None:
        """`UpdateRule.restore`; a state saved before `first_weight` was kept had a constant beta1."""
        super().restore({"first_weight": 1 - state.get("beta1", self.beta1) ** state.get("steps", 0), **state})


class RAdam(Adam):
    RHO_THRESHOLD = 5.0  # Liu et al. (2020) and optax: the adaptive step starts once rho_t exceeds it

    def step(self, theta: torch.Tensor, gradient: torch.Tensor) -> None:
        """Adam's moments; the step lr * r_t * m_hat / (sqrt(v_hat) + eps) where rho_t, the length of
        the average the second moment approximates, is above the threshold, else lr * m_hat."""
        self._moments(gradient)
        b2, t, c1 = self.beta2, self.steps, self.first_weight
        rho_inf = 2 / (1 - b2) - 1
        rho = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho <= self.RHO_THRESHOLD:
            theta.add_(self.first, alpha=-self.lr / c1)
            return
        rectifier = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        root_c2 = math.sqrt(1 - b2**t)
        denominator = torch.sqrt(self.second, out=self._denominator).add_(self.eps * root_c2)
        theta.addcdiv_(self.first, denominator, value=-self.lr * rectifier * root_c2 / c1)


OPTIMIZERS = {"sgd": SGD, "adagrad": AdaGrad, "rmsprop": DQNRMSProp, "adam": Adam, "radam": RAdam}


def make_optimizer(
    name: str,
    size: int,
    learning_rate: float,
    eps: float,
    rmsprop_alpha: float,
    device: torch.device | str = "cpu",
    adam_beta1: float = 0.9,
):
    """The update rule a shard applies to a slice of `size` parameters kept on `device`."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}")
    rule = OPTIMIZERS[name](size, learning_rate=learning_rate, eps=eps, alpha=rmsprop_alpha, betas=(adam_beta1, 0.999))
    return rule.on(device)
