"""What the driver does when a component fails on Ray: count it, record it, carry on.

- A worker (actor, learner, bundle) whose process dies fails the call it had in flight; the driver
  hands that work out again and Ray starts the worker anew, which then reads fresh parameters from
  the parameter server (an actor or bundle also continues its epsilon schedule from its step count).
  Deaths that no failed call shows (a worker killed while idle, or again while Ray restarted it, whose
  calls Ray refuses with the same error) are counted from Ray's own count of the worker's restarts.
- A server (parameter shard, replay shard, evaluator) is restarted by Ray while its callers' calls
  wait and are retried. A restarted parameter shard serves no call before the driver has given it
  the last state the driver keeps in memory (`gorila.system.shard_states`), copied every
  `shard_copy_every_seconds` (1 s): the shard loses at most the updates it applied since, the restore's
  line says from which version it goes on, and it never starts again from theta_0, on whichever node
  Ray restarts it. A replay
  shard restores the replay saved with the last checkpoint when the run saves its replay
  (`--save-replay`), has written a checkpoint and the shard's node can read the run directory, else
  starts empty and fills again from the actors. The driver notices the restart of a replay shard or
  the evaluator from the component's process id, and a parameter shard's when it is given its state.
- A parameter shard served in a worker's process (shard placement `learners`) dies with that worker:
  one event, recorded as a fault per component at once, whichever the driver sees first (the
  worker's lost call, Ray's count of its restarts, or the shard asking for its state), so that a run
  which ends right after such a death has recorded the whole of it. The shard's restore then says
  what state it was given, without another fault.
- A worker whose call has not returned within `call_timeout_seconds` is ended, and so restarted; one
  coming back from a restart has `restart_timeout_seconds` for its first call (a process that starts,
  builds its environments and waits for its shards' states is not a hung one); one not back by then
  waits for room and the run goes on without it (`gorila.system.waiting_room`). A component lost with
  its node is recorded as such, one line per component (`gorila.system.whereabouts`).
- A run whose frames and updates stand still for `stall_seconds` (while it is not stopping) is a
  fault of its own, whatever the cause: recorded, and every worker with a call in flight ended, and
  so restarted. A run that keeps standing still thus spends its allowance and gives up.

Each failure is a `fault` record in metrics.jsonl and a progress line. After `max_failures` of them
the run gives up, with a final checkpoint.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace
from typing import Callable

from gorila.core import ActorWorker, Worker
from gorila.placement import Kind, WorkerId
from gorila.runtime.calls import WorkerError
from gorila.system.faults import FaultBudget, not_back, restart_consequence, restarted_while_idle, server_name
from gorila.system.shard_states import ShardStates
from gorila.system.waiting_room import WaitingRoom
from gorila.system.whereabouts import LOOK_TIMEOUT_S, Whereabouts

RESTART_WAIT_S = 1.0  # a worker whose process was lost is asked again after this long


class Recovery:
    """The driver's one unit for failures: which workers are restarting, which processes every
    component runs in, and what to do when one is lost, restarted or stops answering.

    `record(component, what, failures)` writes a fault record; `say(line)` shows a line;
    `shard_states` are the shards' first states and the frames they were taken at, kept for restarts.
    """

    def __init__(
        self,
        config,
        runtime,
        system,
        record: Callable,
        say: Callable[[str], None],
        already_failed: int = 0,
        shard_states: tuple[list[dict], int] | None = None,
    ):
        self.config, self.runtime, self.system, self.calls = config, runtime, system, runtime.calls
        self.record, self.say = record, say
        self.faults = FaultBudget(config.max_failures, already_failed)
        self.resting_until: dict[WorkerId, float] = {}  # a restarting worker gets no work till then
        self.restarting: set[WorkerId] = set()  # lost, and no call has succeeded since
        self.worker_processes: dict[WorkerId, int] = {}  # the process each worker last reported from
        self.ended: set[WorkerId] = set()  # restarted by the watchdog: its fault is recorded
        self.deaths: Counter = Counter()  # each worker's process deaths recorded as faults
        self.overdue: Counter = Counter()  # restart deadlines each worker has passed since it last answered
        self.restores_owed: Counter = Counter()  # held shards recorded dead with their worker, not yet restored
        self.where = Whereabouts(runtime, system)  # each component's node, the nodes gone
        look = lambda worker: self.calls.call(system.workers[worker], Worker.run, 0)  # a call of no work
        self.room = WaitingRoom(self.calls, system.workers, look, config, say)  # set aside till Ray places them
        self.restarting_since: dict[WorkerId, float] = {}  # when each restarting worker was lost
        self.progress, self.moved_at = None, time.time()  # (steps, updates) last seen, and since when
        self.shard_states = ShardStates(runtime, system.shards, *(shard_states or (None, 0)))

    def resting(self, worker: WorkerId, now: float) -> bool:
        """Is `worker` waiting out a restart (and so given no work yet)?"""
        return now < self.resting_until.get(worker, 0.0)

    def lost(self, worker: WorkerId, error: Exception, steps: int) -> None:
        """A worker's call was lost with its process: record it (a call refused while Ray restarts the
        worker is a new failure only where Ray counts one more restart), ask it again after a pause and
        let the restarted worker continue from `steps` (its epsilon)."""
        seen = worker in self.restarting  # lost before, and no call has succeeded since
        self.restarting.add(worker)
        self.restarting_since.setdefault(worker, time.time())
        what = f"{worker} {self.where.lost(worker)} ({type(getattr(error, 'cause', None) or error).__name__})"
        if worker.role is Kind.EVALUATOR:
            if not seen:
                self.fault(str(worker), what)
            return
        if worker in self.ended:  # the watchdog ended it and recorded why
            self.ended.discard(worker)
            recorded = 1
        else:
            recorded = self.account(worker, what, at_least=0 if seen else 1)
        self.resting_until[worker] = time.time() + RESTART_WAIT_S
        if recorded:
            self.continue_from(worker, steps)

    def answered(self, worker: WorkerId, process: int | None, steps: int) -> None:
        """A call of `worker` succeeded, from `process`. A worker that reports from a new process was
        restarted; unless a lost call already said so (a worker that was idle when it died loses no
        call), record it and let it continue from `steps`."""
        recorded = worker in self.restarting
        self.restarting.discard(worker)
        self.overdue.pop(worker, None)
        if process is None:
            return
        known = self.worker_processes.get(worker)
        self.worker_processes[worker] = process
        if known != process and (known is not None or worker not in self.where.workers):  # new, or restarted
            self.where.moved(worker)
        if known is None or known == process or recorded:
            return
        if self.account(worker, restarted_while_idle(worker), at_least=0, unknown=1):
            self.continue_from(worker, steps)

    def account(self, worker: WorkerId, what: str, at_least: int, unknown: int | None = None) -> int:
        """Record the deaths of `worker`'s process not recorded yet, as `what`, and say how many: as many
        as Ray counts restarts beyond those recorded (deaths no call saw included: a worker killed while
        idle, or again before its restarted process answered), and at least `at_least` (a death seen
        that Ray may not have counted yet); `unknown` of them (default `at_least`) where Ray cannot say."""
        counted = self.runtime.restarts([self.system.workers[worker]])[0]
        if counted is None:
            new = at_least if unknown is None else unknown
        else:
            new = max(at_least, counted - self.deaths[worker])
        for _ in range(new):
            self.fault(str(worker), what)
            self.held_shards_died(worker)
        self.deaths[worker] = max(self.deaths[worker] + new, counted or 0)
        return new

    def held_shards_died(self, worker: WorkerId) -> None:
        """Record the parameter shards served in `worker`'s process as dead with it (one event with the
        worker's death); each is owed a restore, which then records no fault of its own."""
        for index in self.system.held.get(worker, ()):
            name = server_name(self.system, index)
            self.fault(name, f"{name} died with {worker}'s process (it is restored from the driver's state)")
            self.restores_owed[index] += 1

    def continue_run(self, worker_steps: dict) -> None:
        """A resumed run: the shards' states (kept by the driver from the checkpoint) given to every
        shard, and each actor's or bundle's step count (its epsilon) to it."""
        self.shard_states.give_all()
        workers = self.system.workers
        futures = [self.continue_from(worker, steps) for worker, steps in worker_steps.items() if worker in workers]
        self.calls.get([future for future in futures if future is not None])

    def continue_from(self, worker: WorkerId, steps: int):
        """Let an actor or a bundle carry on from `steps` agent steps (its epsilon follows its step
        count); the call's future, or None for a learner, which has no step count."""
        if worker.role is Kind.LEARNER:
            return None
        return self.calls.call(self.system.workers[worker], ActorWorker.continue_from, steps)

    def check(self, pending: dict, evaluating: bool, worker_steps: dict) -> list:
        """Restart workers past their deadline (their call then fails as a lost one), or set aside one
        that has not come back from a restart; record servers that Ray restarted since the last look,
        and workers whose deaths no call saw (they continue from their `worker_steps`). `pending` maps
        futures to jobs; the jobs set aside (taken out of `pending`) are returned, their work to be
        handed out again."""
        if not self.runtime.restarts_components:
            return []
        now = time.time()
        self.where.say_gone(self.say)
        set_aside = self.check_workers(pending, now)
        self.record_unseen_restarts(pending, worker_steps)
        self.record_restores(worker_steps)
        servers = self.system.servers()
        if evaluating:
            servers = servers[:-1]  # the evaluator answers only after its evaluation: not now
        processes = self.runtime.processes(servers, timeout=LOOK_TIMEOUT_S)
        for index, (before, running) in enumerate(zip(self.where.servers, processes)):
            restored = index < len(self.system.shards)  # a parameter shard: recorded by record_restores
            if running is not None and before is not None and running != before and not restored:
                name, how = server_name(self.system, index), self.where.restarted(index)
                self.fault(name, f"{name} {how} ({restart_consequence(name, self.config.save_replay)})")
        self.where.servers[: len(processes)] = [now or before for before, now in zip(self.where.servers, processes)]
        return set_aside

    def check_workers(self, pending: dict, now: float) -> list:
        """Restart each worker whose call is past its deadline, or set it aside when it is not back from
        a restart by then: one whose call waits on its restart, or whose calls Ray keeps refusing (a
        worker serving shards, which cannot be set aside, ends the run after twice the deadline). The
        jobs of the calls set aside, taken out of `pending`."""
        for worker in self.restarting:
            self.restarting_since.setdefault(worker, now)
        self.restarting_since = {w: t for w, t in self.restarting_since.items() if w in self.restarting}
        set_aside, busy = [], {job.worker for job in pending.values()}
        for worker, since in list(self.restarting_since.items()):  # its calls refused, none waiting
            if worker in busy or worker in self.room or worker.role is Kind.EVALUATOR:
                continue
            if not self.system.held.get(worker) and now - since > self.deadline(worker):
                self.room.set_aside(worker, None, None, now - since)
            elif now - since > 2 * self.deadline(worker):
                raise WorkerError(not_back(worker, now - since, self.config))
        for future, job in list(pending.items()):
            if job.worker.role is not Kind.EVALUATOR and now - job.since > self.deadline(job.worker):
                restarting = job.worker in self.restarting
                if restarting and not self.system.held.get(job.worker):  # its call waits on its restart
                    set_aside.append(pending.pop(future))
                    self.room.set_aside(job.worker, future, job, now - job.since)
                    continue
                self.overdue[job.worker] += restarting
                if self.overdue[job.worker] > 1:
                    raise WorkerError(not_back(job.worker, now - job.since, self.config))
                since = " since its restart" if restarting else ""
                self.say(f"{job.worker} has not answered for {now - job.since:.0f} s{since}: restarting it")
                self.end(pending, future, now)
        return set_aside

    def settle(self, worker_steps: dict) -> None:
        """At the end of the loop (no call in flight): record the deaths that Ray has counted or the
        shards' restores have shown since the last look, so that none is left out of the run's faults."""
        if self.runtime.restarts_components:
            self.record_unseen_restarts({}, worker_steps)
            self.record_restores(worker_steps)

    def deadline(self, worker: WorkerId) -> float:
        """Seconds a call of `worker` may take: its first after a restart has the restart's deadline."""
        if worker in self.restarting:
            return self.config.restart_timeout_seconds
        return self.config.call_timeout_seconds

    def record_unseen_restarts(self, pending: dict, worker_steps: dict) -> None:
        """Record each idle worker that Ray restarted more often than its faults say (killed while it
        had no call, or again while it restarted), and let it carry on from its `worker_steps`. It is
        restarting until a call of it succeeds: a call refused meanwhile is no further death unless Ray
        counts one. A worker with a call in flight is left to that call, which fails if its process died."""
        busy = {job.worker for job in pending.values()}
        workers = [w for w in self.system.workers if w not in busy and w not in self.ended and w not in self.room]
        for worker in workers:
            if self.account(worker, restarted_while_idle(worker), at_least=0):
                # no call has succeeded since: one that Ray refuses while it restarts is this death's
                self.restarting.add(worker)
                self.continue_from(worker, worker_steps.get(worker, 0))

    def watch(self, progress: tuple[int, int], pending: dict, stopping: bool) -> None:
        """The no-progress watchdog: `progress` is (agent steps, updates) now. When neither has moved for
        `stall_seconds`, record a fault and end every worker with a call in flight (Ray restarts it)."""
        now = time.time()
        # a worker coming back from a restart is recovery under way, not a stall (its call has its timeout)
        coming_back = any(worker not in self.room for worker in self.restarting)
        if progress != self.progress or stopping or coming_back or not self.runtime.restarts_components:
            self.progress, self.moved_at = progress, now
            return
        still = now - self.moved_at
        if still < self.config.stall_seconds:
            return
        self.moved_at = now
        stuck = sorted({job.worker for job in pending.values() if job.worker.role is not Kind.EVALUATOR}, key=str)
        names = ", ".join(map(str, stuck)) or "nothing: no worker call is in flight"
        self.fault(
            "run",
            f"no frames or updates for {still:.0f} s (stall_seconds={self.config.stall_seconds:g}): restarting {names}",
        )
        for future, job in list(pending.items()):
            if job.worker in stuck:
                self.ended.add(job.worker)
                self.restarting.add(job.worker)  # not ended again before it has answered
                self.deaths[job.worker] += 1  # its restart is this fault's
                self.held_shards_died(job.worker)
                self.end(pending, future, now)

    def end(self, pending: dict, future, now: float) -> None:
        """End the worker of a call in flight; Ray restarts it and the call then fails as a lost one."""
        job = pending[future]
        self.runtime.restart(self.system.workers[job.worker])
        pending[future] = replace(job, since=now)

    def record_restores(self, worker_steps: dict) -> None:
        """Record each parameter shard restarted and given its last state since the last look; a
        WorkerError for one that could not be given it (it would never serve again). A shard that died
        with the worker serving it was recorded with that worker's death; one whose worker's death
        no call has shown yet records that death now (that worker continues from its `worker_steps`)."""
        for restored in self.shard_states.restored():
            name = server_name(self.system, restored.index)
            if restored.error:
                raise WorkerError(f"{name} was restarted but could not be given its last state: {restored.error}")
            given = f"restored from the driver's state at {restored.env_frames:,} frames, version {restored.version:,}"
            holder = self.system.holder_of(restored.index)
            if holder is not None and not self.restores_owed[restored.index]:
                self.restarting.add(holder)  # its lost call, if any, is this death's
                if self.account(
                    holder, f"{holder} died (seen when {name}, which it serves, asked for its state)", at_least=1
                ):
                    self.continue_from(holder, worker_steps.get(holder, 0))
            if self.restores_owed[restored.index]:
                self.restores_owed[restored.index] -= 1
                self.say(f"{name} {given}")
            else:
                how = self.where.restarted(restored.index)
                self.fault(name, f"{name} {how} ({given})")

    def fault(self, component: str, what: str) -> None:
        """Count and record one failure (WorkerError once max_failures is spent)."""
        line = self.faults.spend(what)
        self.record(component, what, self.faults.count)
        self.say(line)
