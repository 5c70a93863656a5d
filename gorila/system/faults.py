"""What a fault costs and says: the run's allowance of failures (`FaultBudget`) and the lines that name
a failed component, what its restart means, and why a run ends when a worker does not come back."""

from __future__ import annotations

from gorila.placement import WorkerId
from gorila.runtime.calls import WorkerError


class FaultBudget:
    """Counts failures against the run's allowance."""

    def __init__(self, max_failures: int, already: int = 0):
        self.max_failures, self.count = max_failures, already

    def spend(self, what: str) -> str:
        """Count one failure; the progress line to show, or WorkerError once the allowance is spent."""
        self.count += 1
        if self.count > self.max_failures:
            raise WorkerError(
                f"giving up after {self.count} component failures (max_failures={self.max_failures}); the last: {what}"
            )
        return f"fault {self.count}/{self.max_failures}: {what}"


def restarted_while_idle(worker: WorkerId) -> str:
    """The fault of a worker whose process ended while no call of it was under way."""
    return f"{worker} was restarted (its process ended while it was idle)"


def server_name(system, index: int) -> str:
    """A readable name for entry `index` of `System.servers()`."""
    shards, replays = len(system.shards), len(system.replays)
    if index < shards:
        return f"parameter shard {index}"
    if index < shards + replays:
        return f"replay shard {index - shards}"
    return "evaluator"


def restart_consequence(name: str, save_replay: bool) -> str:
    if name.startswith("replay shard"):
        return (
            "restored from the replay saved with the last checkpoint, where its node can read it"
            if save_replay
            else "its contents are lost (no --save-replay); it fills again from the actors"
        )
    return "evaluations continue"


def not_back(worker: WorkerId, seconds: float, config) -> str:
    """Why a run ends when a restarted worker does not come back, and what to do."""
    return (
        f"{worker} has not answered for {seconds:.0f} s after being restarted twice "
        f"(restart_timeout_seconds={config.restart_timeout_seconds:g}): its process does not start again. "
        f"On a cluster this is most often a node lost with no other node free for it (it asks for "
        f"{config.worker_cpus:g} CPU); the last checkpoint stands: give the cluster room (`ray start` on another "
        f"machine), then `gorila train --resume RUN_DIR`"
    )
