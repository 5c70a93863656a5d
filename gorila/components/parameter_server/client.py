"""The client side of the sharded parameter server: fan a gradient out, gather theta back.

theta+ is one flat float32 vector split into `N_param` contiguous slices of near-equal size, one per
shard. A learner pushes the slices of its gradient to every shard without waiting for the answers (at
most `max_inflight` pushes outstanding), so the server stays off its critical path. Its refresh of
theta+ rides on a push: pipelined (the answer to the previous push, never waited for) or synchronous
(the answer to this push, which includes the gradient just sent).

A shard in the client's own process (every shard on the local runtime; on Ray, those placed beside
this learner) is called directly, with tensors: its gradient slice is a view of the learner's, on the
learner's device, and its theta+ comes back as a tensor there. Only the slices of shards in other
processes travel, as numpy arrays. Either way theta+ reaches the caller as one tensor on its `device`.
"""

from __future__ import annotations

import time
from collections import deque

import numpy as np
import torch

from gorila.components.parameter_server.shard import ParameterShard
from gorila.core import ShardServer
from gorila.runtime.calls import DirectCalls


def slice_bounds(size: int, num_shards: int) -> list[tuple[int, int]]:
    """Contiguous [start, stop) ranges covering `size` entries, sizes differing by at most one."""
    if num_shards < 1 or num_shards > size:
        raise ValueError(f"cannot split {size} parameters into {num_shards} shards (need 1 <= param_shards <= {size})")
    edges = np.linspace(0, size, num_shards + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:])]


class SameProcessShard:
    """A shard in the caller's own process, called by the contract's names without a copy on the way in:
    gradients go in as tensors on the shard's device, theta+ and theta- come out as tensors there."""

    def __init__(self, shard: ParameterShard):
        self.shard = shard

    def apply_batch(self, gradients, base_version: int) -> int:
        return self.shard.apply_batch(gradients, base_version)

    def apply_and_pull(self, gradients, base_version: int) -> tuple[torch.Tensor, int, int]:
        return self.shard.apply_and_snapshot(gradients, base_version)

    def pull(self) -> tuple[torch.Tensor, int, int]:
        return self.shard.snapshot()

    def pull_target(self) -> torch.Tensor:
        return self.shard.target_snapshot()

    def stats(self) -> dict:
        return self.shard.stats()

    def state(self) -> dict:
        return self.shard.state()


