"""How components call each other: `call` starts a method call and returns a future, `get` waits for
futures, `wait` returns those that are done. The method is named by its contract's function
(`calls.call(shard, ShardServer.pull)`, see `gorila.core`), so every method called across
processes is declared once. In one process (`DirectCalls`) a call runs at once and its future holds
its result or its exception; on Ray (`gorila.runtime.ray.RayCalls`) a call is
`handle.method.remote(...)` and a future is an ObjectRef. Either way a component's exception is raised
by `get`, so the driver turns it into the same one-line `WorkerError` on both runtimes.

Also here, importable without Ray: the errors a runtime raises.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence


class WorkerError(RuntimeError):
    """A component failed while training; the message names it and says why, in one line."""


class ClusterError(RuntimeError):
    """The Ray cluster named by --address cannot be reached or cannot host the components."""


class Calls(Protocol):
    def call(self, target: Any, method: Callable, *args) -> Any:
        """Start `target.method(*args)`; `method` is a contract's function (its name is what is called)."""

    def get(self, futures: Sequence[Any], timeout: float | None = None) -> list:
        """The calls' answers; TimeoutError when they are not all in within `timeout` seconds."""

    def wait(self, futures: Sequence[Any], timeout: float | None = None) -> tuple[list, list]: ...
    def lost(self, error: BaseException) -> bool: ...


def unwrapped(error: BaseException) -> BaseException:
    """The exception a component raised, out of Ray's wrapper (a RayTaskError carries it as `cause`)."""
    cause = getattr(error, "cause", None)
    return cause if isinstance(cause, BaseException) else error


def failure_reason(error: BaseException) -> str:
    """`Type: first line` of the exception a component raised (Ray's wrapper unwrapped)."""
    error = unwrapped(error)
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0][:300]}" if lines else type(error).__name__


class Done:
    """The future of a call that has already run: its value, or the exception it raised."""

    __slots__ = ("value", "error")

    def __init__(self, value=None, error: Exception | None = None):
        self.value, self.error = value, error


class DirectCalls:
    """Calls on objects in this process: the method runs now, in the caller's order (deterministic)."""

    def call(self, target, method: Callable, *args):
        bound = getattr(target, method.__name__)  # a wrong name fails here, at the caller
        try:
            return Done(bound(*args))
        except Exception as error:  # raised by `get`, where a Ray caller would see it too
            return Done(error=error)

    def get(self, futures, timeout=None):
        for future in futures:
            if future.error is not None:
                raise future.error
        return [future.value for future in futures]

    def wait(self, futures, timeout=None):
        return list(futures), []

    @staticmethod
    def lost(error: BaseException) -> bool:
        """In one process no component dies on its own: every failure is the code's."""
        return False
