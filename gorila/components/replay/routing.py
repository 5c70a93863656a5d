"""Moving transitions between actors, replay memories and learners, in batches.

`ReplayWriter` sends each of an actor's environment streams to the replay memory that holds it (its
local replay, or one shard of the global replay), buffering remote writes so that at least 64
transitions cross a process boundary at a time. `ReplaySampler` draws one minibatch across several
replay memories, as one memory holding all their transitions would (uniformly, or by priority), asking
each for its share, and sends the learner's new priorities back to the memories they came from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from gorila.components.replay.priorities import importance_weights
from gorila.core import ReplayServer
from gorila.messages import Minibatch, ReplayMass

MIN_REMOTE_BATCH = 64


@dataclass(frozen=True)
class Route:
    """Env slots of one actor whose streams live in one replay memory, and their stream ids there."""

    replay: int
    slots: tuple[int, ...]
    streams: tuple[int, ...]


class ReplayWriter:
    """Buffers one entry per env slot and step, and flushes them to their replay memories."""

    def __init__(self, replays: list, routes: list[Route], calls, batch_steps: int = 1):
        self.targets = [(replays[route.replay], np.array(route.slots), np.array(route.streams)) for route in routes]
        self.calls = calls
        self.batch_steps = batch_steps
        self.buffer: list[tuple] = []
        self.pending: list = []

    def add(self, frames, actions, rewards, terminals, lasts) -> None:
        """One entry per env slot: the newest frame of s_t, a_t, r_t, terminal_t, last_t."""
        if self.batch_steps == 1:  # one step per write: no stacking
            self._send(
                ReplayServer.add, [frames, actions, rewards, terminals, lasts], lambda column, slots: column[slots]
            )
            return
        self.buffer.append((frames, actions, rewards, terminals, lasts))
        if len(self.buffer) >= self.batch_steps:
            self.flush()

    def flush(self) -> None:
        if not self.buffer:
            return
        columns = [np.stack(column) for column in zip(*self.buffer)]  # each [T, K, ...]
        self.buffer = []
        self._send(ReplayServer.add_steps, columns, lambda column, slots: column[:, slots])

    def _send(self, method, columns: list, take) -> None:
        """Send each replay `take(column, slots)` of every column. Waits for the previous write
        first: at most one write per actor is in flight, which bounds memory."""
        self.calls.get(self.pending)
        self.pending = [
            self.calls.call(replay, method, streams, *[take(column, slots) for column in columns])
            for replay, slots, streams in self.targets
        ]


def remote_batch_steps(num_slots: int) -> int:
    """Steps to buffer so that one remote write carries at least MIN_REMOTE_BATCH transitions."""
    return max(1, -(-MIN_REMOTE_BATCH // num_slots))


class ReplaySampler:
    """One minibatch drawn across several replay memories, distributed as if one memory held it all.

    How many of the batch each memory gives is drawn from a multinomial over the memories' masses, and
    each memory draws its share independently by its own distribution. Uniform memories: the mass is
    the sampleable count, so a transition is as likely as any other whichever memory holds it (a
    global-replay shard with more streams, or fuller, gives more; equal shares would favour the
    transitions of the smaller memories). Prioritised memories: the mass is P_m = sum of p_i there, so
    entry i of memory m is drawn with probability (P_m / P) (p_i / P_m) = p_i / P, P summed over all
    memories: one memory's distribution. The importance-sampling weights are therefore computed here,
    against P and the global N, and not by each memory against its own.

    The masses are those each memory sent with its previous share (the first minibatch asks for them):
    they are one minibatch old, which moves a memory's odds by a few transitions in its thousands, and
    costs no extra round trip.
    """

    def __init__(self, replays: list, calls, seed: int = 0):
        self.replays = replays
        self.calls = calls
        self.rng = np.random.default_rng(seed)
        self.masses: list[ReplayMass] | None = None
        self.sizes: list[int] = []  # entries each memory gave to the last minibatch
        self.pending: list = []  # priority updates in flight

    def sample(self, batch_size: int) -> Minibatch | None:
        if self.masses is None:
            self.masses = self.calls.get([self.calls.call(replay, ReplayServer.mass) for replay in self.replays])
        shares = self.shares(batch_size)
        replies = self.calls.get(
            [
                self.calls.call(replay, ReplayServer.sample_share, int(share))
                for replay, share in zip(self.replays, shares)
            ]
        )
        self.masses = [mass for _, mass in replies]
        parts = [part for part, _ in replies]  # a share of 0 is an empty minibatch
        if any(part is None for part in parts):
            return None
        self.sizes = [len(part) for part in parts]
        batch = Minibatch.concatenate(parts)
        if batch.priorities is None:
            return batch
        entries = sum(mass.entries for mass in self.masses)
        beta = float(np.mean([mass.beta for mass in self.masses]))  # alike: every stream writes alike
        return replace(
            batch, weights=importance_weights(batch.priorities, sum(mass.mass for mass in self.masses), entries, beta)
        )

    def shares(self, batch_size: int) -> np.ndarray:
        """Transitions to draw from each memory: multinomial over their masses (equal while all are empty)."""
        masses = np.array([mass.mass for mass in self.masses])
        total = masses.sum()
        weights = masses / total if total else np.full(len(self.replays), 1 / len(self.replays))
        return self.rng.multinomial(batch_size, weights)

    def update_priorities(self, streams, indices, td_errors) -> None:
        """Send each memory the new |delta| of the entries it gave to the last minibatch, without waiting
        for the answer: the previous round is waited for first (long arrived by then), so at most one
        round per learner is in flight and the learner's next update does not wait on the memories."""
        self.calls.get(self.pending)
        bounds = np.cumsum([0, *self.sizes])
        self.pending = [
            self.calls.call(replay, ReplayServer.update_priorities, streams[a:b], indices[a:b], td_errors[a:b])
            for replay, a, b in zip(self.replays, bounds[:-1], bounds[1:])
            if b > a
        ]

    def stats(self) -> list[dict]:
        return self.calls.get([self.calls.call(replay, ReplayServer.stats) for replay in self.replays])