class ParameterClient:
    """Talks to all shards (directly to those in this process, through `calls` to the others),
    tracking the versions it last saw; theta+ comes back as a tensor on `device`."""

    def __init__(
        self,
        shards: list,
        bounds: list[tuple[int, int]],
        calls,
        max_inflight: int = 4,
        synchronous: bool = False,
        device: torch.device | str = "cpu",
    ):
        here = [isinstance(shard, ParameterShard) for shard in shards]
        self.shards = [SameProcessShard(shard) if local else shard for shard, local in zip(shards, here)]
        self.shard_calls = [DirectCalls() if local else calls for local in here]
        self.all_here, self.none_here = all(here), not any(here)
        self.device = torch.device(device)
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

        `gradient` is one flat gradient, or several stacked ([T, size]) to be applied one after another:
        a tensor (on the learner's device) or an array.
        """
        self._send(ShardServer.apply_batch, gradient, base_versions)

    def push_and_pull(self, gradient, base_versions: np.ndarray) -> tuple[torch.Tensor, bool]:
        """Push a gradient and ask for theta+ in the same calls: one round trip per update, not two.

        Pipelined, return the theta+ asked for with the previous push: the caller never waits for the
        answer to its own push (it reads it at its next refresh), so its next gradient is computed on
        parameters without this one. Synchronous, wait for this push's answer: theta+ with it applied.
        """
        futures = self._send(ShardServer.apply_and_pull, gradient, base_versions)
        if self.synchronous:
            self.inflight.pop()  # answered here: nothing left in flight to drain
            return self._absorb(self._get(futures))
        previous, self.prefetched = self.prefetched, futures
        return self._absorb(self._get(previous if previous is not None else self._request()))

    def _send(self, method, gradient, base_versions: np.ndarray) -> list:
        rows = torch.atleast_2d(torch.as_tensor(gradient))
        travelling = None if self.all_here else rows.cpu().numpy()  # one copy off the device, if any
        futures = []
        for shard, calls, (start, stop), version in zip(self.shards, self.shard_calls, self.bounds, base_versions):
            local = isinstance(shard, SameProcessShard)
            part = rows[:, start:stop] if local else np.ascontiguousarray(travelling[:, start:stop])
            futures.append(calls.call(shard, method, part, int(version)))
        self.inflight.append(futures)
        while len(self.inflight) > self.max_inflight:
            self._get(self.inflight.popleft())
        return futures

    def forget(self) -> None:
        """Drop the refresh asked for earlier: the next pull waits for theta+ as it is now."""
        self.prefetched = None

    def drain(self) -> None:
        """Wait for every outstanding push (before a checkpoint or shutdown)."""
        while self.inflight:
            self._get(self.inflight.popleft())

    def pull(self, prefetch: bool = False) -> tuple[torch.Tensor, bool]:
        """theta+ gathered from all shards; also says whether theta- changed since the last pull.

        With `prefetch`, return the answer to the request made at the previous call and send the next
        request at once: the caller never waits for the server, at the cost of parameters one refresh
        older. Both runtimes do the same, so they compute the same thing.
        """
        if prefetch and self.prefetched is not None:
            replies = self._get(self.prefetched)
        else:
            replies = self._get(self._request())
        if prefetch:
            self.prefetched = self._request()
        return self._absorb(replies)

    def _absorb(self, replies: list) -> tuple[torch.Tensor, bool]:
        """theta+ from the shards' (slice, version, target_version) replies; records the versions."""
        flat = self._join([theta for theta, _, _ in replies])
        self.versions = np.array([version for _, version, _ in replies], np.int64)
        targets = np.array([target for _, _, target in replies], np.int64)
        target_changed = bool((targets != self.target_versions).any())
        self.target_versions = targets
        return flat, target_changed

    def _join(self, slices: list) -> torch.Tensor:
        """One vector on this client's device from the shards' slices (tensors or arrays)."""
        parts = [torch.as_tensor(part).to(self.device) for part in slices]
        return parts[0] if len(parts) == 1 else torch.cat(parts)

    def _each(self, method) -> list:
        """`method` called on every shard, not waited for."""
        return [calls.call(shard, method) for shard, calls in zip(self.shards, self.shard_calls)]

    def _get(self, futures: list, timeout: float | None = None) -> list:
        """The answers of one call per shard (`_each`), in shard order; TimeoutError when the shards in
        other processes have not all answered within `timeout` seconds."""
        if self.none_here:
            return self.calls.get(futures, timeout)
        return [calls.get([future], timeout)[0] for calls, future in zip(self.shard_calls, futures)]

    def _request(self) -> list:
        return self._each(ShardServer.pull)

    def pull_target(self) -> torch.Tensor:
        """theta- gathered from all shards."""
        return self._join(self._get(self._each(ShardServer.pull_target)))

    def stats(self) -> list[dict]:
        return self._get(self._each(ShardServer.stats))

    def answered_stats(self, timeout: float) -> list[dict]:
        """The stats of the shards that answer within `timeout` seconds in all (a shard being restarted
        after its process or node was lost does not), in shard order."""
        futures = self._each(ShardServer.stats)
        deadline, answers = time.monotonic() + timeout, []
        for calls, future in zip(self.shard_calls, futures):
            try:
                answers.append(calls.get([future], max(deadline - time.monotonic(), 0.0))[0])
            except TimeoutError:
                continue
            except Exception as error:
                if not calls.lost(error):
                    raise
        return answers

    def states(self, timeout: float | None = None) -> list[dict]:
        return self._get(self._each(ShardServer.state), timeout)
