"""A bundled Ray run that grows as its cluster gains room (`max_bundles`): whenever the cluster has a
bundle's `worker_cpus` free (a node joined, or CPUs were freed), the driver places one more bundle,
up to `max_bundles`, and hands it work as any other. One at a time: the next waits until the last
has reported, so that Ray's view of the free CPUs has caught up with what was placed.

A bundle that joins is bundle N, N+1, ...: it takes the exploration rung of bundle N mod `actors`,
starts with an empty replay memory (it learns once that holds `learning_starts`), reads theta+ from
the shards and holds none of them."""

from __future__ import annotations

from typing import Callable

from gorila.placement import BUNDLE, Kind, WorkerId
from gorila.system.builders import make_bundle


class Growth:
    """Places bundles on the room a cluster gains, up to `config.max_bundles`."""

    def __init__(self, config, plan, runtime, system, worker_steps, say: Callable[[str], None]):
        self.config, self.plan, self.runtime, self.system = config, plan, runtime, system
        self.worker_steps, self.say = worker_steps, say  # agent steps each worker has reported

    def look(self) -> WorkerId | None:
        """Place one more bundle if the run may grow and the cluster has room for it; the new worker."""
        config, workers = self.config, self.system.workers
        bundles = [worker for worker in workers if worker.role is Kind.BUNDLE]
        if len(bundles) >= config.max_bundles or any(not self.worker_steps[worker] for worker in bundles):
            return None  # at its limit, or the last bundle placed has not reported yet
        free = self.runtime.free_cpus()
        if free < self.plan.resources.worker_cpus:
            return None
        worker = WorkerId(BUNDLE.name, len(bundles))
        args = (config, self.plan, worker.index, self.system.shards, self.system.bounds, self.runtime.calls)
        workers[worker] = self.runtime.place(BUNDLE, make_bundle, *args)
        self.say(
            f"{worker} joins on room the cluster gained ({free:g} CPUs free): "
            f"{len(bundles) + 1} bundles (max_bundles={config.max_bundles})"
        )
        return worker
