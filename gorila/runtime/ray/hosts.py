"""What Ray places and how it is called: a host class per role, built from the role's contract
(`host_class`); handles that travel by name (`NamedActor`), also to a parameter shard that a worker
hosts (`HostedShard`); `RayCalls`; and the driver's thread that gives a restarted parameter shard
its last state (`RestartWatch`); and Ray's count of an actor's restarts (`restart_count`)."""

from __future__ import annotations

import inspect
import os
import threading
import warnings
from typing import Callable

import ray

from gorila.contracts import Role, contract_methods

# The calls a host that waits for its state answers beside its contract's (which run one at a time
# in Ray's default group): the standing restart watch, `restore`, `node_id` and `process`.
CONTROL = "control"
CONTROL_THREADS = 4
RESTORE = "restore"  # the contract method that gives a waiting host its state
# The calls a worker that hosts parameter shards answers for them, beside its own work (which runs in
# Ray's default group): one at a time, in a thread of their own.
SHARDS = "shards"
WATCH_POLL_S = 0.5  # how soon the restart watch notices that it is being stopped


class RayCalls:
    """Calls between components placed as Ray actors (futures are ObjectRefs, which `get` and `wait`
    also take from `remote_task`)."""

    def call(self, target, method, *args):
        return getattr(target, method.__name__).remote(*args)

    def get(self, futures, timeout=None):
        return ray.get(list(futures), timeout=timeout) if futures else []  # GetTimeoutError is a TimeoutError

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


def restart_count(handle: NamedActor) -> int | None:
    """Ray's count of the restarts of the actor behind `handle`, from its GCS's actor table (Ray has no
    public reader of it that works without the dashboard); None where this Ray's table does not say."""
    try:
        from ray._private import state

        return int(state.actors(actor_id=handle.handle._actor_id.hex())["NumRestarts"])
    except Exception:  # another Ray version's private table: the driver falls back on process ids
        return None


class HostedShard:
    """A handle to parameter shard `index` held by the worker placed as `host` (a `NamedActor`, which
    may not be placed yet): the shard contract's calls go to the host's `shard_call` (its `restore`
    to `restore_shard`), which serve them beside the worker's own work; where it runs, and whether
    it waits for its state, are the host's. It travels as the host's name and the index."""

    HOST_METHODS = ("node_id", "process", "awaiting_state", "stop_awaiting")

    def __init__(self, host: NamedActor, index: int):
        self.host, self.index = host, index

    def __reduce__(self):
        return HostedShard, (self.host, self.index)

    def __getattr__(self, method: str):
        if method.startswith("_"):
            raise AttributeError(method)
        if method in self.HOST_METHODS:
            return getattr(self.host, method)
        if method == RESTORE:
            return _Bound(self.host.restore_shard, self.index)
        return _Bound(self.host.shard_call, self.index, method)


class _Bound:
    """`method.remote(*first, *args)`: a host's method with its first arguments given."""

    def __init__(self, method, *first):
        self.method, self.first = method, first

    def remote(self, *args):
        return self.method.remote(*self.first, *args)


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
    def awaiting_state(self) -> tuple[str, int] | None:
        """(node, pid) of this process as soon as it waits for its state; never while it serves. The
        driver keeps one such call standing: Ray retries it in each new process, where it answers.
        None once `stop_awaiting` released it (the run is ending)."""
        if self._serving.is_set():
            self._released.wait()  # a serving process never needs a state again
            return None
        return Located.process(self)

    @ray.method(concurrency_group=CONTROL)
    def stop_awaiting(self) -> None:
        """End the standing `awaiting_state` call: a call still standing when the component is ended
        would be retried, and Ray would say so on the user's terminal."""
        self._released.set()


