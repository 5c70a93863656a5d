"""Workers waiting for room on the cluster. A worker that has not come back from a restart within
`restart_timeout_seconds` (most often a node lost and no node left with the CPUs it asks for, so Ray
holds its restart until one has them) is set aside: the driver gives it no work and the run goes on
with the others, smaller, and says so. Ray places it as soon as a node has room (a node joins, or
CPUs are freed); the driver's look at it then answers, and it takes work again: the run grows back.

A worker that serves parameter shards in its process is never set aside: without its shards no
learner can update, so the run cannot go on smaller (`gorila.system.recovery` ends it instead)."""

from __future__ import annotations

import time
from typing import Callable

from gorila.placement import Kind, WorkerId
from gorila.runtime.calls import WorkerError
from gorila.system.faults import not_back
from gorila.system.scheduler import Job


class WaitingRoom:
    """The workers set aside, each with a call that answers once it is back: the call it had in flight
    when it was set aside, else a look (`look(worker)`: a call of no work, made again while Ray
    refuses it). Either is handed back with its Job, for the driver to take its report as any other."""

    def __init__(self, calls, workers, look: Callable, config, say: Callable[[str], None]):
        self.calls, self.workers, self.look = calls, workers, look
        self.config, self.say = config, say
        self.waiting: dict[WorkerId, tuple] = {}  # worker -> (a call that answers once it is back, its Job)

    def __contains__(self, worker: WorkerId) -> bool:
        return worker in self.waiting

    def set_aside(self, worker: WorkerId, future, job: Job | None, seconds: float) -> None:
        """Keep `worker` out of the run until `future` (its call in flight, if any) or a look answers,
        and say so; WorkerError when no worker of its kind is left at work."""
        self.waiting[worker] = (future, job)
        self.say(
            f"{worker} has not come back {seconds:.0f} s after it was lost: most often no node has room for it "
            f"({self.config.worker_cpus:g} CPU); the run goes on with {self.at_work(worker.role)} and takes "
            f"{worker} back once Ray places it"
        )
        if self.nobody_left():
            raise WorkerError(not_back(worker, seconds, self.config))

    def back(self) -> list[tuple]:
        """(future, job) of each worker whose call has answered since the last look: it is back. A
        call that failed (Ray refuses calls while the restart waits) is made again next look."""
        for worker, (future, _) in list(self.waiting.items()):
            if future is None:
                self.waiting[worker] = (self.look(worker), Job(worker, 0, time.time()))
        futures = {future: worker for worker, (future, _) in self.waiting.items()}
        back = []
        while futures:
            ready, _ = self.calls.wait(list(futures), timeout=0)
            if not ready:
                break
            worker = futures.pop(ready[0])
            try:
                self.calls.get(ready)
            except Exception as error:
                if not self.calls.lost(error):
                    raise
                self.waiting[worker] = (None, None)  # refused while it waits: look again next time
                continue
            back.append(self.waiting.pop(worker))
            self.say(f"{worker} is back: {self.at_work(worker.role)} at work")
        return back

    def at_work(self, role: Kind) -> str:
        """'N of M <role>s' at work now."""
        of_role = [worker for worker in self.workers if worker.role is role]
        working = sum(worker not in self.waiting for worker in of_role)
        return f"{working} of {len(of_role)} {role}s"

    def nobody_left(self) -> bool:
        """Is every worker of some kind waiting (no frames, or no updates, can be made)?"""
        roles = {worker.role for worker in self.workers}
        return any(all(w in self.waiting for w in self.workers if w.role is role) for role in roles)
