"""How one component calls another: the only thing that differs between the two runtimes.

Components never import Ray. They talk to their peers through a `Calls` object: `call` starts a method
call and returns a future, `get` waits for futures, `wait` returns those that are done. In one process
(`DirectCalls`) a call runs at once and its future is its result; on Ray (`gorila.runtime.ray.RayCalls`)
a call is `handle.method.remote(...)` and a future is an ObjectRef.
"""
from __future__ import annotations

from typing import Any, Protocol, Sequence


class Calls(Protocol):
    def call(self, target: Any, method: str, *args) -> Any: ...
    def get(self, futures: Sequence[Any]) -> list: ...
    def wait(self, futures: Sequence[Any], timeout: float | None = None) -> tuple[list, list]: ...


class Done:
    """The future of a call that has already run."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class DirectCalls:
    """Calls on objects in this process: the method runs now, in the caller's order (deterministic)."""

    def call(self, target, method: str, *args):
        return Done(getattr(target, method)(*args))

    def get(self, futures):
        return [future.value for future in futures]

    def wait(self, futures, timeout=None):
        return list(futures), []
