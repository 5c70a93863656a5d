"""The driver's thread that gives a restarted component (a parameter shard, or a worker holding some)
its last state as soon as its new process waits for it (`RestartWatch`)."""

from __future__ import annotations

import threading
import time
from typing import Callable

import ray

WATCH_POLL_S = 0.5  # how soon the restart watch notices that it is being stopped


class RestartWatch(threading.Thread):
    """The driver's thread that hands restarted components to `restored` as soon as they wait for
    their state: one standing `awaiting_state` call per component, which only a restarted process
    answers, renewed after `restored` has run (so the process it answered from is served once)."""

    def __init__(self, handles, restored: Callable[[int, tuple], None]):
        super().__init__(name="gorila-restart-watch", daemon=True)
        self.handles, self.restored, self.stopping = list(handles), restored, threading.Event()
        self.deadline = float("inf")  # when a stopping watch gives up on its standing calls

    def run(self) -> None:
        """Until stopped, and then until every standing call has answered (so that no call is left
        pending on a component about to be ended, which Ray would retry and say so on the terminal)."""
        watches = {self._watch(index): index for index in range(len(self.handles))}
        while watches and time.monotonic() < self.deadline:
            done, _ = ray.wait(list(watches), num_returns=1, timeout=WATCH_POLL_S)
            for future in done:
                index = watches.pop(future)
                try:
                    process = ray.get(future)
                    if process is None or self.stopping.is_set():  # released: the run is ending
                        continue
                    self.restored(index, tuple(process))
                except ray.exceptions.ActorDiedError:  # ended for good (the run is shutting down)
                    continue
                except ray.exceptions.RayActorError:  # its process was lost while answering: ask again
                    pass
                if not self.stopping.is_set():
                    watches[self._watch(index)] = index

    def _watch(self, index: int):
        return self.handles[index].awaiting_state.remote()

    def stop(self) -> None:
        """Release every standing call and wait (a few seconds at most) until each has answered."""
        self.deadline = time.monotonic() + 10 * WATCH_POLL_S
        self.stopping.set()
        ray.wait(
            [handle.stop_awaiting.remote() for handle in self.handles],
            num_returns=len(self.handles),
            timeout=10 * WATCH_POLL_S,
        )
        self.join(timeout=10 * WATCH_POLL_S)
