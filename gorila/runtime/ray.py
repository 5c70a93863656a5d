"""The Ray runtime, the one module that imports Ray: each component becomes a Ray actor; calls
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
"""
from __future__ import annotations

import inspect
import os
import socket
import threading
import time
import uuid
import warnings
from typing import Callable

# Keeps every server of an embedded Ray (and of ray.cluster_utils clusters) on 127.0.0.1; must be
# set before Ray starts its processes. Ray 2.x otherwise binds to all interfaces.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

import ray  # noqa: E402

from gorila.contracts import Role, contract_methods, learner_processes  # noqa: E402
from gorila.runtime import session_guard  # noqa: E402
from gorila.runtime.calls import ClusterError, split_address  # noqa: E402

CONNECT_TIMEOUT_S = 20
# Messages up to this size travel inside the call instead of through the object store: a learner's
# batch of small-network gradients then costs one message, not a store round trip (embedded Ray only;
# a cluster keeps its own setting).
INLINE_MESSAGE_BYTES = 1 << 20
EMBEDDED_SYSTEM_CONFIG = {
    "max_direct_call_object_size": INLINE_MESSAGE_BYTES,
    # No dashboard reads them: without it every process stops exporting metrics to its node's agent,
    # CPU the components need (CartPole, 1 bundle, 5 pairs of runs: median 1,480 frames/s against 1,214).
    "enable_metrics_collection": False,
}
# The calls a host that waits for its state answers beside its contract's (which run one at a time
# in Ray's default group): the standing restart watch, `restore`, `node_id` and `process`.
CONTROL = "control"
CONTROL_THREADS = 4
RESTORE = "restore"       # the contract method that gives a waiting host its state
WATCH_POLL_S = 0.5        # how soon the restart watch notices that it is being stopped


class RayCalls:
    """Calls between components placed as Ray actors (futures are ObjectRefs, which `get` and `wait`
    also take from `remote_task`)."""

    def call(self, target, method, *args):
        return getattr(target, method.__name__).remote(*args)

    def get(self, futures):
        return ray.get(list(futures)) if futures else []

    def wait(self, futures, timeout=None):
        futures = list(futures)
        if not futures:
            return [], []
        return ray.wait(futures, num_returns=1, timeout=timeout)

    @staticmethod
    def lost(error: BaseException) -> bool:
        """Did the call fail because its component's process died (not because its code raised)?"""
        if isinstance(error, ray.exceptions.RayTaskError):
            error = getattr(error, "cause", None)
        return isinstance(error, ray.exceptions.RayActorError)


class NamedActor:
    """A component's Ray handle that travels by name: what a component is built with pickles to a short
    string, so Ray can restart it from its constructor arguments alone (a raw handle among them would
    tie the restart to an object-store entry). Resolved with `ray.get_actor` on first use."""

    def __init__(self, name: str, handle=None):
        self.name, self._handle = name, handle

    def __reduce__(self):
        return NamedActor, (self.name,)

    @property
    def handle(self):
        if self._handle is None:
            self._handle = ray.get_actor(self.name)
        return self._handle

    def __getattr__(self, method: str):
        if method.startswith("_"):
            raise AttributeError(method)
        return getattr(self.handle, method)


class Located:
    """The base of every host class: lets the driver and tests ask where a component runs."""

    def node_id(self) -> str:
        return ray.get_runtime_context().get_node_id()

    def process(self) -> tuple[str, int]:
        """(node, pid): changes when Ray restarts the component."""
        return ray.get_runtime_context().get_node_id(), os.getpid()


class WaitsForState(Located):
    """The base of the host of a role that `waits_for_state`: a first start serves at once; a restarted
    process serves no call of its contract before `restore` has given it the driver's last state.
    Ray runs its contract's calls one at a time, as any host's, and those of the CONTROL group beside
    them, so that a waiting host still says where it runs and takes its state."""

    @ray.method(concurrency_group=CONTROL)
    def node_id(self) -> str:
        return Located.node_id(self)

    @ray.method(concurrency_group=CONTROL)
    def process(self) -> tuple[str, int]:
        return Located.process(self)

    @ray.method(concurrency_group=CONTROL)
    def awaiting_state(self) -> tuple[str, int]:
        """(node, pid) of this process as soon as it waits for its state; never while it serves. The
        driver keeps one such call standing: Ray retries it in each new process, where it answers."""
        if self._serving.is_set():
            threading.Event().wait()            # never set: a serving process never needs a state again
        return Located.process(self)


