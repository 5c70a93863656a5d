"""What the driver does when a component fails on Ray: count it, record it, carry on.

- A worker (actor, learner, bundle) whose process dies fails the call it had in flight; the driver
  hands that work out again and Ray starts the worker anew, which then reads fresh parameters from
  the parameter server (an actor also continues its epsilon schedule from its step count).
- A server (parameter shard, replay shard, evaluator) is restarted by Ray while its callers' calls
  wait and are retried. A parameter shard restores its last saved state (see
  `gorila.records.checkpoints.shard_backup`); a replay shard restores the replay saved with the last
  checkpoint when the run saves its replay (`--save-replay`) and has written a checkpoint, else
  starts empty and fills again from the actors. The driver notices the restart from the component's
  process id.
- A worker whose call has not returned within `call_timeout_seconds` is ended, and so restarted.

Each failure is a `fault` record in metrics.jsonl and a progress line. After `max_failures` of them
the run gives up, with a final checkpoint.
"""
from __future__ import annotations

from gorila.runtime.calls import WorkerError


class FaultBudget:
    """Counts failures against the run's allowance."""

    def __init__(self, max_failures: int, already: int = 0):
        self.max_failures, self.count = max_failures, already

    def spend(self, what: str) -> str:
        """Count one failure; the progress line to show, or WorkerError once the allowance is spent."""
        self.count += 1
        if self.count > self.max_failures:
            raise WorkerError(f"giving up after {self.count} component failures (max_failures="
                              f"{self.max_failures}); the last: {what}")
        return f"fault {self.count}/{self.max_failures}: {what}"


def server_name(system, index: int) -> str:
    """A readable name for entry `index` of `System.servers()`."""
    shards, replays = len(system.shards), len(system.replays)
    if index < shards:
        return f"parameter shard {index}"
    if index < shards + replays:
        return f"replay shard {index - shards}"
    return "evaluator"


def restart_consequence(name: str, save_replay: bool) -> str:
    if name.startswith("parameter shard"):
        return "restored from its last saved state"
    if name.startswith("replay shard"):
        return ("restored from the replay saved with the last checkpoint" if save_replay else
                "its contents are lost (no --save-replay); it fills again from the actors")
    return "evaluations continue"
