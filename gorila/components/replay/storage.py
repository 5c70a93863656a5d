"""Ring storage for replay: one ring per environment copy ("stream"), one entry per env step.

Why streams: each env copy writes its steps in order, so entry j+1 of a stream is always the
successor of entry j. Keeping streams apart lets the sampler rebuild frame stacks and n-step windows
by index arithmetic alone, while every frame is stored exactly once (no stacks, no s/s' pairs).

Why absolute indices: each stream keeps a monotone write count; an entry's absolute index j lives in
slot j % C, and j is still held iff count - C <= j < count. That makes "was it overwritten?" a
comparison instead of bookkeeping.
"""

from __future__ import annotations

import numpy as np


class StreamStorage:
    """`num_streams` rings of `capacity // num_streams` entries, written one entry per stream per call.

    Arrays are shaped [S, C, ...]: `frames`, `actions`, `rewards`, `terminals`, `lasts`, plus
    `lasts_before` (how many `last` entries the stream wrote before each entry), which lets the sampler
    count sampleable entries in O(S) instead of scanning the whole ring.
    """

    def __init__(self, capacity: int, num_streams: int, frame_shape, frame_dtype):
        if num_streams < 1:
            raise ValueError(f"num_streams must be >= 1, got {num_streams}")
        if capacity < num_streams:
            raise ValueError(f"capacity {capacity} is smaller than num_streams {num_streams}")
        self.num_streams = int(num_streams)
        self.stream_capacity = int(capacity) // self.num_streams
        self.frame_shape = tuple(int(d) for d in frame_shape)
        self.frame_dtype = np.dtype(frame_dtype)
        shape = (self.num_streams, self.stream_capacity)
        self.frames = np.zeros(shape + self.frame_shape, self.frame_dtype)
        self.actions = np.zeros(shape, np.int32)
        self.rewards = np.zeros(shape, np.float32)
        self.terminals = np.zeros(shape, bool)
        self.lasts = np.zeros(shape, bool)
        self.lasts_before = np.zeros(shape, np.int64)
        self.counts = np.zeros(self.num_streams, np.int64)
        self._lasts_total = np.zeros(self.num_streams, np.int64)

    @staticmethod
    def bytes_per_entry(frame_shape, frame_dtype) -> int:
        """Bytes one entry occupies across the arrays above: what a replay's memory need is made of."""
        frame = int(np.prod(frame_shape, dtype=np.int64)) * np.dtype(frame_dtype).itemsize
        per_entry = (np.int32, np.float32, bool, bool, np.int64)  # actions, rewards, terminals, lasts, lasts_before
        return frame + sum(np.dtype(kind).itemsize for kind in per_entry)

    @property
    def capacity(self) -> int:
        """Entries the storage can hold (num_streams * per-stream capacity)."""
        return self.num_streams * self.stream_capacity

    def add(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None:
        """Append one entry to each listed stream, as one vectorised write (arrays of length B)."""
        ids = np.asarray(stream_ids, np.int64).reshape(-1)
        self._check_ids(ids)
        frames = np.asarray(frames)
        if frames.shape != (len(ids),) + self.frame_shape:
            raise ValueError(f"frames shaped {frames.shape}, expected {(len(ids),) + self.frame_shape}")
        lasts = np.asarray(lasts, bool).reshape(-1)
        slots = self.counts[ids] % self.stream_capacity
        self.frames[ids, slots] = frames
        self.actions[ids, slots] = np.asarray(actions).reshape(-1)
        self.rewards[ids, slots] = np.asarray(rewards, np.float32).reshape(-1)
        self.terminals[ids, slots] = np.asarray(terminals, bool).reshape(-1)
        self.lasts[ids, slots] = lasts
        self.lasts_before[ids, slots] = self._lasts_total[ids]
        self._lasts_total[ids] += lasts
        self.counts[ids] += 1

    def _check_ids(self, ids: np.ndarray) -> None:
        """Duplicate ids in one call would silently drop entries in the fancy-indexed write."""
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_streams):
            raise ValueError(f"stream ids must lie in [0, {self.num_streams}), got {ids.tolist()}")
        if np.unique(ids).size != ids.size:
            raise ValueError(f"stream ids must be unique within one add call, got {ids.tolist()}")

    def slots(self, indices: np.ndarray) -> np.ndarray:
        """Ring slot of absolute entry indices."""
        return np.asarray(indices) % self.stream_capacity

    def size(self) -> int:
        """Entries currently held."""
        return int(np.minimum(self.counts, self.stream_capacity).sum())

    def added(self) -> int:
        """Entries ever written."""
        return int(self.counts.sum())

    ARRAYS = ("frames", "actions", "rewards", "terminals", "lasts", "lasts_before", "counts", "_lasts_total")

    def state(self) -> dict[str, np.ndarray]:
        """Everything held, by name (what `restore` takes back)."""
        return {name: getattr(self, name) for name in self.ARRAYS}

    def restore(self, state) -> None:
        """Take back `state()` of a storage of the same shape. The actors that wrote it are gone, so
        each stream's newest entry is marked as an episode's last: nothing is stitched onto it."""
        for name in self.ARRAYS:
            if state[name].shape != getattr(self, name).shape:
                raise ValueError(
                    f"saved replay {name} is shaped {state[name].shape}, this replay's {getattr(self, name).shape}"
                )
            getattr(self, name)[...] = state[name]
        for stream in np.flatnonzero(self.counts):
            newest = (self.counts[stream] - 1) % self.stream_capacity
            if not self.lasts[stream, newest]:
                self.lasts[stream, newest] = True
                self._lasts_total[stream] += 1

    def nbytes(self) -> int:
        """Total bytes of the storage arrays."""
        arrays = (
            self.frames,
            self.actions,
            self.rewards,
            self.terminals,
            self.lasts,
            self.lasts_before,
            self.counts,
            self._lasts_total,
        )
        return int(sum(a.nbytes for a in arrays))
