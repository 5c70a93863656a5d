"""How the driver and the components reach what Ray placed: `RayCalls` (the `gorila.runtime.calls.Calls`
of Ray), handles that travel by name (`NamedActor`), also to a parameter shard that a worker hosts
(`HostedShard`), and Ray's count of an actor's restarts (`restart_count`)."""

from __future__ import annotations

import ray

from gorila.runtime.calls import unwrapped

RESTORE = "restore"  # the contract method that gives a waiting host its state


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
        return isinstance(unwrapped(error), ray.exceptions.RayActorError)


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
    to `restore_shard`), which serve them beside the worker's own work; where it runs is the host's,
    and whether it waits for its state the host says for this shard. It travels as the host's name
    and the index."""

    HOST_METHODS = ("node_id", "process", "stop_awaiting")

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
        if method == "awaiting_state":  # the host answers for each of its shards once per process
            return _Bound(self.host.awaiting_state, self.index)
        return _Bound(self.host.shard_call, self.index, method)


class _Bound:
    """`method.remote(*first, *args)`: a host's method with its first arguments given."""

    def __init__(self, method, *first):
        self.method, self.first = method, first

    def remote(self, *args):
        return self.method.remote(*self.first, *args)