def _restarted() -> bool:
    """Is this process a Ray actor that Ray has restarted (False in any other process)?"""
    if not ray.is_initialized() or ray.get_runtime_context().get_actor_id() is None:
        return False
    with warnings.catch_warnings():        # Ray 2.60's property reads its own deprecated actor_id
        warnings.simplefilter("ignore")
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


def host_class(role: Role) -> type:
    """The class Ray places for a component of `role`, named after the role: built with `(make,
    *args)`, it holds `make(*args)` and has exactly the methods of the role's contract, each
    forwarding to it, besides `Located`'s (and `WaitsForState`'s for a role that waits for its state)."""
    waits = role.waits_for_state

    def __init__(self, make, *args):
        self._serving = threading.Event()         # what a WaitsForState host's calls wait for
        if not (waits and _restarted()):
            self._serving.set()
        self.component = make(*args)

    contract = contract_methods(role.contract)
    if waits and RESTORE not in contract:
        raise TypeError(f"{role.name} waits for its state but its contract has no {RESTORE}")
    methods = {name: _forward(name, method, waits) for name, method in contract.items()}
    name = "".join(part.title() for part in role.name.split("_"))
    base = WaitsForState if waits else Located
    return type(name, (base,), {"__init__": __init__, "__doc__": role.contract.__doc__, **methods})


def _forward(name: str, method, waits: bool = False):
    """A host's method `name`: the contract's signature and words, run by the component it holds. In
    a host that `waits` for its state, `restore` runs in the CONTROL group and releases the held
    calls; every other method waits for it first.

    The signature is a copy, not a link (`functools.wraps` would set `__wrapped__`): Ray adds its
    tracing parameter to the signature of what a method wraps, and the contract must stay as written."""
    def forward(self, *args):
        return getattr(self.component, name)(*args)

    def restore(self, *args):
        getattr(self.component, name)(*args)
        self._serving.set()

    def held(self, *args):
        self._serving.wait()
        return getattr(self.component, name)(*args)
    if waits:
        forward = ray.method(concurrency_group=CONTROL)(restore) if name == RESTORE else held
    forward.__name__ = forward.__qualname__ = name
    forward.__doc__, forward.__signature__ = method.__doc__, inspect.signature(method)
    return forward


def start_embedded(slots: float) -> None:
    """Start this program's own single-machine Ray, with CPU slots for `slots` (more than the cores
    when asked: they then share): servers on loopback, no dashboard, EMBEDDED_SYSTEM_CONFIG."""
    # address="local": always a Ray of our own, never the one another run on this machine
    # registered as the current cluster (joining it would share, or fail on, its resources)
    context = ray.init(address="local", num_cpus=max(os.cpu_count() or 1, int(slots + 0.999)),
                       include_dashboard=False, log_to_driver=False, configure_logging=False, logging_level="ERROR",
                       _system_config=dict(EMBEDDED_SYSTEM_CONFIG))   # Ray adds to the dict it is given
    session_guard.start(context.address_info["session_dir"])    # its processes end with this one, even on kill -9


def join_cluster(address: str) -> None:
    """Join the Ray cluster at HOST:PORT (or `auto`); a ClusterError in seconds when none answers."""
    if address != "auto":
        _probe(address)
    _join(address)


def connect(address: str, slots: float) -> None:
    """Join the cluster at `address`, or with none start an embedded Ray with `slots` CPU slots."""
    if address:
        join_cluster(address)
    else:
        start_embedded(slots)


def remote_task(function, num_cpus: float):
    """What starts `function(*args)` as a Ray task that asks for `num_cpus` and is never retried; it
    returns the task's future, for `RayCalls`' `wait` and `get` and for `cancel`."""
    return ray.remote(num_cpus=num_cpus, max_retries=0)(function).remote


def cancel(futures, timeout: float) -> None:
    """Interrupt the tasks of `futures` (each sees a KeyboardInterrupt) and wait up to `timeout` s."""
    for future in futures:
        ray.cancel(future)
    deadline, pending = time.time() + timeout, list(futures)
    while pending and time.time() < deadline:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=1.0)


def disconnect() -> None:
    """Leave Ray: an embedded one stops, a joined cluster keeps running."""
    ray.shutdown()


def _probe(address: str) -> None:
    """Fail fast (seconds, not minutes) when nothing listens at HOST:PORT."""
    try:
        host, port = split_address(address)
    except ValueError as error:
        raise ClusterError(f"--{error}") from None
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as error:
        raise ClusterError(f"no Ray cluster answers at {address} ({error.strerror or error})") from None


