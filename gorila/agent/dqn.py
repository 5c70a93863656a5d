"""DQN maths as small pure functions: n-step returns, TD targets, loss, exploration schedules.

Nothing here holds state; the learner and the actors call these with tensors or numbers.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F


def n_step_return(rewards: np.ndarray, terminals: np.ndarray, lasts: np.ndarray, gamma: float):
    """Fold up to n rewards that follow a sampled state into one return.

    Args (each [B, n], entry m describes the m-th step after the sampled state s_t):
      rewards:   r_{t+m}.
      terminals: the step into s_{t+m+1} ended with no bootstrap (a real terminal, or a life loss).
      lasts:     s_{t+m+1} is the final observation of its episode (terminal or truncated), so the
                 window must stop there even when there is something to bootstrap from (truncation).
    Returns:
      returns  [B] float32: sum_m gamma^m r_{t+m} up to the first stop,
      discounts [B] float32: gamma^k for the bootstrap from s_{t+k}, 0 after a terminal,
      steps    [B] int64: k, the offset of the state to bootstrap from.
    """
    batch, n = rewards.shape
    returns = np.zeros(batch, np.float64)
    discounts = np.ones(batch, np.float64)
    steps = np.full(batch, n, np.int64)
    running = np.ones(batch, bool)
    for m in range(n):
        returns += np.where(running, discounts * rewards[:, m], 0.0)
        discounts = np.where(running, discounts * gamma, discounts)
        stop = running & (terminals[:, m] | lasts[:, m])
        steps[stop] = m + 1
        discounts[running & terminals[:, m]] = 0.0
        running &= ~stop
    return returns.astype(np.float32), discounts.astype(np.float32), steps


def td_targets(
    rewards: torch.Tensor,
    discounts: torch.Tensor,
    next_q_target: torch.Tensor,
    next_q_online: torch.Tensor | None = None,
) -> torch.Tensor:
    """y = R + discount * Q_target(s', a*): a* = argmax Q_target (DQN) or argmax Q_online (double DQN).

    `rewards` and `discounts` come from `n_step_return` (discount is 0 after a terminal);
    pass `next_q_online` to get the double-DQN target of van Hasselt et al. (2016).
    """
    chooser = next_q_target if next_q_online is None else next_q_online
    best = chooser.argmax(dim=1, keepdim=True)
    bootstrap = next_q_target.gather(1, best).squeeze(1)
    return rewards + discounts * bootstrap


def huber_loss(
    q_taken: torch.Tensor, targets: torch.Tensor, delta: float = 1.0, reduction: str = "mean"
) -> torch.Tensor:
    """Huber loss: quadratic within `delta` of the target, linear outside (DQN's error clipping);
    `delta` 0 is no clipping: half the squared error (PQN's loss).

    Its gradient is the TD error y - Q clipped to [-delta, delta], DQN's clipped error term.
    `reduction` "mean" averages over the minibatch; "sum" adds the transitions up, as DQN's reference
    code does (its gradient is the sum of the clipped errors' gradients, 32 times the mean's).
    """
    losses = transition_losses(q_taken, targets, delta)
    return losses.sum() if reduction == "sum" else losses.mean()


def weighted_huber_loss(
    q_taken: torch.Tensor, targets: torch.Tensor, weights: torch.Tensor, delta: float = 1.0, reduction: str = "mean"
) -> torch.Tensor:
    """Huber loss with each transition's term scaled by its importance-sampling weight w_i (prioritised
    replay, Schaul et al. 2016: the gradient is w_i times the clipped TD error), summed or averaged."""
    losses = transition_losses(q_taken, targets, delta) * weights
    return losses.sum() if reduction == "sum" else losses.mean()


def transition_losses(q_taken: torch.Tensor, targets: torch.Tensor, delta: float) -> torch.Tensor:
    """Each transition's Huber loss against its fixed target (`delta` 0: half its squared error)."""
    if delta == 0:
        return 0.5 * (q_taken - targets.detach()).square()
    return F.huber_loss(q_taken, targets.detach(), delta=delta, reduction="none")


def taken_q(q_online: torch.Tensor, actions: torch.Tensor) -> torch.Tensor:
    """Q(s, a) of the actions taken ([B, A], [B] -> [B])."""
    return q_online.gather(1, actions.long().unsqueeze(1)).squeeze(1)


def dqn_loss(
    q_online: torch.Tensor,
    actions: torch.Tensor,
    targets: torch.Tensor,
    huber_delta: float = 1.0,
    reduction: str = "mean",
    weights: torch.Tensor | None = None,
) -> torch.Tensor:
    """Loss of Q(s, a) against fixed targets y for the actions taken, summed or averaged over the batch;
    with `weights`, each transition's term scaled by its importance-sampling weight."""
    return taken_q_loss(taken_q(q_online, actions), targets, huber_delta, reduction, weights)


def taken_q_loss(
    q_taken: torch.Tensor,
    targets: torch.Tensor,
    huber_delta: float = 1.0,
    reduction: str = "mean",
    weights: torch.Tensor | None = None,
) -> torch.Tensor:
    """`dqn_loss` from the taken actions' Q(s, a) (`taken_q`), for a caller that also reports them."""
    if weights is None:
        return huber_loss(q_taken, targets, huber_delta, reduction)
    return weighted_huber_loss(q_taken, targets, weights, huber_delta, reduction)


def td_errors(q_online: torch.Tensor, actions: torch.Tensor, targets: torch.Tensor) -> np.ndarray:
    """|delta_i| = |y_i - Q(s_i, a_i)| per transition, as float32 numpy: what a prioritised replay's
    new priorities are made of."""
    return (targets - taken_q(q_online, actions)).detach().abs().cpu().numpy().astype(np.float32)


def clip_norm(gradient, max_norm: float):
    """Scale a flat gradient (a tensor or an array) in place so its L2 norm is at most `max_norm`
    (0 = no clipping), as torch.nn.utils.clip_grad_norm_ does, on the one vector the learner sends anyway."""
    if max_norm:
        norm = float(torch.linalg.vector_norm(torch.as_tensor(gradient)))
        if norm > max_norm:
            gradient *= max_norm / (norm + 1e-6)
    return gradient


def linear_epsilon(step: int, start: float, end: float, decay_steps: int) -> float:
    """Epsilon annealed linearly from `start` to `end` over `decay_steps`, then held at `end`."""
    if decay_steps <= 0:
        return end
    fraction = min(max(step / decay_steps, 0.0), 1.0)
    return start + fraction * (end - start)


def epsilon_ladder(index: int, count: int, base: float = 0.4, alpha: float = 7.0) -> float:
    """Ape-X's per-actor exploration rate eps_i = base ** (1 + alpha * i / (N - 1)).

    With one actor this is `base`; actors at the top of the ladder explore least.
    """
    if count <= 1:
        return base
    return base ** (1.0 + alpha * index / (count - 1))


def greedy_actions(q_values: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """argmax_a Q(s, a) per row ([B, A] -> [B]), a tie broken uniformly at random with `rng`'s draws,
    as DQN's code breaks it (argmax alone takes the lowest index). Rows without a tie draw nothing."""
    actions = q_values.argmax(axis=1)
    tied = q_values == q_values.max(axis=1, keepdims=True)
    counts = tied.sum(axis=1)
    rows = np.flatnonzero(counts > 1)
    if rng is not None and rows.size:
        picks = rng.integers(0, counts[rows])  # which of each row's tied actions
        actions[rows] = (tied[rows].cumsum(axis=1) > picks[:, None]).argmax(axis=1)
    return actions


def greedy_with_epsilon(
    q_values: np.ndarray,
    epsilon: float | np.ndarray,
    rng: np.random.Generator,
    tie_rng: np.random.Generator | None = None,
):
    """Epsilon-greedy actions for a batch of Q-value rows ([B, A] -> [B]); greedy ties drawn from `tie_rng`."""
    batch, num_actions = q_values.shape
    return epsilon_greedy(lambda rows: greedy_actions(q_values[rows], tie_rng), batch, num_actions, epsilon, rng)


def epsilon_greedy(
    greedy: Callable[[np.ndarray], np.ndarray],
    batch: int,
    num_actions: int,
    epsilon: float | np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Epsilon-greedy actions for `batch` rows, asking `greedy(rows)` (a boolean mask) for the greedy
    actions of the rows that do not explore, and only when there are some: as in DQN's own code, the
    network is not run for a step that acts at random. The random draws do not depend on `greedy`."""
    explore = rng.random(batch) < epsilon
    actions = np.zeros(batch, np.int64)
    if explore.any():  # most steps explore nowhere: skip the second draw
        actions[explore] = rng.integers(0, num_actions, size=int(explore.sum()))
    if not explore.all():
        actions[~explore] = greedy(~explore)
    return actions
