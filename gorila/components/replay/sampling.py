"""Sampling over a `StreamStorage`: choose entries, rebuild frame stacks, fold n-step returns.

Entry j of a stream is sampleable as a state s_t when
  * it is not `last` (no action was taken from a final observation),
  * its stack history j-(k-1)..j is still in the ring (j - (k-1) >= count - C, or j < k-1 near the
    stream start, whose missing frames are zeros anyway), and
  * its window j+1..j+n is written (j + n < count), so the n-step return never depends on whether a
    step that has not happened yet would stop the window.
The bootstrap state j+steps then lies inside [j-(k-1), count), hence its stack is readable too.
"""

from __future__ import annotations

import numpy as np

from gorila.agent.dqn import n_step_return


def candidate_ranges(storage, stack: int, n_step: int):
    """Per stream, the half-open range [lo, hi) of absolute indices satisfying the ring conditions."""
    counts = storage.counts
    lo = np.maximum(counts - storage.stream_capacity + (stack - 1), 0)
    hi = np.maximum(counts - n_step, lo)
    return lo, hi


def sampleable_count(storage, stack: int, n_step: int) -> int:
    """Number of sampleable entries: range lengths minus the `last` entries inside each range.

    Uses the per-entry count of earlier `last` entries, so it costs O(streams), not O(capacity).
    """
    lo, hi = candidate_ranges(storage, stack, n_step)
    streams = np.flatnonzero(hi > lo)
    if streams.size == 0:
        return 0
    lasts_in = _lasts_before(storage, streams, hi[streams]) - _lasts_before(storage, streams, lo[streams])
    return int((hi[streams] - lo[streams] - lasts_in).sum())


def _lasts_before(storage, streams: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """How many `last` entries a stream wrote before absolute index j; j must still be held."""
    return storage.lasts_before[streams, storage.slots(indices)]


def choose_indices(storage, stack: int, n_step: int, batch_size: int, rng: np.random.Generator):
    """Draw `batch_size` (stream, index) pairs uniformly over sampleable entries, with replacement.

    Draws uniformly over all candidate positions, then redraws the ones that hit a `last` entry:
    rejection keeps the result exactly uniform over non-last entries, and since every episode has at
    least one non-last entry per `last`, at least half the candidates are accepted.
    """
    if sampleable_count(storage, stack, n_step) == 0:
        raise ValueError("no sampleable entries yet (redrawing would never end)")
    lo, hi = candidate_ranges(storage, stack, n_step)
    lengths = hi - lo
    ends = np.cumsum(lengths)
    streams = np.empty(batch_size, np.int64)
    indices = np.empty(batch_size, np.int64)
    todo = np.arange(batch_size)
    while todo.size:
        u = rng.integers(0, ends[-1], size=todo.size)
        s = np.searchsorted(ends, u, side="right")
        j = lo[s] + u - (ends[s] - lengths[s])
        streams[todo], indices[todo] = s, j
        todo = todo[storage.lasts[s, storage.slots(j)]]
    return streams, indices


def gather_stacks(storage, streams: np.ndarray, indices: np.ndarray, stack: int) -> np.ndarray:
    """Frames of entries j-k+1..j (oldest first) as [B, k, *frame]; frames from an earlier episode are 0.

    An earlier episode means: before the stream start, or at/before a `last` entry among j-k+1..j-1
    (the entry after a `last` starts a new episode). Life losses are not `last`, so they do not cut.
    """
    streams = np.asarray(streams, np.int64)
    indices = np.asarray(indices, np.int64)
    offsets = np.arange(stack - 1, -1, -1)  # oldest first: k-1, ..., 0
    history = indices[:, None] - offsets[None, :]  # [B, k]
    safe = np.maximum(history, 0)
    frames = _stack_frames(storage, streams, storage.slots(safe))
    cut = history < 0
    if stack > 1:
        older_lasts = storage.lasts[streams[:, None], storage.slots(safe[:, :-1])] & ~cut[:, :-1]
        # An entry is cut when it, or any entry between it and j (exclusive), is `last`: or-accumulate
        # from the newest older entry backwards.
        after_last = np.logical_or.accumulate(older_lasts[:, ::-1], axis=1)[:, ::-1]
        cut[:, :-1] |= after_last
    frames[cut] = 0
    return frames


def _stack_frames(storage, streams: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """storage's frames at [B, k] slots as [B, k, *frame]; image frames ([H, W]) as a view of bytes laid
    out [B, H, W, k] (channels last), the layout the convolutions run fastest on, at no cost to a
    reader of [B, k, H, W]."""
    if storage.frames.ndim != 4:
        return storage.frames[streams[:, None], slots]
    batch, stack = slots.shape
    stacked = np.empty((batch, *storage.frames.shape[2:], stack), storage.frames.dtype)
    for m in range(stack):
        stacked[..., m] = storage.frames[streams, slots[:, m]]
    return stacked.transpose(0, 3, 1, 2)


def gather_windows(storage, streams: np.ndarray, indices: np.ndarray, n_step: int):
    """The n-step window of each entry, in `n_step_return`'s layout ([B, n] each).

    rewards[:, m] and terminals[:, m] are entry j+m's; lasts[:, m] is entry j+m+1's (s_{t+m+1} final).
    """
    streams = np.asarray(streams, np.int64)[:, None]
    window = np.asarray(indices, np.int64)[:, None] + np.arange(n_step)[None, :]
    slots = storage.slots(window)
    rewards = storage.rewards[streams, slots]
    terminals = storage.terminals[streams, slots]
    lasts = storage.lasts[streams, storage.slots(window + 1)]
    return rewards, terminals, lasts


def gather_batch(storage, streams, indices, stack: int, n_step: int, gamma: float) -> dict:
    """Build a training batch for explicit (stream, index) pairs; deterministic, so tests use it.

    Returns numpy arrays: obs and next_obs [B, k, *frame] (frame dtype), actions int64, returns and
    discounts float32, plus `steps` (the bootstrap offset) for callers that want it.
    """
    streams = np.asarray(streams, np.int64)
    indices = np.asarray(indices, np.int64)
    rewards, terminals, lasts = gather_windows(storage, streams, indices, n_step)
    returns, discounts, steps = n_step_return(rewards, terminals, lasts, gamma)
    return {
        "obs": gather_stacks(storage, streams, indices, stack),
        "actions": storage.actions[streams, storage.slots(indices)].astype(np.int64),
        "returns": returns,
        "discounts": discounts,
        "next_obs": gather_stacks(storage, streams, indices + steps, stack),
        "steps": steps,
    }
