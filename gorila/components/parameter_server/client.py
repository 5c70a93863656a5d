"""The client side of the sharded parameter server: fan a gradient out, gather theta back.

theta+ is one flat float32 vector split into `N_param` contiguous slices of near-equal size, one per
shard. A learner pushes the slices of its gradient to every shard without waiting for the answers (at
most `max_inflight` pushes outstanding), so the server stays off its critical path. Its refresh of
theta+ rides on a push: pipelined (the answer to the previous push, never waited for) or synchronous
(the answer to this push, which includes the gradient just sent).
"""
from __future__ import annotations

from collections import deque

import numpy as np

from gorila.contracts import ShardServer


def synchronous_refresh(config) -> bool:
    """Does a learner of this `Config` wait for the theta+ that includes its own last push
    (`learner_refresh`; `auto` waits only where waiting costs nothing, on the local runtime)?"""
    if config.learner_refresh == "auto":
        return config.runtime == "local"
    return config.learner_refresh == "synchronous"


def slice_bounds(size: int, num_shards: int) -> list[tuple[int, int]]:
    """Contiguous [start, stop) ranges covering `size` entries, sizes differing by at most one."""
    if num_shards < 1 or num_shards > size:
        raise ValueError(f"cannot split {size} parameters into {num_shards} shards "
                         f"(need 1 <= param_shards <= {size})")
    edges = np.linspace(0, size, num_shards + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


class ParameterClient:
    """Talks to all shards through `calls` (direct or Ray), tracking the versions it last saw."""

    def __init__(self, shards: list, bounds: list[tuple[int, int]], calls, max_inflight: int = 4,
                 synchronous: bool = False):
        self.shards = shards
        self.synchronous = synchronous
        self.bounds = bounds
        self.calls = calls
        self.max_inflight = max_inflight
        self.inflight: deque = deque()
        self.versions = np.zeros(len(shards), np.int64)
        self.target_versions = np.full(len(shards), -1, np.int64)
        self.prefetched: list | None = None

    def push(self, gradient: np.ndarray, base_versions: np.ndarray) -> None:
        """Send each shard its slice of the gradient and the version it was computed on; do not wait.

        `gradient` is one flat gradient, or several stacked ([T, size]) to be applied one after another.
        """
        self._send(ShardServer.apply_batch, gradient, base_versions)

    def push_and_pull(self, gradient: np.ndarray, base_versions: np.ndarray) -> tuple[np.ndarray, bool]:
        """Push a gradient and ask for theta+ in the same calls: one round trip per update, not two.

        Pipelined, return the theta+ asked for with the previous push: the caller never waits for the
        answer to its own push (it reads it at its next refresh), so its next gradient is computed on
        parameters without this one. Synchronous, wait for this push's answer: theta+ with it applied.
        """
        futures = self._send(ShardServer.apply_and_pull, gradient, base_versions)
        if self.synchronous:
            self.inflight.pop()                 # answered here: nothing left in flight to drain
            return self._absorb(self.calls.get(futures))
        previous, self.prefetched = self.prefetched, futures
        return self._absorb(self.calls.get(previous if previous is not None else self._request()))

    def _send(self, method, gradient: np.ndarray, base_versions: np.ndarray) -> list:
        rows = np.atleast_2d(gradient)
        futures = [self.calls.call(shard, method, np.ascontiguousarray(rows[:, start:stop]), int(version))
                   for shard, (start, stop), version in zip(self.shards, self.bounds, base_versions)]
        self.inflight.append(futures)
        while len(self.inflight) > self.max_inflight:
            self.calls.get(self.inflight.popleft())
        return futures

    def drain(self) -> None:
        """Wait for every outstanding push (before a checkpoint or shutdown)."""
        while self.inflight:
            self.calls.get(self.inflight.popleft())

    def pull(self, prefetch: bool = False) -> tuple[np.ndarray, bool]:
        """theta+ gathered from all shards; also says whether theta- changed since the last pull.

        With `prefetch`, return the answer to the request made at the previous call and send the next
        request at once: the caller never waits for the server, at the cost of parameters one refresh
        older. Both runtimes do the same, so they compute the same thing.
        """
        if prefetch and self.prefetched is not None:
            replies = self.calls.get(self.prefetched)
        else:
            replies = self.calls.get(self._request())
        if prefetch:
            self.prefetched = self._request()
        return self._absorb(replies)

    def _absorb(self, replies: list) -> tuple[np.ndarray, bool]:
        """theta+ from the shards' (slice, version, target_version) replies; records the versions."""
        flat = np.concatenate([theta for theta, _, _ in replies])
        self.versions = np.array([version for _, version, _ in replies], np.int64)
        targets = np.array([target for _, _, target in replies], np.int64)
        target_changed = bool((targets != self.target_versions).any())
        self.target_versions = targets
        return flat, target_changed

    def _request(self) -> list:
        return [self.calls.call(shard, ShardServer.pull) for shard in self.shards]

    def pull_target(self) -> np.ndarray:
        """theta- gathered from all shards."""
        futures = [self.calls.call(shard, ShardServer.pull_target) for shard in self.shards]
        return np.concatenate(self.calls.get(futures))

    def stats(self) -> list[dict]:
        return self.calls.get([self.calls.call(shard, ShardServer.stats) for shard in self.shards])

    def states(self) -> list[dict]:
        return self.calls.get([self.calls.call(shard, ShardServer.state) for shard in self.shards])
