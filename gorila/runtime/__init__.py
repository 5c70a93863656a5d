"""Runtimes place the components: `local` (one process) or `ray` (one Ray actor per component).

What a runtime offers is the `Runtime` protocol (`gorila.runtime.protocol`): `place(role, make, *args)`
(build `make(*args)` for a component of that `gorila.placement.Role`, here or in its own process),
`calls` (`gorila.runtime.calls`), and the lifecycle the driver uses: `wait_ready`, `where`,
`processes`, `restarts`, `restart`, `free_cpus`, `lost_nodes`, `watch_restarts`, `shutdown`.
"""

from __future__ import annotations

from gorila.placement import Resources
from gorila.runtime.protocol import Runtime, ShardHostingRuntime

__all__ = ["Runtime", "ShardHostingRuntime", "make_runtime"]


def make_runtime(resources: Resources) -> Runtime:
    """The runtime a run's `Resources` name (`gorila.system.planning` works them out from the config);
    Ray is imported only when it is used."""
    if resources.runtime == "local":
        from gorila.runtime.local import LocalRuntime

        return LocalRuntime()
    from gorila.runtime.ray import RayRuntime

    return RayRuntime(resources)
