"""A sum tree (Schaul et al. 2016, appendix B.2.1): leaves hold priorities, each inner node the sum of
its two children, so drawing an entry with probability p_i / sum p and changing a p_i both cost
O(log N). Every operation is vectorised over a batch of leaves: one numpy operation per tree level,
never a Python loop per entry (a draw of 512 from a million leaves is 20 levels of array work).

Layout: the usual implicit heap over `size` = the next power of two >= capacity. Inner node i (1 <= i <
size) has children 2i and 2i + 1; the children of the lowest inner level are the leaves, kept apart in
a float32 array (one float per replay entry, the priority itself), while inner sums are float64 so
that a million additions lose nothing a draw could notice.
"""

from __future__ import annotations

import numpy as np


class SumTree:
    """Priorities p_0..p_{capacity-1} (all 0 at first) with prefix-sum search over them."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"a sum tree needs capacity >= 1, got {capacity}")
        self.capacity = int(capacity)
        self.size = 1 << max(0, (self.capacity - 1).bit_length())  # leaves, padded to a power of two
        self.depth = self.size.bit_length() - 1  # levels of inner nodes
        self.leaves = np.zeros(self.size, np.float32)
        self.nodes = np.zeros(max(self.size, 2), np.float64)  # nodes[1] is the root; [0] unused

    def total(self) -> float:
        """sum_i p_i."""
        return float(self.nodes[1]) if self.depth else float(self.leaves[0])

    def set(self, leaves: np.ndarray, values: np.ndarray) -> None:
        """p_leaf <- value for each pair, then every ancestor recomputed from its children. A leaf listed
        twice must be given the same value twice (recomputing from children makes repeats harmless)."""
        leaves = np.asarray(leaves, np.int64).reshape(-1)
        if leaves.size == 0:
            return
        self.leaves[leaves] = values
        parents = (leaves + self.size) >> 1
        if self.depth:
            self.nodes[parents] = self._leaf_pairs(parents)
        for _ in range(self.depth - 1):
            parents >>= 1
            self.nodes[parents] = self.nodes[2 * parents] + self.nodes[2 * parents + 1]

    def _leaf_pairs(self, parents: np.ndarray) -> np.ndarray:
        """Sums of the two leaves below each node of the lowest inner level."""
        first = 2 * parents - self.size
        return self.leaves[first].astype(np.float64) + self.leaves[first + 1]

    def rebuild(self) -> None:
        """Every inner node from the leaves up (after the leaves were loaded wholesale)."""
        if not self.depth:
            return
        level = self.size >> 1  # the lowest inner level: nodes level..2*level-1
        self.nodes[level : 2 * level] = self._leaf_pairs(np.arange(level, 2 * level))
        while level > 1:
            level >>= 1
            children = np.arange(2 * level, 4 * level)
            self.nodes[level : 2 * level] = self.nodes[children[0::2]] + self.nodes[children[1::2]]

    def find(self, targets: np.ndarray) -> np.ndarray:
        """For each target u in [0, total), the leaf i with p_0 + ... + p_{i-1} <= u < p_0 + ... + p_i.

        Descends from the root: go left while u lies below the left child's sum, else subtract that sum
        and go right. Rounding can push a u that lay just below the total onto a leaf of priority 0 at a
        subtree's right edge; callers redraw any such leaf (as the uniform sampler redraws `last` ones).
        """
        u = np.asarray(targets, np.float64).copy()
        node = np.ones(u.shape, np.int64)
        for _ in range(self.depth - 1):
            left = self.nodes[2 * node]
            right = u >= left
            u -= np.where(right, left, 0.0)
            node = 2 * node + right
        if not self.depth:
            return np.zeros(u.shape, np.int64)
        left_leaf = 2 * node - self.size
        return left_leaf + (u >= self.leaves[left_leaf])

    def sample(self, batch_size: int, rng: np.random.Generator) -> np.ndarray:
        """`batch_size` leaves drawn independently with probability p_i / sum p (redrawing the rare leaf
        of priority 0 that rounding lands on); ValueError when every priority is 0."""
        if self.total() <= 0:
            raise ValueError("every priority is 0: there is nothing to draw")
        chosen = np.empty(batch_size, np.int64)
        todo = np.arange(batch_size)
        while todo.size:
            chosen[todo] = self.find(rng.random(todo.size) * self.total())
            todo = todo[self.leaves[chosen[todo]] <= 0]
        return chosen

    def nbytes(self) -> int:
        return int(self.leaves.nbytes + self.nodes.nbytes)
