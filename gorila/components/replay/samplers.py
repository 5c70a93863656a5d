"""How one replay memory chooses its entries: the `Sampler` protocol, uniform and prioritised.

A `ReplayMemory` holds its entries in a `StreamStorage` and asks its sampler which to draw; the
sampler is told of every write, keeps whatever it needs to choose (nothing for the uniform draw of
DQN, a sum tree of priorities for prioritised replay, Schaul et al. 2016) and saves it with the
memory:

    sampler = UniformSampler(storage, stack=4, n_step=1)
    storage.add(...); sampler.written(stream_ids)
    streams, indices, fields = sampler.draw(32, rng)       # fields: what the Minibatch carries besides
    batch = sampler.weigh(replace(gather(streams, indices), **fields), sampler.mass())
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

import numpy as np

from gorila.components.replay import sampling
from gorila.components.replay.priorities import PriorityRule, annealed_beta, importance_weights, priority
from gorila.components.replay.sum_tree import SumTree
from gorila.core import Saveable
from gorila.messages import Minibatch, ReplayMass


class Sampler(Saveable, Protocol):
    """The choice of entries of one memory over its storage; its `state` is what a saved replay keeps of
    it, restored after the storage itself."""

    def written(self, stream_ids: np.ndarray) -> None:
        """Called after each write of one entry to each of `stream_ids`."""

    def draw(self, batch_size: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, dict]:
        """(streams, absolute indices, fields): `batch_size` sampleable entries, and the Minibatch
        fields the draw fills besides the transitions (none for a uniform draw)."""

    def mass(self) -> ReplayMass:
        """Sampleable entries N, their priority mass (N when uniform) and the annealed beta."""

    def weigh(self, batch: Minibatch, mass: ReplayMass) -> Minibatch:
        """The minibatch with its importance-sampling weights against this memory's mass, if any."""

    def update(self, streams: np.ndarray, indices: np.ndarray, td_errors: np.ndarray) -> int:
        """Take the learner's new TD errors of entries it drew; how many were used."""

    def stats(self) -> dict:
        """The sampler's own figures for metrics."""

    def nbytes(self) -> int:
        """Bytes the sampler holds besides the storage."""


class UniformSampler:
    """DQN's draw: every sampleable entry with the same probability, with replacement. Holds nothing
    of its own."""

    def __init__(self, storage, stack: int, n_step: int):
        self.storage, self.stack, self.n_step = storage, int(stack), int(n_step)

    def written(self, stream_ids) -> None:
        pass

    def draw(self, batch_size: int, rng: np.random.Generator):
        streams, indices = sampling.choose_indices(self.storage, self.stack, self.n_step, batch_size, rng)
        return streams, indices, {}

    def mass(self) -> ReplayMass:
        count = sampling.sampleable_count(self.storage, self.stack, self.n_step)
        return ReplayMass(count, float(count))

    def weigh(self, batch: Minibatch, mass: ReplayMass) -> Minibatch:
        return batch

    def update(self, streams, indices, td_errors) -> int:
        return 0

    def stats(self) -> dict:
        return {}

    def nbytes(self) -> int:
        return 0

    def state(self) -> dict[str, np.ndarray]:
        return {}

    def restore(self, state) -> None:
        pass


