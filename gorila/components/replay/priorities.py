"""Proportional prioritised replay over a `StreamStorage` (Schaul et al. 2016; Ape-X, Horgan et al. 2018).

Entry i is drawn with probability P(i) = p_i / sum_k p_k, where p_i = (|delta_i| + eps)^alpha is set
from the learner's last TD error for it; an entry not yet trained on has the largest priority seen so
far, so that it is replayed at least once soon. The bias of this non-uniform draw is corrected by the
importance-sampling weights w_i = (N P(i))^-beta / max_j w_j, beta annealed to 1 over the run.

The sum tree's leaf of an entry is its priority while the entry is sampleable (the conditions of
`sampling`) and 0 otherwise, so the tree's total is the mass of exactly what may be drawn. The leaf of
entry (stream s, absolute index j) is s * C + j % C. Writing entry c of a stream changes three leaves:
the new entry's (0: its n-step window is not written yet; this also clears entry c - C, which it
overwrites), entry c - C + k - 1's (0: its stack now reaches an overwritten frame) and entry c - n's
(max priority: its window is now complete, unless it is an episode's `last`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gorila.components.replay.sampling import candidate_ranges
from gorila.components.replay.sum_tree import SumTree


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


class Priorities:
    """The sum tree of one replay memory, kept in step with its storage."""

    def __init__(self, storage, stack: int, n_step: int, rule: PriorityRule):
        self.storage, self.stack, self.n_step, self.rule = storage, int(stack), int(n_step), rule
        self.tree = SumTree(storage.capacity)
        self.max_priority = 1.0
        self.updated = self.stale = 0  # priorities set from TD errors, and those ignored

    def leaf(self, streams, indices) -> np.ndarray:
        return np.asarray(streams, np.int64) * self.storage.stream_capacity + self.storage.slots(indices)

    def written(self, stream_ids: np.ndarray) -> None:
        """Call after each `StreamStorage.add` of `stream_ids`: moves the three leaves of each stream."""
        ids = np.asarray(stream_ids, np.int64).reshape(-1)
        newest = self.storage.counts[ids] - 1
        lo, hi = (bound[ids] for bound in candidate_ranges(self.storage, self.stack, self.n_step))
        dropped = newest - self.storage.stream_capacity + self.stack - 1  # first frame overwritten
        complete = newest - self.n_step  # window just written
        ready = (complete >= lo) & (complete < hi)
        ready[ready] = ~self.storage.lasts[ids[ready], self.storage.slots(complete[ready])]
        keep = dropped >= 0
        leaves = np.concatenate(
            [self.leaf(ids, newest), self.leaf(ids[keep], dropped[keep]), self.leaf(ids[ready], complete[ready])]
        )
        values = np.zeros(leaves.size, np.float32)
        values[leaves.size - int(ready.sum()) :] = self.max_priority
        self.tree.set(leaves, values)

    def draw(self, batch_size: int, rng: np.random.Generator):
        """(streams, absolute indices, priorities) of `batch_size` independent draws with P(i)."""
        leaves = self.tree.sample(batch_size, rng)
        capacity = self.storage.stream_capacity
        streams, slots = np.divmod(leaves, capacity)
        count = self.storage.counts[streams]
        indices = count - 1 - (count - 1 - slots) % capacity  # the held entry in that slot
        return streams, indices, self.tree.leaves[leaves].copy()

    def update(self, streams, indices, td_errors) -> int:
        """p_i from new TD errors, for the entries still sampleable as the same entry (stream and
        absolute index): one overwritten, or pushed out of its stack, since it was drawn is skipped.
        How many were updated."""
        streams = np.asarray(streams, np.int64)
        indices = np.asarray(indices, np.int64)
        lo, hi = candidate_ranges(self.storage, self.stack, self.n_step)
        held = (indices >= lo[streams]) & (indices < hi[streams])
        held[held] = ~self.storage.lasts[streams[held], self.storage.slots(indices[held])]
        self.stale += int(held.size - held.sum())
        if not held.any():
            return 0
        values = priority(np.asarray(td_errors)[held], self.rule.alpha, self.rule.eps)
        # a batch that drew one entry twice gives it two errors: keep one, as the tree needs
        leaves, first = np.unique(self.leaf(streams[held], indices[held]), return_index=True)
        self.tree.set(leaves, values[first])
        self.max_priority = max(self.max_priority, float(values.max()))
        self.updated += int(held.sum())
        return int(held.sum())

    def arrays(self) -> dict[str, np.ndarray]:
        """What a saved replay keeps of the priorities (the leaves; inner sums are rebuilt)."""
        return {"priorities": self.tree.leaves[: self.storage.capacity], "max_priority": np.array(self.max_priority)}

    def load_arrays(self, saved) -> None:
        """Take back `arrays()`; a replay saved without priorities gets the maximum, 1, everywhere
        it is sampleable. Call after the storage itself was loaded."""
        if "priorities" in saved:
            self.tree.leaves[: self.storage.capacity] = saved["priorities"]
            self.max_priority = float(saved["max_priority"])
        else:
            self.tree.leaves[: self.storage.capacity] = self.sampleable_mask()
        # loading marks each stream's newest entry `last`; it was never sampleable, so no leaf changes
        self.tree.rebuild()

    def sampleable_mask(self) -> np.ndarray:
        """Per leaf (stream-major), whether the entry held there is sampleable now."""
        capacity = self.storage.stream_capacity
        counts = self.storage.counts[:, None]
        indices = counts - 1 - (counts - 1 - np.arange(capacity)[None, :]) % capacity
        lo, hi = candidate_ranges(self.storage, self.stack, self.n_step)
        mask = (indices >= lo[:, None]) & (indices < hi[:, None]) & ~self.storage.lasts
        return mask.reshape(-1)

    def stats(self) -> dict:
        """The mass, the largest priority and how many TD errors came back (and were stale), for metrics."""
        return {
            "priority_mass": self.tree.total(),
            "max_priority": self.max_priority,
            "priority_updates": self.updated,
            "stale_priority_updates": self.stale,
        }

    def nbytes(self) -> int:
        return self.tree.nbytes()
