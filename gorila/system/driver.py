"""The driver: places the system on a runtime, hands out work, evaluates, logs and checkpoints.

`Driver.loop` is the whole run: dispatch work to idle workers (how much is `Scheduler`'s policy),
wait for reports, absorb them, then do what is due (evaluate, log, checkpoint). The same loop drives
both runtimes: on Ray every worker runs at once and reports arrive as they finish; on the local
runtime each call runs to completion when it is made, in a fixed order. On Ray a component whose
process dies is restarted and the run carries on (`gorila.system.recovery`). A run continues from
its latest checkpoint with `resume=` (the payload of `records.checkpoints.load_latest_good`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from gorila.config import Config
from gorila.core import Worker
from gorila.placement import Kind, WorkerId
from gorila.records.checkpoints import checkpoint_frames, prepare_saved_states, training_checkpoints
from gorila.records.durable import WriteError
from gorila.runtime import make_runtime
from gorila.runtime.calls import WorkerError, failure_reason
from gorila.system.builders import first_shard_states, parameter_client
from gorila.system.evaluations import Evaluations
from gorila.system.growth import Growth
from gorila.system.keeping import RunKeeping
from gorila.system.preflight import check_node_memory, run_checks
from gorila.system.recovery import Recovery
from gorila.system.run_records import RunRecords
from gorila.system.scheduler import BACKOFF_S, Job, Scheduler, StopReason
from gorila.system.signals import (
    exit_code,
    held,
    raise_if_stop_asked,
    restore_signals,
    stop_honoured,
    stop_on_signals,
)
from gorila.system.stop_rule import Candidate, Verdict
from gorila.system.topology import build_system, wait_ready

WAIT_S = 0.2  # longest wait for a report before the periodic jobs run again
EVALUATOR_ID = WorkerId(Kind.EVALUATOR, 0)  # the evaluator's calls, tracked beside the workers'


class Driver:
    """One training run. Constructing it places every component on the runtime and opens the run
    directory; `run()` trains, and always releases the runtime."""

    def __init__(
        self,
        config: Config,
        run_dir: Path,
        live_progress: bool | None = None,
        start_time: float | None = None,
        resume: dict | None = None,
        trackers=(),
    ):
        self.config, self.run_dir, self.resume = config, Path(run_dir), resume
        self.trackers = tuple(trackers)  # besides W&B: given every scalar record (a sweep's trial)
        self.start = time.time() if start_time is None else start_time  # wall_time 0 in the metrics
        if resume:  # wall_time continues from the time already trained
            self.start -= resume["wall_time"]
        self.pending: dict = {}  # future -> Job
        self.live_progress = live_progress
        self.previous_signals = stop_on_signals()  # Ctrl-C while Ray starts stops cleanly too
        # the network, shards, replay, device: fail before placing anything; what the config implies, once
        self.plan = run_checks(config)
        self.info = self.plan.info
        backups, replays = prepare_saved_states(self.run_dir, config.param_shards, self.plan.replay_count, resume)
        # what a resume restores: each replay saved with the checkpoint (`make_replay` loads it)
        self.restored_replays = [path for path in replays if Path(path).is_file()] if resume else []
        raise_if_stop_asked()
        self.runtime = make_runtime(self.plan.resources)
        try:
            if config.address:  # each node's share of the replay memories must fit it
                check_node_memory(config, self.plan, self.runtime.nodes())
            raise_if_stop_asked()
            self._place(backups, replays)
        except BaseException:
            self.runtime.shutdown()
            restore_signals(self.previous_signals)
            raise

    def _place(self, backups: list[str], replays: list[str]) -> None:
        """Place every component; only then does the run leave anything on disk."""
        config, info, plan = self.config, self.info, self.plan
        self.calls = self.runtime.calls
        self.system = build_system(config, plan, self.runtime, backups, replays)
        self.params = parameter_client(config, plan, self.system.shards, self.system.bounds, self.calls)
        wait_ready(self.runtime, self.system, plan.resources)
        self.scheduler = Scheduler(
            plan.total_steps, config.update_every, config.actors, config.learners, config.learning_starts
        )
        # the shards' first states, kept by the driver for restarts (a runtime that restarts nothing keeps none)
        restarts = self.runtime.restarts_components
        first = first_shard_states(config, plan, self.system.bounds, self.resume) if restarts else None
        faults = self.resume.get("faults", 0) if self.resume else 0
        fault = lambda *what: self.records.fault(self.steps, *what)
        self.recovery = Recovery(
            config, self.runtime, self.system, fault, lambda line: self.records.say(line), faults, first
        )
        if self.resume:
            self.scheduler.restore(self.resume["scheduler"])
            self.recovery.continue_run(self.scheduler.counters.worker_steps)
        self.next_log = time.time() + config.log_every_seconds
        every = info.steps(config.checkpoint_every_frames)
        self.next_checkpoint = self.steps + every if every else np.inf
        resumed_frames = info.frames(self.steps) if self.resume else None
        self.records = RunRecords(
            config, plan, self.run_dir, self.start, resumed_frames, self.trackers, self.live_progress
        )
        self.evaluations = Evaluations(config, info, self.calls, self.system.evaluator, self.records, self.run_dir)
        self.keeping = RunKeeping(
            config,
            plan,
            self.run_dir,
            self.calls,
            self.system,
            self.params,
            self.records,
            self.scheduler,
            self.driver_state,
        )
        if self.resume:
            self.evaluations.restore(self.resume["evaluations"])
            self.records.window.restore(self.resume.get("episodes", {}))  # none in checkpoints before it
        counters, say = self.scheduler.counters, self.records.say
        self.growth = (
            Growth(config, plan, self.runtime, self.system, counters.worker_steps, say) if config.max_bundles else None
        )

    @property
    def steps(self) -> int:
        return self.scheduler.counters.steps

    # ---- the loop ----------------------------------------------------------------------------
    def loop(self) -> None:
        """dispatch -> wait -> absorb -> periodic jobs, until the scheduler stops and all calls are in."""
        while True:
            raise_if_stop_asked()
            self.dispatch()
            if self.scheduler.stop_reason is not None:
                self.drop_calls_of_lost_workers()
            if not self.pending:
                if self.scheduler.stop_reason is not None:
                    return
                time.sleep(BACKOFF_S)  # every learner is backing off while its replay warms up
                continue
            done, _ = self.calls.wait(list(self.pending), timeout=WAIT_S)
            for future in done:
                self.absorb(future)
            self.periodic()

    def dispatch(self) -> None:
        """Give every idle worker its budget (none while the scheduler says wait)."""
        busy = {job.worker for job in self.pending.values()}
        now = time.time()
        for worker in self.scheduler.dispatch_order(self.system.workers):
            handle = self.system.workers[worker]
            idle = worker not in busy and not self.recovery.resting(worker, now) and worker not in self.recovery.room
            budget = self.scheduler.budget(worker) if idle else 0
            if budget > 0:
                self.scheduler.started(worker, budget)
                self.pending[self.calls.call(handle, Worker.run, budget)] = Job(worker, budget, time.time())

    def drop_calls_of_lost_workers(self) -> None:
        """A stopping run waits for no call of a worker that was lost and has not answered since (on a
        cluster it may wait for room for a long time): its work, at most one chunk, is not counted."""
        for future, job in list(self.pending.items()):
            if job.worker != EVALUATOR_ID and job.worker in self.recovery.restarting:
                del self.pending[future]
                self.scheduler.failed(job.worker, job.budget)

    def absorb(self, future) -> None:
        """Take one finished call's result. A component whose code raised ends the run with a
        WorkerError naming it; one whose process was lost is recovered from (Ray restarts it)."""
        job = self.pending.pop(future)
        try:
            result = self.calls.get([future])[0]
        except Exception as error:
            if not self.calls.lost(error):
                raise WorkerError(f"{job.worker} failed: {failure_reason(error)}") from error
            self.recovery.lost(job.worker, error, self.scheduler.counters.worker_steps[job.worker])
            if job.worker == EVALUATOR_ID:
                self.pending[self.evaluations.retry()] = Job(EVALUATOR_ID)
            else:
                self.scheduler.failed(job.worker, job.budget)
            return
        if job.worker == EVALUATOR_ID:
            self.recovery.answered(job.worker, None, 0)
            self.evaluated(result)
        else:
            self.recovery.answered(job.worker, result.process, self.scheduler.counters.worker_steps[job.worker])
            self.scheduler.finished(job.worker, job.budget, result)
            self.records.window.add(result)
            if self.scheduler.stop_reason is None and self.records.window.reached(self.config.stop_at_train_return):
                self.scheduler.stop(StopReason.REACHED)
                self.log()  # the record that reached it: calls still in flight may add episodes below it

    def periodic(self) -> None:
        if self.evaluations.due(self.steps) and self.scheduler.stop_reason is None:
            self.start_evaluation(Candidate(self.params.pull()[0].numpy(), self.steps))
        if time.time() >= self.next_log:
            evaluating = any(job.worker == EVALUATOR_ID for job in self.pending.values())
            counters, stopping = self.scheduler.counters, self.scheduler.stop_reason is not None
            for job in self.recovery.check(self.pending, evaluating=evaluating, worker_steps=counters.worker_steps):
                self.scheduler.failed(job.worker, job.budget)  # set aside: its work goes to the others
            for future, job in self.recovery.room.back():  # back: its call's report counts as any other
                self.scheduler.started(job.worker, job.budget)
                self.pending[future] = job
                self.recovery.continue_from(job.worker, counters.worker_steps[job.worker])  # its epsilon
            self.recovery.watch((self.steps, counters.updates), self.pending, stopping=stopping)
            joined = self.growth.look() if self.growth is not None and not stopping else None
            if joined is not None:  # a resumed run's bundle that joins again goes on with its epsilon
                self.recovery.continue_from(joined, counters.worker_steps[joined])
            self.log()
        if self.runtime.restarts_components:
            self.keeping.copy_shards_when_due(self.recovery.shard_states)
        if self.steps >= self.next_checkpoint and self.scheduler.stop_reason is None:
            self.next_checkpoint = self.steps + self.info.steps(self.config.checkpoint_every_frames)
            self.keeping.checkpoint()

    # ---- evaluation --------------------------------------------------------------------------
    def start_evaluation(self, candidate: Candidate) -> None:
        self.pending[self.evaluations.start(candidate)] = Job(EVALUATOR_ID)

    def evaluated(self, result: dict) -> None:
        verdict = self.evaluations.finished(result, self.scheduler.counters.updates)
        if verdict is Verdict.CONFIRM:
            self.pending[self.evaluations.confirm()] = Job(EVALUATOR_ID)
        elif verdict is Verdict.SOLVED and self.config.stop_when_solved:
            self.scheduler.stop(StopReason.SOLVED)

    def evaluate_now(self) -> None:
        """Evaluate the current theta+ (and confirm it if it passes), waiting for the results."""
        self.start_evaluation(Candidate(self.params.pull()[0].numpy(), self.steps))
        while self.pending:
            self.absorb(next(iter(self.pending)))

    # ---- records -----------------------------------------------------------------------------
    def log(self) -> None:
        self.next_log = time.time() + self.config.log_every_seconds
        learns_from_replay = bool(self.plan.replays)  # PQN has none: it learns from its first rollout
        warming = self.plan.replay_warmup if learns_from_replay and not self.scheduler.counters.updates else None
        self.records.train(self.steps, self.keeping.counted(), self.evaluations.rule.last, warming)

    def driver_state(self) -> dict:
        """What a resumed run's driver continues from: its counters, its stop rule and when it was
        solved, its faults, the episodes its training return averages."""
        return dict(
            scheduler=self.scheduler.state(),
            evaluations=self.evaluations.state(),
            faults=self.recovery.faults.count,
            episodes=self.records.window.state(),
        )

    # ---- the whole run -----------------------------------------------------------------------
    def run(self) -> dict:
        """Train, evaluate, checkpoint; always release the runtime. After Ctrl-C or SIGTERM the final
        checkpoint is written (a second stop signal waits for it, `gorila.system.signals`); a stop that
        cuts it short is told in one line naming the checkpoint a resume starts from."""
        ended = False
        try:
            self.records.opening(self.runtime.name, self.run_dir, self.info.frames(self.steps) if self.resume else None)
            if self.resume:
                replay = self.keeping.resumed_replay(self.restored_replays)
                if replay:
                    self.records.say(replay)
                self.records.resumed(self.info.frames(self.steps), replay, len(self.restored_replays))
            try:
                self.loop()
            except KeyboardInterrupt:
                self.scheduler.stop(StopReason.INTERRUPTED)
                self.records.say("interrupted: writing a final checkpoint")
            except (WorkerError, WriteError):  # a component failed, or the disk is full: keep what we can
                self.keeping.final_checkpoint_after_failure()
                raise
            self.recovery.settle(self.scheduler.counters.worker_steps)
            if not self.records.window.empty:
                self.log()
            if self.scheduler.stop_reason is StopReason.BUDGET:
                self.evaluate_now()
            checkpoint = self.keeping.checkpoint()
            summary = self.keeping.summary(checkpoint, self.scheduler.stop_reason, self.evaluations.summary())
            ended = True
            return summary
        except KeyboardInterrupt:  # a stop that would not wait (a third signal), or one outside the loop
            self.records.say(resume_point(self.run_dir, self.info.frames(self.steps)))
            raise
        finally:
            try:
                self.close()
            finally:
                restore_signals(self.previous_signals)
                if ended and self.scheduler.stop_reason is StopReason.INTERRUPTED:
                    stop_honoured()  # acted on, with its final checkpoint: the next stop is a new one

    def close(self) -> None:
        """Close the display, release the runtime, close the metrics (which may fail on a full disk)
        with the exit code the run ends with."""
        self.records.display.close()
        self.runtime.shutdown()
        with held():  # closed whole (TensorBoard's writer thread, the W&B run), whatever stop comes
            self.records.metrics.close(exit_code(self.scheduler.stop_reason is StopReason.INTERRUPTED))


def resume_point(run_dir: Path, frames: int) -> str:
    """One line for a run stopped at once at `frames`: whether its final checkpoint was written, and
    which checkpoint `gorila train --resume` starts from."""
    saved = training_checkpoints(run_dir)
    newest = checkpoint_frames(saved[-1]) if saved else None
    done = "final checkpoint written" if newest == frames else "final checkpoint skipped"
    if newest is None:
        return f"{done}; the run has no checkpoint to resume from"
    return f"{done}; --resume starts from {saved[-1].name} ({newest:,} frames)"
