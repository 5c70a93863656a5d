"""How the driver and the components reach what Ray placed (`gorila.runtime.ray.handles`), read
without starting Ray: a handle travels by its name and is resolved on first use; a parameter shard
held by a worker is reached through its host's shard methods with its index; which failures are a
lost process; and Ray's restart count where its table cannot be read."""

import pickle

import numpy as np
import pytest
import ray

from gorila.core import ShardServer
from gorila.runtime.ray.handles import HostedShard, NamedActor, RayCalls, restart_count


class ActorHandle:
    """What Ray's handle to a host gives: `handle.method.remote(*args)`, here recording the call."""

    def __getattr__(self, method: str):
        recorder = type("Method", (), {"remote": staticmethod(lambda *args: (method, args))})
        return recorder()


def test_a_named_actor_travels_as_its_name_and_forwards_to_its_handle_where_it_has_one():
    named = NamedActor("gorila-parameter-shard-0", ActorHandle())
    assert named.pull.remote() == ("pull", ())
    copy = pickle.loads(pickle.dumps(named))
    assert copy.name == "gorila-parameter-shard-0" and copy._handle is None  # resolved by name on first use
    assert len(pickle.dumps(named)) < 200  # no handle travels with it
    with pytest.raises(AttributeError):  # a private name never reaches the handle (pickle and copy look for some)
        named._secret


def test_a_hosted_shards_calls_go_to_its_hosts_shard_methods_with_its_index():
    shard, calls, gradient = HostedShard(NamedActor("gorila-bundle-1", ActorHandle()), 2), RayCalls(), np.ones(3)
    assert calls.call(shard, ShardServer.pull) == ("shard_call", (2, "pull"))
    assert calls.call(shard, ShardServer.apply_batch, gradient, 5) == ("shard_call", (2, "apply_batch", gradient, 5))
    assert calls.call(shard, ShardServer.restore, {"version": 7}) == ("restore_shard", (2, {"version": 7}))
    assert shard.awaiting_state.remote() == ("awaiting_state", (2,))  # the host answers for each shard
    assert shard.process.remote() == ("process", ()) and shard.stop_awaiting.remote() == ("stop_awaiting", ())
    copy = pickle.loads(pickle.dumps(shard))
    assert (copy.host.name, copy.index) == ("gorila-bundle-1", 2)


def test_only_a_dead_process_is_a_lost_call_and_nothing_to_wait_for_needs_no_ray():
    assert RayCalls.lost(ray.exceptions.RayActorError()) and RayCalls.lost(ray.exceptions.ActorDiedError())
    assert not RayCalls.lost(ray.exceptions.RayTaskError("apply", "traceback", ValueError("bad slice")))
    assert not RayCalls.lost(ValueError("bad slice"))
    assert RayCalls().get([]) == [] and RayCalls().wait([]) == ([], [])
    assert restart_count(NamedActor("gorila-learner-0", object())) is None  # a table it cannot read
    assert not ray.is_initialized()
