"""The maths of proportional prioritised replay (Schaul et al. 2016; Ape-X, Horgan et al. 2018).

Entry i is drawn with probability P(i) = p_i / sum_k p_k, where p_i = (|delta_i| + eps)^alpha is set
from the learner's last TD error for it. The bias of this non-uniform draw is corrected by the
importance-sampling weights w_i = (N P(i))^-beta / max_j w_j, beta annealed to 1 over the run. The
draw itself is `samplers.PrioritisedSampler`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PriorityRule:
    """Schaul et al.'s exponents: alpha shapes the draw (0 = uniform), beta the correction (1 = full,
    reached after `beta_steps` entries written to this memory), eps keeps every p_i > 0."""

    alpha: float = 0.6
    beta: float = 0.4
    eps: float = 1e-6
    beta_steps: int = 1


def priority(td_errors: np.ndarray, alpha: float, eps: float) -> np.ndarray:
    """p_i = (|delta_i| + eps)^alpha, as float32 (one per entry)."""
    return ((np.abs(np.asarray(td_errors, np.float64)) + eps) ** alpha).astype(np.float32)


def importance_weights(priorities: np.ndarray, total: float, count: int, beta: float) -> np.ndarray:
    """w_i = (N P(i))^-beta / max_j w_j with P(i) = p_i / total, over the drawn minibatch (Schaul et
    al.'s Algorithm 1 normalises by the batch's largest weight: the weights only ever scale updates
    down). float32."""
    weights = (count * np.asarray(priorities, np.float64) / total) ** -beta
    return (weights / weights.max()).astype(np.float32)


def annealed_beta(written: int, rule: PriorityRule) -> float:
    """beta annealed linearly from rule.beta to 1 over the first rule.beta_steps entries written."""
    return rule.beta + (1.0 - rule.beta) * min(1.0, written / max(1, rule.beta_steps))