class PrioritisedSampler:
    """Proportional prioritised replay (Schaul et al. 2016; Ape-X, Horgan et al. 2018): entry i is
    drawn with probability P(i) = p_i / sum_k p_k, p_i = (|delta_i| + eps)^alpha from the learner's
    last TD error for it; an entry not yet trained on has the largest priority seen so far, so that it
    is replayed at least once soon.

    The sum tree's leaf of an entry is its priority while the entry is sampleable (the conditions of
    `sampling`) and 0 otherwise, so the tree's total is the mass of exactly what may be drawn. The leaf
    of entry (stream s, absolute index j) is s * C + j % C. Writing entry c of a stream changes three
    leaves: the new entry's (0: its n-step window is not written yet; this also clears entry c - C,
    which it overwrites), entry c - C + k - 1's (0: its stack now reaches an overwritten frame) and
    entry c - n's (max priority: its window is now complete, unless it is an episode's `last`).
    """

    def __init__(self, storage, stack: int, n_step: int, rule: PriorityRule):
        self.storage, self.stack, self.n_step, self.rule = storage, int(stack), int(n_step), rule
        self.tree = SumTree(storage.capacity)
        self.max_priority = 1.0
        self.updated = self.stale = 0  # priorities set from TD errors, and those ignored

    def leaf(self, streams, indices) -> np.ndarray:
        return np.asarray(streams, np.int64) * self.storage.stream_capacity + self.storage.slots(indices)

    def written(self, stream_ids: np.ndarray) -> None:
        """Moves the three leaves of each stream written."""
        ids = np.asarray(stream_ids, np.int64).reshape(-1)
        newest = self.storage.counts[ids] - 1
        lo, hi = (bound[ids] for bound in sampling.candidate_ranges(self.storage, self.stack, self.n_step))
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
        """`batch_size` independent draws with P(i); the fields are the entries' streams, indices (for
        `update`) and priorities at the draw (for weights over several memories)."""
        leaves = self.tree.sample(batch_size, rng)
        capacity = self.storage.stream_capacity
        streams, slots = np.divmod(leaves, capacity)
        count = self.storage.counts[streams]
        indices = count - 1 - (count - 1 - slots) % capacity  # the held entry in that slot
        return streams, indices, dict(streams=streams, indices=indices, priorities=self.tree.leaves[leaves].copy())

    def mass(self) -> ReplayMass:
        count = sampling.sampleable_count(self.storage, self.stack, self.n_step)
        return ReplayMass(count, self.tree.total(), annealed_beta(self.storage.added(), self.rule))

    def weigh(self, batch: Minibatch, mass: ReplayMass) -> Minibatch:
        return replace(batch, weights=importance_weights(batch.priorities, mass.mass, mass.entries, mass.beta))

    def update(self, streams, indices, td_errors) -> int:
        """p_i from new TD errors, for the entries still sampleable as the same entry (stream and
        absolute index): one overwritten, or pushed out of its stack, since it was drawn is skipped."""
        streams = np.asarray(streams, np.int64)
        indices = np.asarray(indices, np.int64)
        lo, hi = sampling.candidate_ranges(self.storage, self.stack, self.n_step)
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

    def state(self) -> dict[str, np.ndarray]:
        """The leaves (inner sums are rebuilt) and the largest priority."""
        return {"priorities": self.tree.leaves[: self.storage.capacity], "max_priority": np.array(self.max_priority)}

    def restore(self, state) -> None:
        """A replay saved without priorities gets the maximum, 1, everywhere it is sampleable."""
        if "priorities" in state:
            self.tree.leaves[: self.storage.capacity] = state["priorities"]
            self.max_priority = float(state["max_priority"])
        else:
            self.tree.leaves[: self.storage.capacity] = self.sampleable_mask()
        # loading marks each stream's newest entry `last`; it was never sampleable, so no leaf changes
        self.tree.rebuild()

    def sampleable_mask(self) -> np.ndarray:
        """Per leaf (stream-major), whether the entry held there is sampleable now."""
        capacity = self.storage.stream_capacity
        counts = self.storage.counts[:, None]
        indices = counts - 1 - (counts - 1 - np.arange(capacity)[None, :]) % capacity
        lo, hi = sampling.candidate_ranges(self.storage, self.stack, self.n_step)
        mask = (indices >= lo[:, None]) & (indices < hi[:, None]) & ~self.storage.lasts
        return mask.reshape(-1)

    def stats(self) -> dict:
        """The mass, the largest priority and how many TD errors came back (and were stale)."""
        return {
            "priority_mass": self.tree.total(),
            "max_priority": self.max_priority,
            "priority_updates": self.updated,
            "stale_priority_updates": self.stale,
        }

    def nbytes(self) -> int:
        return self.tree.nbytes()


def make_sampler(storage, stack: int, n_step: int, rule: PriorityRule | None) -> Sampler:
    """Prioritised when given a `PriorityRule`, else uniform."""
    return PrioritisedSampler(storage, stack, n_step, rule) if rule else UniformSampler(storage, stack, n_step)
