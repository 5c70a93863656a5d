"""Where each component of a run last ran, and the nodes that have left its cluster: what lets the
driver say that a component was lost with its node (a machine removed, crashed or preempted, every
process on it at once), not merely that it died."""

from __future__ import annotations

from typing import Callable

from gorila.placement import WorkerId
from gorila.system.faults import server_name

# How long a look at the components' processes waits for each to say where it runs: one that does not
# answer (a shard held in a stopped worker) is looked at again next time.
LOOK_TIMEOUT_S = 5.0


class Whereabouts:
    """The node of each worker (looked up at the start and after each restart) and of each server (the
    driver's periodic look at their processes: `servers`, (node, pid) or None each)."""

    def __init__(self, runtime, system):
        self.runtime, self.system = runtime, system
        self.servers = runtime.processes(system.servers())
        workers = list(system.workers)
        self.workers = dict(zip(workers, self.nodes_of(workers)))
        self.gone = runtime.lost_nodes()  # already gone when the run started

    def nodes_of(self, workers: list) -> list:
        """The node each of `workers` runs on (None where it does not say in time)."""
        processes = self.runtime.processes([self.system.workers[w] for w in workers], timeout=LOOK_TIMEOUT_S)
        return [process[0] if process else None for process in processes]

    def moved(self, worker: WorkerId) -> None:
        """`worker` answers from a new process: look up its node again."""
        self.workers[worker] = self.nodes_of([worker])[0]

    def lost(self, worker: WorkerId) -> str:
        """'died', or 'was lost with its node N' when the node `worker` last ran on has left."""
        return self.what_happened(self.workers.get(worker), "died")

    def restarted(self, server: int) -> str:
        """'was restarted', or 'was lost with its node N', for entry `server` of `System.servers()`."""
        return self.what_happened((self.servers[server] or (None,))[0], "was restarted")

    def what_happened(self, node: str | None, otherwise: str) -> str:
        """'was lost with its node N' when `node` has left the cluster, else `otherwise`."""
        return f"was lost with its node {node[:8]}" if node in self.runtime.lost_nodes() else otherwise

    def say_gone(self, say: Callable[[str], None]) -> None:
        """One line for each node that left the cluster since the last look, naming what ran there (each
        component's own fault line comes as its loss is seen)."""
        gone = self.runtime.lost_nodes() - self.gone
        self.gone |= gone
        servers = [
            (server_name(self.system, i), process[0] if process else None) for i, process in enumerate(self.servers)
        ]
        placed = [(str(worker), node) for worker, node in self.workers.items()] + servers
        for node in sorted(gone):
            there = [name for name, where in placed if where == node]
            if there:
                say(f"node {node[:8]} left the cluster, with what ran there: {', '.join(there)}")
