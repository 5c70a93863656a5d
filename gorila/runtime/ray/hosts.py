"""What Ray places: a host class per role, built from the role's contract (`host_class`), which tells
where it runs (`Located`), waits for its state after a restart (`WaitsForState`) and can hold
parameter shards beside a worker's own work (`ShardHost`). The handles to them are in `handles`, the
driver's watch of their restarts in `restart_watch`."""

from __future__ import annotations

import inspect
import os
import threading
import warnings

import ray

from gorila.core import contract_methods
from gorila.placement import Role
from gorila.runtime.ray.handles import RESTORE

# The calls a host that waits for its state answers beside its contract's (which run one at a time
# in Ray's default group): the standing restart watch, `restore`, `node_id` and `process`.
CONTROL = "control"
CONTROL_THREADS = 4
# The calls a worker that hosts parameter shards answers for them, beside its own work (which runs in
# Ray's default group): in threads of their own, one at a time, or in synchronous rounds one per learner
# waiting for its round (`Resources.shard_threads`, from `gorila.config.derived.shard_threads`).
SHARDS = "shards"


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
    def awaiting_state(self, index: int) -> tuple[str, int] | None:
        """(node, pid) of this process while its shard `index` waits for its state; never once that
        shard has its state here, though the process waits on for another shard's (the driver renews
        its standing call for shard `index` at once: it must not be answered twice by one process)."""
        with self._restore_lock:
            waiting = not self._serving.is_set() and index in self._waiting_shards
        if not waiting:
            self._released.wait()
            return None
        return Located.process(self)

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
    # Ray knows an actor class by its module and name: two classes of one name (a bundle that holds
    # shards and one that does not) would run each other's methods, so a holder's name says so.
    name += "HoldingShards" if role.hosts_shards else ""
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
