"""The local runtime: every component is a plain object in this process, called in a fixed order.

Used by tests and for debugging: the same components as on Ray, stepped deterministically.
"""
from __future__ import annotations

from gorila.runtime.calls import DirectCalls


class LocalRuntime:
    name = "local"

    def __init__(self, config):
        self.calls = DirectCalls()

    def place(self, kind: str, cls, *args):
        return cls(*args)

    def wait_ready(self, handles, timeout: float) -> int:
        return 0   # constructed already

    def where(self, handle) -> str:
        return "local"

    def shutdown(self) -> None:
        pass
