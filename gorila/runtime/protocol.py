"""What a runtime is: where the driver places components and how it calls and watches them.

Both runtimes implement `Runtime` (tests/unit/runtime/test_protocol.py checks their signatures):
`LocalRuntime` builds every component in this process and restarts nothing; `RayRuntime` builds each in
a Ray actor of its own, restarts lost processes and can let a worker hold parameter shards in its
process (`ShardHostingRuntime`). The driver's use of one, in order:

    runtime = make_runtime(plan.resources)                            # gorila.system.planning; never the config
    shard = runtime.place(PARAMETER_SHARD, make_shard_of, config, plan, 0, start, stop)  # here, or in a process
    missing = runtime.wait_ready([shard], timeout=120)                # 0 when all are running
    future = runtime.calls.call(shard, ShardServer.pull)              # gorila.runtime.calls
    theta = runtime.calls.get([future])[0]
    runtime.shutdown()
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Protocol, runtime_checkable

from gorila.placement import Role
from gorila.runtime.calls import Calls


@runtime_checkable
class Runtime(Protocol):
    name: ClassVar[str]  # "local" or "ray": what the run's first line says it runs on
    restarts_components: ClassVar[bool]  # a lost process is started again (and recovered from)
    hosts_shards: ClassVar[bool]  # a worker can hold parameter shards in its process
    calls: Calls

    def place(self, role: Role, make: Callable, *args) -> Any:
        """A handle of `make(*args)` built as a component of `role` (a class or a `make_*` function)."""

    def wait_ready(self, handles, timeout: float) -> int:
        """How many of `handles` are not running after `timeout` seconds (0 when all are)."""

    def where(self, handle) -> str:
        """The node a component runs on."""

    def processes(self, handles, timeout: float = 30.0) -> list:
        """Each component's (node, pid), None where it does not answer in time."""

    def restarts(self, handles) -> list:
        """How many times each component's process was started again (None where unknown)."""

    def restart(self, handle) -> None:
        """End a component that stopped answering, so that it starts again."""

    def free_cpus(self) -> float:
        """CPUs the cluster has free for another component now."""

    def lost_nodes(self) -> set[str]:
        """The nodes that have left the cluster (every process on them gone with them)."""

    def watch_restarts(self, handles, restored: Callable[[int, tuple], None]) -> None:
        """Call `restored(index, (node, pid))` when a restarted process of `handles[index]` waits for its state."""

    def shutdown(self) -> None:
        """End every component placed (and the runtime's own session, if it started one)."""


@runtime_checkable
class ShardHostingRuntime(Runtime, Protocol):
    """A runtime whose workers can hold parameter shards beside their own work (`hosts_shards`): a
    holder is `reserve`d first, so that others can be built with its shards' handles, then placed."""

    def reserve(self) -> Any:
        """The handle of a component not placed yet."""

    def place(self, role: Role, make: Callable, *args, as_handle: Any = None) -> Any:
        """As `Runtime.place`; named as the `reserve`d `as_handle`, if given."""

    def hosted_shard(self, host, index: int) -> Any:
        """The handle of parameter shard `index`, held by the worker placed as `host`."""
