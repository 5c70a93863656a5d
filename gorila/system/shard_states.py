"""The parameter shards' last states, kept by the driver and given back to a shard that Ray restarts.

A restarted shard would otherwise start again from theta_0 in the middle of a run wherever its node
cannot read the driver's disk. Instead the driver keeps every shard's latest state in its own
memory (copied every `shard_copy_every_seconds`; at the start, theta_0's or the resumed one), and
the runtime holds a restarted shard's calls until the driver has sent it that state
(`Role.waits_for_state`): no learner or actor ever reads a theta+ that went back to theta_0. The
runtime asks for the state from a thread of the driver (`watch_restarts`), so a shard is restored
at once, also while the driver's own loop waits on that shard (for a backup, say), which it would
otherwise wait for for ever.
"""

from __future__ import annotations

import queue
from dataclasses import dataclass

from gorila.core import ShardServer
from gorila.runtime.calls import failure_reason


@dataclass(frozen=True)
class Restored:
    """A restarted shard that the driver gave a state (or failed to: `error`)."""

    index: int
    process: tuple  # (node, pid) of its new process
    env_frames: int  # when the state it was given was taken
    version: int = 0  # the version of that state: the shard goes on from there
    error: str = ""


class ShardStates:
    """The driver's copy of each shard's last state; `give_back` gives one back (called by the runtime's
    restart watch, in its thread), `restored` lists what was given since the last look."""

    def __init__(self, runtime, shards: list, first: list[dict] | None, env_frames: int = 0):
        """Keep `first` (the shards' states at the start, taken at `env_frames`) and watch for restarts
        from now on; with None (a runtime that never restarts a shard) keep and watch nothing."""
        self.shards, self.calls = shards, runtime.calls
        self._restored: queue.SimpleQueue = queue.SimpleQueue()
        self.latest: tuple[list[dict], int] | None = None
        if first is not None:
            self.keep(first, env_frames)
            runtime.watch_restarts(shards, self.give_back)

    def keep(self, states: list[dict], env_frames: int) -> None:
        """Keep `states` (one per shard, taken at `env_frames`) for restarts from now on."""
        self.latest = (list(states), int(env_frames))  # one assignment: the watch's thread reads it

    def give_all(self) -> None:
        """Give every shard its kept state now: a resumed run's first starts read the checkpoint's state
        from the run directory, which a shard on another node cannot read (it would start from theta_0).
        Nothing without kept states (the local runtime, whose shards read the driver's own disk)."""
        if self.latest:
            states, _ = self.latest
            self.calls.get(
                [self.calls.call(shard, ShardServer.restore, state) for shard, state in zip(self.shards, states)]
            )

    def give_back(self, index: int, process: tuple) -> None:
        """Give restarted shard `index` (now in `process`) its last kept state and wait until it has it."""
        states, frames = self.latest
        try:
            self.calls.get([self.calls.call(self.shards[index], ShardServer.restore, states[index])])
        except Exception as error:  # told to the driver's loop, which ends the run with it
            self._restored.put(Restored(index, process, frames, error=failure_reason(error)))
            return
        self._restored.put(Restored(index, process, frames, int(states[index]["version"])))

    def restored(self) -> list[Restored]:
        """The shards restored (or not) since the last call, oldest first."""
        found = []
        while not self._restored.empty():
            found.append(self._restored.get())
        return found
