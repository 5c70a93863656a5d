"""`RayRuntime`: a run's components placed as Ray actors with Ray's restart options."""

from __future__ import annotations

import uuid
from typing import Callable

import ray

from gorila.placement import Kind, Resources, Role
from gorila.runtime.calls import ClusterError
from gorila.runtime.ray.cluster import connect
from gorila.runtime.ray.handles import HostedShard, NamedActor, RayCalls, restart_count
from gorila.runtime.ray.hosts import CONTROL, CONTROL_THREADS, SHARDS, host_class
from gorila.runtime.ray.restart_watch import RestartWatch


class RayRuntime:
    """A `gorila.runtime.ShardHostingRuntime` on Ray: one Ray actor per component, each reserving what
    the run's `Resources` say (the runtime never reads the config)."""

    name = "ray"
    restarts_components = True
    hosts_shards = True  # a worker can hold parameter shards in its process (`reserve`, `hosted_shard`)

    def __init__(self, resources: Resources):
        self.resources = resources
        self.calls = RayCalls()
        self.handles: list = []
        self._classes: dict = {}
        self._watches: list[RestartWatch] = []
        self.run_id = uuid.uuid4().hex[:8]  # names this run's components apart on a shared cluster
        self._reserved = 0
        self.owns_ray = not ray.is_initialized()  # never shut down a Ray session someone else started
        if not self.owns_ray:
            return
        # enough CPU slots for every worker even when they outnumber the cores (they then share)
        connect(resources.address, resources.workers * resources.worker_cpus)
        self._check_gpus()

    def _check_gpus(self) -> None:
        """Asking for more GPUs than the cluster has would leave learners unplaced: say so at once."""
        asked = self.resources.learner_gpus
        wanted = asked * self.resources.learner_processes
        available = ray.cluster_resources().get("GPU", 0)
        if asked and wanted > available:
            self.shutdown()
            raise ClusterError(
                f"learner_gpus={asked:g} asks for {wanted:g} GPUs in all; the Ray cluster has {available:g}"
            )

    def _options(self, role: Role) -> dict:
        """Resources and restart policy of a component of `role`."""
        resources = self.resources
        if role.server:  # callers wait through a restart: retry their calls
            options = {"num_cpus": resources.server_cpus, "max_restarts": -1, "max_task_retries": -1}
            if role.name is Kind.PARAMETER_SHARD and resources.shard_threads > 1:  # learners wait in its rounds
                options["max_concurrency"] = resources.shard_threads
            return options
        gpus = self._learner_gpus() if role.learns else 0
        return {"num_cpus": resources.worker_cpus, "num_gpus": gpus, "max_restarts": -1, "max_task_retries": 0}

    def _learner_gpus(self) -> float:
        """learner_gpus, or with a GPU device and none asked for, an equal share of one GPU each."""
        resources = self.resources
        if resources.learner_gpus or resources.device == "cpu":
            return resources.learner_gpus
        has_gpu = ray.cluster_resources().get("GPU", 0) > 0
        if resources.device == "cuda" or has_gpu:
            return 1.0 / resources.learner_processes
        return 0.0

    def reserve(self) -> NamedActor:
        """The handle of a component not placed yet (`place(..., as_handle=it)` places it): others
        can be built with it first, as a bundle is with the handles of shards another bundle hosts."""
        self._reserved += 1
        return NamedActor(f"gorila-{self.run_id}-r{self._reserved}")

    def place(self, role: Role, make, *args, as_handle: NamedActor | None = None):
        """A Ray actor holding `make(*args)` (a class or a `make_*` function), built in its own
        process and called through `role`'s contract; named as the `reserve`d `as_handle`, if given."""
        if role not in self._classes:
            self._classes[role] = ray.remote(concurrency_groups=self._groups(role))(host_class(role))
        name = as_handle.name if as_handle is not None else f"gorila-{self.run_id}-{len(self.handles)}"
        # No task events: the GCS would keep a record of every call (thousands a second), growing.
        handle = (
            self._classes[role].options(name=name, enable_task_events=False, **self._options(role)).remote(make, *args)
        )
        self.handles.append(handle)
        return NamedActor(name, handle)

    def _groups(self, role: Role) -> dict | None:
        """Ray's concurrency groups of a host of `role`: the control calls of a host that waits for its
        state (one standing `awaiting_state` per shard it holds among them), and a shard host's calls."""
        if role.hosts_shards:
            per_host = self.resources.shards_per_holder
            return {CONTROL: CONTROL_THREADS + per_host, SHARDS: self.resources.shard_threads}
        return {CONTROL: CONTROL_THREADS} if role.waits_for_state else None

    def hosted_shard(self, host: NamedActor, index: int) -> HostedShard:
        """The handle of parameter shard `index`, held by the worker placed as `host`."""
        return HostedShard(host, index)

    def wait_ready(self, handles, timeout: float) -> int:
        """How many components are still not running after `timeout` seconds (0 when all are).

        A component that failed in its constructor raises here, with its error.
        """
        futures = [handle.node_id.remote() for handle in handles]
        done, remaining = ray.wait(futures, num_returns=len(futures), timeout=timeout)
        ray.get(done)
        return len(remaining)

    def where(self, handle) -> str:
        return ray.get(handle.node_id.remote())

    def processes(self, handles, timeout: float = 30.0) -> list:
        """Each component's (node, pid), None where it does not answer in time."""
        futures = [handle.process.remote() for handle in handles]
        ready, _ = ray.wait(futures, num_returns=len(futures), timeout=timeout)
        ready = set(ready)
        return [ray.get(f) if f in ready else None for f in futures]

    def restarts(self, handles) -> list:
        """How many times Ray has restarted each component's process (None where Ray does not say):
        what tells a death that no call saw (a worker killed while idle) from a call refused while a
        restart is under way, which Ray reports with the same error."""
        return [restart_count(handle) for handle in handles]

    def restart(self, handle: NamedActor) -> None:
        """End a component that stopped answering; Ray starts it again."""
        ray.kill(handle.handle, no_restart=False)

    def nodes(self) -> list[dict]:
        """Each live node of the cluster: its address, and the CPUs and memory (bytes) Ray gives its tasks."""
        return [
            {
                "node": node["NodeManagerAddress"],
                "cpus": node["Resources"].get("CPU", 0.0),
                "memory": node["Resources"].get("memory", 0.0),
            }
            for node in ray.nodes()
            if node["Alive"]
        ]

    def free_cpus(self) -> float:
        """The CPUs free on the cluster's nodes (Ray's view, a moment behind its placements)."""
        return ray.available_resources().get("CPU", 0.0)

    def lost_nodes(self) -> set[str]:
        """The cluster's nodes that Ray reports dead (removed, crashed or preempted)."""
        return {node["NodeID"] for node in ray.nodes() if not node["Alive"]}

    def watch_restarts(self, handles, restored: Callable[[int, tuple], None]) -> None:
        """Until shutdown, call `restored(index, (node, pid))` from a thread of this process as soon as
        a restarted process of `handles[index]` (of a role that waits for its state) waits for it:
        the callback gives it the state, even while this process's other threads wait on it."""
        watch = RestartWatch(handles, restored)
        self._watches.append(watch)
        watch.start()

    def shutdown(self) -> None:
        for watch in self._watches:
            watch.stop()
        self._watches = []
        for handle in self.handles:
            ray.kill(handle)
        self.handles = []
        if self.owns_ray:
            ray.shutdown()
