"""`ReplayMemory`: an actor's local replay, or one shard of the global replay.

State (the rings) lives in `StreamStorage`; which entries to draw is its `Sampler`'s choice (uniform,
or prioritised: `samplers`); stack rebuilding and n-step folding are the functions in `sampling`. This
class only ties them together with a seeded RNG and a warm-up size.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from gorila.components.replay import sampling
from gorila.components.replay.priorities import PriorityRule
from gorila.components.replay.samplers import make_sampler
from gorila.components.replay.storage import StreamStorage
from gorila.messages import Minibatch, ReplayMass


class ReplayMemory:
    """Replay over streams of entries (one entry per env step, each frame stored once): uniform, or
    proportionally prioritised when given a `PriorityRule`."""

    def __init__(
        self,
        capacity: int,
        num_streams: int,
        frame_shape,
        frame_dtype,
        stack: int = 1,
        n_step: int = 1,
        gamma: float = 0.99,
        seed: int = 0,
        min_size: int = 1,
        priority: PriorityRule | None = None,
    ):
        _check_args(capacity, num_streams, stack, n_step, gamma, min_size)
        self.storage = StreamStorage(capacity, num_streams, frame_shape, frame_dtype)
        self.stack, self.n_step, self.gamma = int(stack), int(n_step), float(gamma)
        self.min_size = int(min_size)
        self.rng = np.random.default_rng(seed)
        self.sampler = make_sampler(self.storage, stack, n_step, priority)

    def add(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None:
        """Append one entry per listed stream (see `StreamStorage.add`)."""
        self.storage.add(stream_ids, frames, actions, rewards, terminals, lasts)
        self.sampler.written(stream_ids)

    def add_steps(self, stream_ids, frames, actions, rewards, terminals, lasts) -> None:
        """Append T steps at once (arrays [T, len(stream_ids), ...]), oldest first: a batched write."""
        for step in zip(frames, actions, rewards, terminals, lasts):
            self.add(stream_ids, *step)

    def sampleable(self) -> int:
        """Entries that can currently be drawn as a state s_t (the N of `mass()`)."""
        return self.mass().entries

    def sample(self, batch_size: int) -> Minibatch | None:
        """A minibatch, or None while fewer than `min_size` entries are sampleable; prioritised, with
        importance-sampling weights against this memory's own N and priority mass.

        obs/next_obs are [B, stack, *frame] when stack > 1 and [B, *frame] when stack == 1, in the
        frame dtype (uint8 stays uint8 until the network).
        """
        batch, mass = self.sample_share(batch_size)
        return None if batch is None else self.sampler.weigh(batch, mass)

    def sample_share(self, batch_size: int) -> tuple[Minibatch | None, ReplayMass]:
        """This memory's share of a minibatch split over several memories (None while warming up; its
        weights are left to the sampler, which knows every memory's mass), and `mass()`: the weight of
        its next share."""
        mass = self.mass()
        if mass.entries < self.min_size:
            return None, mass
        streams, indices, fields = self.sampler.draw(int(batch_size), self.rng)
        return replace(self.gather(streams, indices), **fields), mass

    def mass(self) -> ReplayMass:
        """Sampleable entries N, their priority mass (N when uniform) and the annealed beta."""
        return self.sampler.mass()

    def update_priorities(self, streams, indices, td_errors) -> None:
        """p_i = (|delta_i| + eps)^alpha for entries this memory gave out and still holds as they were
        (nothing for a uniform memory)."""
        self.sampler.update(streams, indices, td_errors)

    def gather(self, streams, indices) -> Minibatch:
        """The batch for explicit (stream, absolute index) pairs, shaped like `sample`'s."""
        batch = sampling.gather_batch(self.storage, streams, indices, self.stack, self.n_step, self.gamma)
        if self.stack == 1:
            batch["obs"], batch["next_obs"] = batch["obs"][:, 0], batch["next_obs"][:, 0]
        return Minibatch(batch["obs"], batch["actions"], batch["returns"], batch["discounts"], batch["next_obs"])

    def stats(self) -> dict:
        """Size, capacity, entries ever added and bytes held, for metrics (and the sampler's own)."""
        stats = {
            "size": self.storage.size(),
            "capacity": self.storage.capacity,
            "added": self.storage.added(),
            "nbytes": self.storage.nbytes() + self.sampler.nbytes(),
        }
        return {**stats, **self.sampler.stats()}

    def __len__(self) -> int:
        return self.storage.size()

    def replay_size(self) -> int:
        return self.sampleable()

    def save_replay(self, path: str) -> int:
        """Write the contents to `path` (.npz, compressed; atomically); the bytes written."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".tmp")
        try:
            with open(temporary, "wb") as file:
                np.savez_compressed(
                    file,
                    rng=np.array(json.dumps(self.rng.bit_generator.state)),
                    **self.storage.state(),
                    **self.sampler.state(),
                )
        except BaseException:
            temporary.unlink(missing_ok=True)  # a full disk leaves no half-written file behind
            raise
        os.replace(temporary, path)
        return path.stat().st_size

    def load_replay(self, path: str) -> None:
        """Continue from what `save_replay` wrote."""
        with np.load(path) as saved:
            self.storage.restore(saved)
            self.sampler.restore(saved)
            self.rng.bit_generator.state = json.loads(str(saved["rng"]))


def _check_args(capacity, num_streams, stack, n_step, gamma, min_size) -> None:
    """Reject settings under which some stream could never yield a sample, with the reason."""
    if stack < 1 or n_step < 1 or min_size < 1:
        raise ValueError(f"stack, n_step and min_size must be >= 1, got {stack}, {n_step}, {min_size}")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    if num_streams < 1:
        raise ValueError(f"num_streams must be >= 1, got {num_streams}")
    needed = num_streams * (stack + n_step + 1)
    if capacity < needed:
        raise ValueError(
            f"replay capacity {capacity} is too small: each of the {num_streams} streams needs "
            f"stack + n_step + 1 = {stack + n_step + 1} entries, so capacity must be >= {needed}"
        )
