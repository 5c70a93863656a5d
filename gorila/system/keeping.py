"""What the driver keeps of a run while it trains: the shards' backups (for restarts and --resume), the
training checkpoints, and the counters each train record carries.

Reads of the shards for records and backups have a time limit: a shard held in a stopped worker must
not hold up the driver's loop, whose watchdog restarts that worker. A checkpoint waits for its shards:
it is what a resumed run continues from.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import torch

from gorila.config import Config
from gorila.core import ReplayHolder, ReplayServer
from gorila.records.checkpoints import save_checkpoint, save_replays, save_shard_backups
from gorila.records.metrics import parameter_server_stats
from gorila.runtime.calls import failure_reason
from gorila.system.plan import RunPlan
from gorila.system.resumed_replay import replay_line
from gorila.system.run_records import RunRecords
from gorila.system.scheduler import Scheduler, StopReason
from gorila.system.shard_states import ShardStates
from gorila.system.signals import held

OBSERVE_TIMEOUT_S = 5.0  # longest wait for the shards' counters or states (records, backups)


class RunKeeping:
    """The run's backups, checkpoints and counted figures, over its placed system; `driver_state()`
    is what the driver itself continues from (its scheduler's, stop rule's and recovery's state)."""

    def __init__(
        self,
        config: Config,
        plan: RunPlan,
        run_dir: Path,
        calls,
        system,
        params,
        records: RunRecords,
        scheduler: Scheduler,
        driver_state: Callable[[], dict],
    ):
        self.config, self.plan, self.info, self.run_dir = config, plan, plan.info, run_dir
        self.calls, self.system, self.params, self.records = calls, system, params, records
        self.scheduler, self.driver_state = scheduler, driver_state
        self.next_copy = time.time() + config.shard_copy_every_seconds
        self.next_backup = time.time() + config.shard_backup_every_seconds

    def counted(self) -> dict:
        """What a train record takes from the driver: the updates, the shards' counters (none when a
        shard does not answer in time) and the replay memories' size."""
        counted = {"updates": self.scheduler.counters.updates, **self.server_stats()}
        if self.system.replays:
            stats = self.calls.get([self.calls.call(replay, ReplayServer.stats) for replay in self.system.replays])
            counted["replay_size"] = sum(r["size"] for r in stats)
        return counted

    def resumed_replay(self, restored: list[str]) -> str | None:
        """The line a resumed run prints about its replay memories (`restored`: the saved files they
        were loaded from): what they hold now, or that they start empty and what that costs."""
        holders = self.system.replay_holders()
        sizes = self.calls.get([self.calls.call(holder, ReplayHolder.replay_size) for holder in holders])
        return replay_line(self.config, self.plan, sizes, restored)

    def server_stats(self) -> dict:
        """The shards' counters; while a shard does not answer in time (being restarted), only the
        versions of those that did."""
        shards = self.params.answered_stats(timeout=OBSERVE_TIMEOUT_S)
        return parameter_server_stats(shards, every_shard=len(shards) == len(self.params.shards))

    def copy_shards_when_due(self, shard_states: ShardStates) -> None:
        """Every `shard_copy_every_seconds`, keep the shards' states in the driver for their restarts (a
        shard's death loses at most the updates it applied since), and every `shard_backup_every_seconds`
        also write them to the run directory; a round in which a shard does not answer in time is
        skipped (each keeps its last copy)."""
        now = time.time()
        if now < self.next_copy:
            return
        self.next_copy = now + self.config.shard_copy_every_seconds
        write = now >= self.next_backup
        if write:
            self.next_backup = now + self.config.shard_backup_every_seconds
        self.copy_shards(shard_states, write)

    def copy_shards(self, shard_states: ShardStates, write: bool, timeout: float | None = OBSERVE_TIMEOUT_S) -> None:
        """Keep the shards' states in the driver, and write them to the run directory where `write`; a
        round whose shards do not all answer within `timeout` seconds (None: however long) is skipped."""
        try:
            states = self.params.states(timeout=timeout)
        except TimeoutError:
            return
        frames = self.info.frames(self.scheduler.counters.steps)
        shard_states.keep(states, frames)
        if write:
            with held():
                save_shard_backups(self.run_dir, states, frames)

    def checkpoint(self) -> Path:
        """A training checkpoint: the parameters, and all a resumed run continues from (the shards'
        states, the replay memories with `save_replay`, and the driver's own state)."""
        if self.config.save_replay:
            save_replays(self.calls, self.system.replay_holders(), self.run_dir)
        states = self.params.states()
        payload = self.records.payload(
            torch.cat([s["theta"] for s in states]),
            self.scheduler.counters.updates,
            target=torch.cat([s["target"] for s in states]),
            shards=states,
            **self.driver_state(),
        )
        frames = self.info.frames(self.scheduler.counters.steps)
        with held():  # a KeyboardInterrupt inside torch.save would come out as an error of the write
            return save_checkpoint(self.run_dir, payload, frames, self.config.keep_checkpoints)

    def final_checkpoint_after_failure(self) -> None:
        """Keep what was learnt before the run gives up, when the shards still answer."""
        try:
            self.records.say(f"writing a final checkpoint: {self.checkpoint()}")
        except Exception as error:  # the shards are gone too: the last periodic checkpoint stands
            self.records.say(f"no final checkpoint ({failure_reason(error)})")

    def summary(self, checkpoint: Path, reason: StopReason, evaluated: dict) -> dict:
        """The run's summary record (and what `Driver.run` returns)."""
        ran = {
            "env_frames": self.info.frames(self.scheduler.counters.steps),
            "updates": self.scheduler.counters.updates,
            "stop_reason": reason.value,
            "checkpoint": str(checkpoint),
            "interrupted": reason is StopReason.INTERRUPTED,
        }
        return self.records.summary({**ran, **evaluated, **self.server_stats()})