class ShardHost(WaitsForState):
    """The base of the host of a worker that holds parameter shards beside its own work (shard
    placement `learners`): the component's `hosted_shards` (index -> `ParameterShard`) answer the
    shard contract's calls of other processes through `shard_call`, in a thread of their own, while
    the worker's own calls run in Ray's default group. A restarted process serves neither before the
    driver has given each of its shards its last state (`restore_shard`); the worker's next call then
    first reads theta+ afresh (`refresh`), so that nothing it does starts from the theta_0 its shards
    were built with. (That read waits in the worker's own thread, never in the restore: the shards
    of two hosts restarted at once are restored one after the other.)"""

    # A worker's own calls fail with its process (the driver hands the work out again); the calls made
    # for its shards are a server's, which wait through a restart: Ray retries them in the new process.
    @ray.method(concurrency_group=CONTROL, max_task_retries=-1)
    def node_id(self) -> str:
        return Located.node_id(self)

    @ray.method(concurrency_group=CONTROL, max_task_retries=-1)
    def process(self) -> tuple[str, int]:
        return Located.process(self)

    @ray.method(concurrency_group=CONTROL, max_task_retries=-1)
    def awaiting_state(self) -> tuple[str, int] | None:
        return WaitsForState.awaiting_state(self)

    @ray.method(concurrency_group=SHARDS, max_task_retries=-1)
    def shard_call(self, index: int, method: str, *args):
        """Shard `index`'s contract method `method`; retried in the restarted process if this one dies
        (its callers wait through a restart, as they do for a shard of its own process)."""
        self._serving.wait()
        return getattr(self.component.hosted_shards[index], method)(*args)

    @ray.method(concurrency_group=CONTROL, max_task_retries=-1)
    def restore_shard(self, index: int, state: dict) -> None:
        """Give shard `index` its last state; once all of this process's shards have theirs, every held
        call goes ahead, the worker's after it has read theta+ afresh."""
        self.component.hosted_shards[index].restore(state)
        with self._restore_lock:
            self._waiting_shards.discard(index)
            if self._waiting_shards:
                return
            self._waiting_shards = set(self.component.hosted_shards)  # for the next restart's round
            self._refresh_due = True
            self._serving.set()

    def _before_own_call(self) -> None:
        """In the worker's own thread, before its call: read theta+ afresh after its shards were restored."""
        if self._refresh_due:
            self._refresh_due = False
            refresh = getattr(self.component, "refresh", None)
            if refresh is not None:
                refresh()


def _restarted() -> bool:
    """Is this process a Ray actor that Ray has restarted (False in any other process)?"""
    if not ray.is_initialized() or ray.get_runtime_context().get_actor_id() is None:
        return False
    with warnings.catch_warnings():  # Ray 2.60's property reads its own deprecated actor_id
        warnings.simplefilter("ignore")
        return bool(ray.get_runtime_context().was_current_actor_reconstructed)


def host_class(role: Role) -> type:
    """The class Ray places for a component of `role`, named after the role: built with `(make,
    *args)`, it holds `make(*args)` and has exactly the methods of the role's contract, each
    forwarding to it, besides `Located`'s (and `WaitsForState`'s for a role that waits for its state)."""
    waits = role.waits_for_state

    def __init__(self, make, *args):
        self._serving = threading.Event()  # what a WaitsForState host's calls wait for
        self._released = threading.Event()  # what ends its standing awaiting_state call
        self.component = make(*args)
        if role.hosts_shards:
            self._restore_lock, self._refresh_due = threading.Lock(), False
            self._waiting_shards = set(self.component.hosted_shards)
        if not (waits and _restarted()):
            self._serving.set()

    contract = contract_methods(role.contract)
    if waits and not role.hosts_shards and RESTORE not in contract:
        raise TypeError(f"{role.name} waits for its state but its contract has no {RESTORE}")
    methods = {
        name: _forward(name, method, waits and not role.hosts_shards, hold=waits) for name, method in contract.items()
    }
    name = "".join(part.title() for part in role.name.split("_"))
    base = ShardHost if role.hosts_shards else WaitsForState if waits else Located
    return type(name, (base,), {"__init__": __init__, "__doc__": role.contract.__doc__, **methods})


def _forward(name: str, method, waits: bool = False, hold: bool = False):
    """A host's method `name`: the contract's signature and words, run by the component it holds. In
    a host that `waits` for its state, `restore` runs in the CONTROL group and releases the held
    calls; every other method waits for it first (in a shard host, `hold` without `waits`: every
    method of the worker's contract waits for its shards' states).

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

    def held_own(self, *args):
        self._serving.wait()
        self._before_own_call()
        return getattr(self.component, name)(*args)

    if waits:
        forward = ray.method(concurrency_group=CONTROL)(restore) if name == RESTORE else held
    elif hold:
        forward = held_own
    forward.__name__ = forward.__qualname__ = name
    forward.__doc__, forward.__signature__ = method.__doc__, inspect.signature(method)
    return forward


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
                    process = ray.get(future)
                    if process is None:  # released: the run is ending
                        continue
                    self.restored(index, tuple(process))
                except ray.exceptions.ActorDiedError:  # ended for good (the run is shutting down)
                    continue
                except ray.exceptions.RayActorError:  # its process was lost while answering: ask again
                    pass
                watches[self._watch(index)] = index

    def _watch(self, index: int):
        return self.handles[index].awaiting_state.remote()

    def stop(self) -> None:
        self.stopping.set()
        ray.wait(
            [handle.stop_awaiting.remote() for handle in self.handles],
            num_returns=len(self.handles),
            timeout=10 * WATCH_POLL_S,
        )
        self.join(timeout=10 * WATCH_POLL_S)
