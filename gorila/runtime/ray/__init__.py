"""The Ray runtime, the one package that imports Ray: each component becomes a Ray actor; calls
become `.remote()`.

By default the program starts an embedded single-machine Ray whose servers all stay on loopback and
which runs no dashboard. `--address HOST:PORT` (or `auto`) joins an existing cluster instead and
leaves it running afterwards: that is how a run grows beyond one machine. `connect` does either, for
`gorila train` and for the suite, whose games run as Ray tasks (`remote_task`, `cancel`).

A component is placed in a host class built from its role's contract (`host_class`): the contract's
methods, each forwarding to the object `make(*args)` built in that process, so what Ray places never
depends on what `make` is or how it is annotated.

Every component is placed with Ray's restart options: a process that dies is started again with the
same constructor arguments. Calls to a restarting server (parameter shard, replay shard, evaluator)
wait and are retried, so their callers only slow down; a worker's (actor, learner, bundle) call in
flight fails, so the driver sees the failure, records it and hands the work out again.

A restarted process of a role that waits for its state (a parameter shard) holds every call of its
contract until the driver has sent it its last state (`WaitsForState`); a thread of the driver gives
it as soon as the new process asks (`watch_restarts`), from the driver's memory, so no node reads
the driver's disk.

Its modules: `cluster` (start an embedded Ray or join a cluster; Ray tasks for the suite), `hosts`
(the classes Ray places), `handles` (calls between them, handles by name), `restart_watch` (the
driver's thread that gives a restarted component its state), `runtime` (`RayRuntime`, which
places a run's components) and `tuning` (Ray Tune for `gorila sweep`).
"""

from __future__ import annotations

import os

# Keeps every server of an embedded Ray (and of ray.cluster_utils clusters) on 127.0.0.1; must be
# set before Ray starts its processes. Ray 2.x otherwise binds to all interfaces.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
# Ray's failure handler (absl's) takes SIGTERM in the driver from the moment its core worker starts
# until Python's handler is put back: a SIGTERM then aborted the run (exit -6) with a stack dump,
# instead of stopping it with a final checkpoint. Read when Ray is imported, as the line above.
os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")

from gorila.runtime.ray.cluster import cancel, connect, disconnect, join_cluster, remote_task, start_embedded  # noqa: E402
from gorila.runtime.ray.handles import NamedActor, RayCalls  # noqa: E402
from gorila.runtime.ray.hosts import Located, WaitsForState, host_class  # noqa: E402
from gorila.runtime.ray.runtime import RayRuntime  # noqa: E402

__all__ = [
    "RayRuntime",
    "RayCalls",
    "NamedActor",
    "Located",
    "WaitsForState",
    "host_class",
    "connect",
    "disconnect",
    "join_cluster",
    "remote_task",
    "cancel",
    "start_embedded",
]
