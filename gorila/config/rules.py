"""How a config field carries its rule (`checked`), and the bounds the rules share."""

from __future__ import annotations

from dataclasses import field
from typing import Callable

MAX_SEED = 2**30 - 1  # seeds derived by adding to the run's seed must stay 32-bit
NETWORKS = ("auto", "mlp", "nature_cnn", "minatar_cnn", "impala_cnn")


def checked(default, check: Callable[[object], bool], must: str):
    """A field whose value must pass `check`; `must` completes the error "KEY must ..., got VALUE"."""
    return field(default=default, metadata={"rule": (check, must)})
