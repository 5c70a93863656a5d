"""Q(lambda) targets over a rollout, as PQN computes them (Gallici et al. 2025, "Simplifying Deep
Temporal Difference Learning"; Peng's Q(lambda) with the greedy bootstrap), as a pure function.

A rollout is T steps of N environment copies taken with the parameters being learnt (no replay, no
target network). The target of step t blends the one-step greedy bootstrap with the target of the
step after it:

    G_t = r_t + gamma * (1 - terminal_t) * ((1 - lambda) * max_a Q(s_{t+1}, a) + lambda * G_{t+1})

where G_{t+1} is replaced by max_a Q(s_{t+1}, a) at the rollout's last step and wherever an episode
ended at step t (`last_t`: its next step belongs to a new episode; a truncated episode still
bootstraps from its final observation). lambda = 0 is the one-step Q-learning target; lambda = 1 the
rollout's discounted return, bootstrapped at its end.
"""

from __future__ import annotations

import torch


def q_lambda_targets(
    rewards: torch.Tensor,
    terminals: torch.Tensor,
    lasts: torch.Tensor,
    next_max_q: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """The Q(lambda) target of every step of a rollout.

    Args (each [T, N]: step t of copy n):
      rewards:    r_t.
      terminals:  the step into s_{t+1} ended with no bootstrap (a real terminal).
      lasts:      s_{t+1} is the final observation of its episode (terminal or truncated).
      next_max_q: max_a Q(s_{t+1}, a) under the current parameters (of the final observation where the
                  episode ended), with no gradient.
    Returns [T, N] float32 targets.
    """
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda must lie in [0, 1], got {lam}")
    rewards, next_max_q = rewards.float(), next_max_q.float()
    alive = 1.0 - terminals.float()
    cut = lasts.bool()
    targets = torch.empty_like(rewards)
    following = next_max_q[-1]  # the rollout's end: bootstrap only
    for t in range(rewards.shape[0] - 1, -1, -1):
        following = torch.where(cut[t], next_max_q[t], following)
        blended = (1.0 - lam) * next_max_q[t] + lam * following
        targets[t] = rewards[t] + gamma * alive[t] * blended
        following = targets[t]
    return targets
