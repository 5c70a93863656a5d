"""Ctrl-C and SIGTERM stop a run cleanly: both raise KeyboardInterrupt, which the driver turns into a
final checkpoint. SIGTERM is what `timeout` and cluster schedulers send; SIGINT is set too because a
shell starts background jobs with it ignored."""
from __future__ import annotations

import signal

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def stop_on_signals() -> dict:
    """Make SIGINT and SIGTERM raise KeyboardInterrupt; returns the handlers replaced."""
    return {signum: signal.signal(signum, _raise_interrupt) for signum in STOP_SIGNALS}


def restore_signals(previous: dict) -> None:
    """Put back the handlers `stop_on_signals` replaced."""
    for signum, handler in previous.items():
        signal.signal(signum, handler)
