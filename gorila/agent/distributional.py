"""Distributional DQN's maths (C51: Bellemare, Dabney and Munos 2017, "A Distributional Perspective on
Reinforcement Learning") as small pure functions on tensors.

The return of (s, a) is a categorical distribution Z(s, a) on a fixed support of N atoms
z_i = v_min + i * dz, dz = (v_max - v_min) / (N - 1); a distributional network gives, per action,
N logits whose softmax over atoms is p_i(s, a). Its Q-value is the distribution's mean,
Q(s, a) = sum_i z_i p_i(s, a), which is what actors act greedily on.

The target of a transition is the distribution of R + discount * Z(s', a*), where R and discount come
from `dqn.n_step_return` (discount = gamma^n, 0 after a terminal), projected back onto the support;
the loss is the cross-entropy between that projection and the predicted p(s, a).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

V_MIN, V_MAX, NUM_ATOMS = -10.0, 10.0, 51  # C51's support on Atari's clipped rewards


def support(v_min: float = V_MIN, v_max: float = V_MAX, num_atoms: int = NUM_ATOMS, device=None) -> torch.Tensor:
    """The atoms z_0 < ... < z_{N-1}, evenly spaced from v_min to v_max ([N] float32)."""
    if num_atoms < 2 or not v_min < v_max:
        raise ValueError(f"a support needs at least 2 atoms on v_min < v_max, got {num_atoms} on [{v_min}, {v_max}]")
    return torch.linspace(v_min, v_max, num_atoms, device=device)


def expected_q(probabilities: torch.Tensor, atoms: torch.Tensor) -> torch.Tensor:
    """Q = sum_i z_i p_i: the mean of each distribution ([..., N] probabilities, [N] atoms -> [...];
    [B, A, N] -> [B, A] Q-values)."""
    return (probabilities * atoms).sum(dim=-1)


def q_values(logits: torch.Tensor, atoms: torch.Tensor) -> torch.Tensor:
    """Q-values from a distributional network's output ([B, A, N] logits -> [B, A])."""
    return expected_q(logits.softmax(dim=-1), atoms)


def project(
    next_probabilities: torch.Tensor, rewards: torch.Tensor, discounts: torch.Tensor, atoms: torch.Tensor
) -> torch.Tensor:
    """The categorical projection Phi of the target distribution onto the support (Algorithm 1).

    Args:
      next_probabilities [B, N]: p_j(s', a*), the distribution to bootstrap from.
      rewards [B], discounts [B]: R and gamma^n (0 after a terminal), as `dqn.n_step_return` gives them.
      atoms [N]: the support (`support`).
    Returns [B, N]: m_i, the mass of each target atom T z_j = R + discount * z_j (clipped to
    [v_min, v_max]) split between the two atoms around it in proportion to its nearness; each row sums
    to the mass of its `next_probabilities` row. A terminal (discount 0) puts all the mass at R.
    """
    num_atoms = atoms.shape[0]
    delta_z = (atoms[-1] - atoms[0]) / (num_atoms - 1)
    target_atoms = (rewards[:, None] + discounts[:, None] * atoms).clamp(atoms[0], atoms[-1])  # [B, N_j]
    # Atom i receives from T z_j the share max(0, 1 - |T z_j - z_i| / dz): that is (u - b) on l = floor(b)
    # and (b - l) on u = ceil(b) of Algorithm 1, b = (T z_j - v_min) / dz, written so that a b landing
    # exactly on an atom (l = u) hands it all the mass, where the two shares as printed both vanish.
    distance = (target_atoms[:, None, :] - atoms[None, :, None]).abs()  # [B, N_i, N_j]
    shares = (1.0 - distance / delta_z).clamp(min=0.0)
    return (shares * next_probabilities[:, None, :]).sum(dim=-1)


def categorical_targets(
    rewards: torch.Tensor,
    discounts: torch.Tensor,
    next_logits_target: torch.Tensor,
    atoms: torch.Tensor,
    next_logits_online: torch.Tensor | None = None,
) -> torch.Tensor:
    """The projected target distribution Phi T Z(s', a*) ([B] rewards and discounts, [B, A, N] logits
    -> [B, N]); a* = argmax_a Q_target(s', a) (C51), or argmax_a Q_online(s', a) with `next_logits_online`
    (double DQN, as Rainbow does): the target network's distribution of a* is what is projected.
    The caller computes the logits without gradient; the result is a fixed target."""
    next_probabilities = next_logits_target.softmax(dim=-1)
    chooser = next_probabilities if next_logits_online is None else next_logits_online.softmax(dim=-1)
    best = expected_q(chooser, atoms).argmax(dim=1)  # [B]
    chosen = next_probabilities[torch.arange(best.shape[0], device=best.device), best]  # [B, N]
    return project(chosen, rewards, discounts, atoms)


def taken_logits(logits: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """The logits of the actions taken ([B, A, N], [B] -> [B, N])."""
    index = actions.long()[:, None, None].expand(-1, 1, logits.shape[-1])
    return logits.gather(1, index).squeeze(1)


def cross_entropies(logits_taken: torch.Tensor, target_probabilities: torch.Tensor) -> torch.Tensor:
    """Each transition's loss -sum_i m_i log p_i(s, a) against its fixed projected target ([B, N], [B, N]
    -> [B]). Per transition, so that prioritised replay can take it as the priority (Rainbow's choice,
    in place of |TD error|) and importance-sampling weights can scale it."""
    return -(target_probabilities.detach() * F.log_softmax(logits_taken, dim=-1)).sum(dim=-1)


def categorical_loss(
    logits: torch.Tensor,
    actions: torch.Tensor,
    target_probabilities: torch.Tensor,
    reduction: str = "mean",
    weights: torch.Tensor | None = None,
) -> torch.Tensor:
    """The cross-entropy of the actions taken ([B, A, N] logits, [B] actions, [B, N] targets) summed or
    averaged over the batch, as `dqn.dqn_loss`; with `weights`, each term scaled by its importance weight."""
    losses = cross_entropies(taken_logits(logits, actions), target_probabilities)
    if weights is not None:
        losses = losses * weights
    return losses.sum() if reduction == "sum" else losses.mean()
