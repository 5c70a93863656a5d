"""The local runtime: every component is a plain object in this process, called in a fixed order.

Used by tests and for debugging: the same components as on Ray, stepped deterministically.
"""

from __future__ import annotations

from gorila.runtime.calls import DirectCalls


class LocalRuntime:
    """A `gorila.runtime.Runtime` in this process."""

    name = "local"
    restarts_components = False
    hosts_shards = False  # every shard is in the one process already

    def __init__(self):  # one process: nothing to connect to, reserve or size
        self.calls = DirectCalls()
        self.objects: list = []

    def place(self, role, make, *args):
        """`make(*args)`, here and now (`make` is a class or a `make_*` function); in one process
        there is no boundary, so `role` changes nothing, and shards are beside every learner already."""
        self.objects.append(make(*args))
        return self.objects[-1]

    def wait_ready(self, handles, timeout: float) -> int:
        return 0  # constructed already

    def where(self, handle) -> str:
        return "local"

    def processes(self, handles, timeout: float = 30.0) -> list:
        return [("local", 0)] * len(handles)  # nothing here is ever restarted

    def restarts(self, handles) -> list:
        return [0] * len(handles)  # nothing here is ever restarted

    def restart(self, handle) -> None:
        raise RuntimeError("the local runtime cannot restart a component")

    def free_cpus(self) -> float:
        return 0.0  # one process: nothing more is ever placed

    def lost_nodes(self) -> set[str]:
        return set()  # one process, on this machine

    def watch_restarts(self, handles, restored) -> None:
        """Nothing here is ever restarted, so nothing ever waits for its state."""

    def shutdown(self) -> None:
        """Close what holds environments (on Ray, ending the processes does it)."""
        for obj in self.objects:
            if hasattr(obj, "close"):
                obj.close()
        self.objects = []
