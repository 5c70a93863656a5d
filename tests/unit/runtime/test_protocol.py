"""Both runtimes implement the `Runtime` protocol: the same methods with the same parameters, and the
attributes the driver reads (Ray's adds the shard-hosting ones)."""

import inspect

import pytest

from gorila.core import contract_methods
from gorila.runtime import Runtime, ShardHostingRuntime
from gorila.runtime.local import LocalRuntime
from gorila.runtime.ray.runtime import RayRuntime


def parameters(function) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("runtime, protocol", [(LocalRuntime, Runtime), (RayRuntime, ShardHostingRuntime)])
def test_a_runtime_has_every_method_of_its_protocol_with_the_same_parameters(runtime, protocol):
    methods = contract_methods(protocol)  # its own methods and those of the protocol it extends
    assert {"place", "wait_ready", "shutdown"} <= set(methods)
    for name, method in methods.items():
        assert parameters(getattr(runtime, name)) == parameters(method), f"{runtime.__name__}.{name}"
    for attribute in ("name", "restarts_components", "hosts_shards"):
        assert hasattr(runtime, attribute), f"{runtime.__name__}.{attribute}"
    assert runtime.hosts_shards == (protocol is ShardHostingRuntime)


def test_the_local_runtime_is_a_runtime_and_places_here():
    runtime = LocalRuntime()
    assert isinstance(runtime, Runtime) and not isinstance(runtime, ShardHostingRuntime)
    assert runtime.place(None, list, (1, 2)) == [1, 2]
    assert runtime.wait_ready(runtime.objects, timeout=1.0) == 0