def _join(address: str) -> None:
    """ray.init(address) with a deadline: something that listens but is not Ray makes Ray wait forever."""
    outcome: dict = {}

    def attempt():
        try:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
            outcome["ok"] = True
        except Exception as error:  # reported below, in the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(CONNECT_TIMEOUT_S)
    if "error" in outcome:
        reason = str(outcome["error"]).strip().splitlines()[0]
        raise ClusterError(f"cannot join the Ray cluster at {address}: {reason}")
    if "ok" not in outcome:
        raise ClusterError(f"no Ray cluster answered at {address} within {CONNECT_TIMEOUT_S} s")


class RestartWatch(threading.Thread):
    """The driver's thread that hands restarted components to `restored` as soon as they wait for
    their state: one standing `awaiting_state` call per component, which only a restarted process
    answers, renewed after `restored` has run (so the process it answered from is served once)."""

    def __init__(self, handles, restored: Callable[[int, tuple], None]):
        super().__init__(name="gorila-restart-watch", daemon=True)
        self.handles, self.restored, self.stopping = list(handles), restored, threading.Event()

    def run(self) -> None:
        watches = {self._watch(index): index for index in range(len(self.handles))}
        while watches and not self.stopping.is_set():
            done, _ = ray.wait(list(watches), num_returns=1, timeout=WATCH_POLL_S)
            for future in done:
                index = watches.pop(future)
                try:
                    self.restored(index, tuple(ray.get(future)))
                except ray.exceptions.ActorDiedError:    # ended for good (the run is shutting down)
                    continue
                except ray.exceptions.RayActorError:     # its process was lost while answering: ask again
                    pass
                watches[self._watch(index)] = index

    def _watch(self, index: int):
        return self.handles[index].awaiting_state.remote()

    def stop(self) -> None:
        self.stopping.set()
        self.join(timeout=10 * WATCH_POLL_S)


class RayRuntime:
    name = "ray"
    restarts_components = True

    def __init__(self, config):
        self.config = config
        self.calls = RayCalls()
        self.handles: list = []
        self._classes: dict = {}
        self._watches: list[RestartWatch] = []
        self.run_id = uuid.uuid4().hex[:8]          # names this run's components apart on a shared cluster
        self.owns_ray = not ray.is_initialized()    # never shut down a Ray session someone else started
        if not self.owns_ray:
            return
        # enough CPU slots for every worker even when they outnumber the cores (they then share)
        workers = config.actors if config.bundled else config.actors + config.learners
        connect(config.address, workers * config.worker_cpus)
        self._check_gpus()

    def _check_gpus(self) -> None:
        """Asking for more GPUs than the cluster has would leave learners unplaced: say so at once."""
        config = self.config
        wanted = config.learner_gpus * learner_processes(config)
        available = ray.cluster_resources().get("GPU", 0)
        if config.learner_gpus and wanted > available:
            self.shutdown()
            raise ClusterError(f"learner_gpus={config.learner_gpus:g} asks for {wanted:g} GPUs in all; "
                               f"the Ray cluster has {available:g}")

    def _options(self, role: Role) -> dict:
        """Resources and restart policy of a component of `role`."""
        config = self.config
        if role.server:                          # callers wait through a restart: retry their calls
            return {"num_cpus": config.server_cpus, "max_restarts": -1, "max_task_retries": -1}
        gpus = self._learner_gpus() if role.learns else 0
        return {"num_cpus": config.worker_cpus, "num_gpus": gpus, "max_restarts": -1, "max_task_retries": 0}

    def _learner_gpus(self) -> float:
        """learner_gpus, or with a GPU device and none asked for, an equal share of one GPU each."""
        config = self.config
        if config.learner_gpus or config.device == "cpu":
            return config.learner_gpus
        has_gpu = ray.cluster_resources().get("GPU", 0) > 0
        if config.device == "cuda" or has_gpu:
            return 1.0 / learner_processes(config)
        return 0.0

    def place(self, role: Role, make, *args):
        """A Ray actor holding `make(*args)` (a class or a `make_*` function), built in its own
        process and called through `role`'s contract."""
        if role not in self._classes:
            groups = {CONTROL: CONTROL_THREADS} if role.waits_for_state else None
            self._classes[role] = ray.remote(concurrency_groups=groups)(host_class(role))
        name = f"gorila-{self.run_id}-{len(self.handles)}"
        # No task events: the GCS would keep a record of every call (thousands a second), growing.
        handle = self._classes[role].options(name=name, enable_task_events=False,
                                             **self._options(role)).remote(make, *args)
        self.handles.append(handle)
        return NamedActor(name, handle)

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

    def restart(self, actor: NamedActor) -> None:
        """End a component that stopped answering; Ray starts it again."""
        ray.kill(actor.handle, no_restart=False)

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
