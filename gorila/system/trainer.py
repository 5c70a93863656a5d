"""The driver: places the system on a runtime, hands out work, evaluates, logs and checkpoints.

`Trainer.loop` is the whole run: dispatch work to idle workers (how much is `Scheduler`'s policy),
wait for reports, absorb them, then do what is due (evaluate, log, checkpoint). The same loop drives
both runtimes: on Ray every worker runs at once and reports arrive as they finish; on the local
runtime each call runs to completion when it is made, in a fixed order. On Ray a component whose
process dies is restarted and the run carries on (`gorila.system.recovery`). A run continues from
its latest checkpoint with `resume=` (the payload of `records.checkpoints.load_latest_good`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from gorila.components.learner import learner_device
from gorila.config import Config
from gorila.contracts import ReplayServer, Worker, env_info
from gorila.envs import make_vector_env_for
from gorila.placement import Kind, WorkerId
from gorila.records.checkpoints import (
    prepare_saved_states,
    save_checkpoint,
    save_replays,
    save_shard_backups,
)
from gorila.records.durable import WriteError
from gorila.records.metrics import parameter_server_stats
from gorila.runtime import make_runtime
from gorila.runtime.calls import WorkerError, failure_reason
from gorila.system.builders import first_shard_states, parameter_client, replay_warmup
from gorila.system.evaluations import Evaluations
from gorila.system.preflight import check_fits_env
from gorila.system.recovery import Recovery
from gorila.system.run_records import RunRecords
from gorila.system.scheduler import BACKOFF_S, Scheduler, StopReason
from gorila.system.signals import raise_if_stop_asked, restore_signals, stop_honoured, stop_on_signals
from gorila.system.stop_rule import Candidate, Verdict
from gorila.system.topology import build_system, replay_count, wait_ready

WAIT_S = 0.2  # longest wait for a report before the periodic jobs run again
# Longest wait for the shards' counters or states (records, backups): a shard held in a stopped worker
# must not hold up the loop whose watchdog restarts that worker.
OBSERVE_TIMEOUT_S = 5.0
EVALUATOR_ID = WorkerId(Kind.EVALUATOR, 0)  # the evaluator's calls, tracked beside the workers'


@dataclass(frozen=True)
class Job:
    """A call in flight: who runs it, the budget it was given and when it was made."""

    worker: WorkerId
    budget: int = 0
    since: float = 0.0


class Trainer:
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
        with make_vector_env_for(config, 1, config.seed) as probe:
            self.info = info = env_info(probe)
        check_fits_env(config, info)  # network, shards, replay sizes: fail before placing anything
        if not config.address:
            learner_device(config)  # a missing GPU is a config error on this machine
        backups, replays = prepare_saved_states(self.run_dir, config.param_shards, replay_count(config), resume)
        raise_if_stop_asked()
        self.runtime = make_runtime(config)
        try:
            raise_if_stop_asked()
            self._place(backups, replays)
        except BaseException:
            self.runtime.shutdown()
            restore_signals(self.previous_signals)
            raise

    def _place(self, backups: list[str], replays: list[str]) -> None:
        """Place every component; only then does the run leave anything on disk."""
        config, info = self.config, self.info
        self.calls = self.runtime.calls
        self.system = build_system(config, info, self.runtime, backups, replays)
        self.params = parameter_client(config, self.system.shards, self.system.bounds, self.calls)
        wait_ready(self.runtime, self.system, config)
        self.scheduler = Scheduler(
            info.steps(config.total_frames), config.update_every, config.actors, config.learners, config.learning_starts
        )
        # the shards' first states, kept by the driver for restarts (a runtime that restarts nothing keeps none)
        restarts = self.runtime.restarts_components
        first = first_shard_states(config, info, self.system.bounds, self.resume) if restarts else None
        faults = self.resume.get("faults", 0) if self.resume else 0
        fault = lambda *what: self.records.fault(self.steps, *what)
        self.recovery = Recovery(
            config, self.runtime, self.system, fault, lambda line: self.records.say(line), faults, first
        )
        if self.resume:
            self.scheduler.restore(self.resume["scheduler"])
            self.recovery.continue_run(self.scheduler.counters.worker_steps)
        self.next_log = time.time() + config.log_every_seconds
        self.next_backup = time.time() + config.shard_backup_every_seconds
        every = info.steps(config.checkpoint_every_frames)
        self.next_checkpoint = self.steps + every if every else np.inf
        resumed_frames = info.frames(self.steps) if self.resume else None
        self.records = RunRecords(
            config, info, self.run_dir, self.start, resumed_frames, self.trackers, self.live_progress
        )
        self.evaluations = Evaluations(config, info, self.calls, self.system.evaluator, self.records, self.run_dir)
        if self.resume:
            self.evaluations.rule.restore(self.resume["evaluations"])

    @property
    def steps(self) -> int:
        return self.scheduler.counters.steps

    # ---- the loop ----------------------------------------------------------------------------
    def loop(self) -> None:
        """dispatch -> wait -> absorb -> periodic jobs, until the scheduler stops and all calls are in."""
        while True:
            raise_if_stop_asked()
            self.dispatch()
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
            idle = worker not in busy and not self.recovery.resting(worker, now)
            budget = self.scheduler.budget(worker) if idle else 0
            if budget > 0:
                self.scheduler.started(worker, budget)
                self.pending[self.calls.call(handle, Worker.run, budget)] = Job(worker, budget, time.time())

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

    def periodic(self) -> None:
        if self.evaluations.due(self.steps) and self.scheduler.stop_reason is None:
            self.start_evaluation(Candidate(self.params.pull()[0].numpy(), self.steps))
        if time.time() >= self.next_log:
            evaluating = any(job.worker == EVALUATOR_ID for job in self.pending.values())
            counters, stopping = self.scheduler.counters, self.scheduler.stop_reason is not None
            self.recovery.check(self.pending, evaluating=evaluating, worker_steps=counters.worker_steps)
            self.recovery.watch((self.steps, counters.updates), self.pending, stopping=stopping)
            self.log()
        if time.time() >= self.next_backup and self.runtime.restarts_components:
            self.next_backup = time.time() + self.config.shard_backup_every_seconds
            self.back_up_shards()
        if self.steps >= self.next_checkpoint and self.scheduler.stop_reason is None:
            self.next_checkpoint = self.steps + self.info.steps(self.config.checkpoint_every_frames)
            self.checkpoint()

    def back_up_shards(self) -> None:
        """Keep the shards' states for their restarts, and write them for --resume; a round in which a
        shard does not answer in time is skipped (each keeps its last backup)."""
        try:
            states = self.params.states(timeout=OBSERVE_TIMEOUT_S)
        except TimeoutError:
            return
        self.recovery.shard_states.keep(states, self.info.frames(self.steps))
        save_shard_backups(self.run_dir, states, self.info.frames(self.steps))

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
        counted = {"updates": self.scheduler.counters.updates, **self.server_stats()}
        if self.system.replays:
            stats = self.calls.get([self.calls.call(replay, ReplayServer.stats) for replay in self.system.replays])
            counted["replay_size"] = sum(r["size"] for r in stats)
        warming = replay_warmup(self.config) if not self.scheduler.counters.updates else None
        self.records.train(self.steps, counted, self.evaluations.rule.last, warming)

    def server_stats(self) -> dict:
        """The shards' counters for a train record; none when a shard does not answer in time (a shard
        held in a stopped worker must not stop the driver's loop, whose watchdog restarts that worker)."""
        try:
            return parameter_server_stats(self.params.stats(timeout=OBSERVE_TIMEOUT_S))
        except TimeoutError:
            return {}

    def checkpoint(self) -> Path:
        """A training checkpoint: the parameters, and all a resumed run continues from."""
        if self.config.save_replay:
            save_replays(self.calls, self.system.replay_holders(), self.run_dir)
        states = self.params.states()
        payload = self.records.payload(
            torch.cat([s["theta"] for s in states]),
            self.scheduler.counters.updates,
            target=torch.cat([s["target"] for s in states]),
            shards=states,
            scheduler=self.scheduler.state(),
            evaluations=self.evaluations.rule.state(),
            faults=self.recovery.faults.count,
        )
        return save_checkpoint(self.run_dir, payload, self.info.frames(self.steps), self.config.keep_checkpoints)

    # ---- the whole run -----------------------------------------------------------------------
    def run(self) -> dict:
        """Train, evaluate, checkpoint; always release the runtime."""
        try:
            self.records.opening(self.runtime.name, self.run_dir, self.info.frames(self.steps) if self.resume else None)
            try:
                self.loop()
            except KeyboardInterrupt:
                stop_honoured()
                self.scheduler.stop(StopReason.INTERRUPTED)
                self.records.say("interrupted: writing a final checkpoint")
            except (WorkerError, WriteError):  # a component failed, or the disk is full: keep what we can
                self.final_checkpoint_after_failure()
                raise
            self.recovery.settle(self.scheduler.counters.worker_steps)
            if not self.records.window.empty:
                self.log()
            if self.scheduler.stop_reason is StopReason.BUDGET:
                self.evaluate_now()
            return self.summary(self.checkpoint())
        finally:
            restore_signals(self.previous_signals)
            self.close()

    def final_checkpoint_after_failure(self) -> None:
        """Keep what was learnt before the run gives up, when the shards still answer."""
        try:
            self.records.say(f"writing a final checkpoint: {self.checkpoint()}")
        except Exception as error:  # the shards are gone too: the last periodic checkpoint stands
            self.records.say(f"no final checkpoint ({failure_reason(error)})")

    def close(self) -> None:
        """Close the display, release the runtime, close the metrics (which may fail on a full disk)
        with the exit code the run ends with."""
        self.records.display.close()
        self.runtime.shutdown()
        self.records.metrics.close(self.exit_code())

    def exit_code(self) -> int:
        """What `gorila train` will exit with, told in `close`, which runs in `run`'s `finally`: while an
        exception propagates, 130 for an interruption and 1 for a failure; 130 for a run stopped by
        Ctrl-C, else 0."""
        error = sys.exc_info()[1]
        if error is not None:
            return 130 if isinstance(error, KeyboardInterrupt) else 1
        return 130 if self.scheduler.stop_reason is StopReason.INTERRUPTED else 0

    def summary(self, checkpoint: Path) -> dict:
        reason = self.scheduler.stop_reason
        ran = {
            "env_frames": self.info.frames(self.steps),
            "updates": self.scheduler.counters.updates,
            "stop_reason": reason.value,
            "checkpoint": str(checkpoint),
            "interrupted": reason is StopReason.INTERRUPTED,
        }
        return self.records.summary({**ran, **self.evaluations.summary(), **self.server_stats()})
