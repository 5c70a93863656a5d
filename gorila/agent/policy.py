"""The epsilon-greedy policy over a Q-network: what actors, evaluations, the report's video and
`gorila record-starts` act with, built on the pure functions of `gorila.agent.dqn`."""

from __future__ import annotations

import contextlib

import numpy as np
import torch

from gorila.agent import dqn

# Rows below which a forward pass runs on one thread whatever torch_threads says: an actor's few copies
# (MinAtar's network, 4 rows: 0.35 ms on one thread, 1 ms on two) cost more in waking a second thread
# than they save; a learner's minibatch still gets all of them.
ONE_THREAD_ROWS = 32


@contextlib.contextmanager
def at_most_threads(count: int):
    """torch's intra-op threads at most `count` inside the block (a process-wide setting, restored)."""
    before = torch.get_num_threads()
    if before <= count:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class EpsilonGreedyPolicy:
    """Epsilon-greedy actions for a batch of observations, from `network`'s Q-values and `rng`'s draws.

    The random draws are those of `dqn.epsilon_greedy` whichever way the network is run:
    - by default only on the rows that do not explore, and not at all when every row explores (as
      DQN's own code does: an actor's step at epsilon near 1 costs no forward pass);
    - with `whole_batch`, on every observation of the batch (evaluation): a row's Q-values, which can
      differ in their last bits with the batch they are computed in, then do not depend on which
      other rows explore.
    Greedy ties are broken at random from a generator of their own, spawned from `rng`, so that a tie
    does not shift the exploration draws. The network is the caller's: loading new parameters into it
    changes what the policy does.
    """

    def __init__(self, network: torch.nn.Module, num_actions: int, rng: np.random.Generator, whole_batch: bool = False):
        self.network, self.num_actions, self.rng, self.whole_batch = network, num_actions, rng, whole_batch
        self.tie_rng = rng.spawn(1)[0]

    def q_values(self, obs: np.ndarray) -> np.ndarray:
        few_rows = at_most_threads(1) if len(obs) < ONE_THREAD_ROWS else contextlib.nullcontext()
        with torch.no_grad(), few_rows:
            return self.network(torch.as_tensor(obs)).numpy()

    def greedy(self, obs: np.ndarray) -> np.ndarray:
        return dqn.greedy_actions(self.q_values(obs), self.tie_rng)

    def act(self, obs: np.ndarray, epsilon: float | np.ndarray) -> np.ndarray:
        """One action per row of `obs` ([B, ...] -> [B] int64)."""
        if self.whole_batch:
            return dqn.greedy_with_epsilon(self.q_values(obs), epsilon, self.rng, self.tie_rng)
        return dqn.epsilon_greedy(
            lambda rows: self.greedy(obs if rows.all() else obs[rows]), len(obs), self.num_actions, epsilon, self.rng
        )
