"""Synchronous SGD in rounds: one update of a shard is the mean of one gradient from each learner.

Gorila's shards apply each gradient as it comes (asynchronous SGD), so with N learners each gradient
is computed on parameters that the others' updates have moved since. In rounds (synchronous SGD,
Chen et al. 2016, "Revisiting distributed synchronous SGD"), a shard sums the gradients computed on
its current version and applies their mean once every learner's has come: N learners learn as one
with a minibatch N times as large, and each waits for the round's theta+ before its next gradient.

A round whose missing learners have not come within `timeout` seconds (a learner restarted, or left
without work at the end of the run) is applied with the gradients it has, and the rounds after it
wait only for those learners; a gradient computed on the version before (its learner missed a round)
joins the current round and has its learner waited for again.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import torch


class Rounds:
    """The round a shard's gradients gather in. Every method is called with the shard's lock held
    (`lock`), which `join` gives up while it waits."""

    def __init__(self, size: int, timeout: float, lock):
        self.size, self.timeout = size, timeout
        self.members = size  # the learners the current round waits for
        self.changed = threading.Condition(lock)
        self.number = 0  # rounds ended so far (applied, or dropped by a restore)
        self.dropped: set[int] = set()  # the rounds a restore dropped
        self.total: torch.Tensor | None = None  # the sum of the current round's gradients
        self.count = 0

    def join(self, gradient: torch.Tensor, late: bool, apply: Callable[[torch.Tensor], None]) -> bool:
        """Add `gradient` to the current round and return once the round is over: applied (True,
        `apply` given the mean of its gradients) or dropped by a restore (False). `late`: computed
        on a version before the current one (its learner missed a round)."""
        if late:
            self.members = min(self.size, self.members + 1)
        self.total = gradient.clone() if self.count == 0 else self.total.add_(gradient)
        self.count += 1
        number, deadline = self.number, time.monotonic() + self.timeout
        while self.number == number:
            left = deadline - time.monotonic()
            if self.count >= self.members or left <= 0:
                self.members = self.count  # those who did not come are not waited for until they do
                self._end(apply)
                break
            self.changed.wait(left)
        return number not in self.dropped

    def drop(self) -> None:
        """End the current round unapplied: a restore replaced the parameters its gradients were computed on."""
        if self.count:
            self.dropped.add(self.number)
            self._end(None)

    def _end(self, apply: Callable[[torch.Tensor], None] | None) -> None:
        if apply is not None:
            apply(self.total / self.count)
        self.total, self.count = None, 0
        self.number += 1
        self.changed.notify_all()
