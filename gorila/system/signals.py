"""Ctrl-C and SIGTERM stop a run cleanly: both raise KeyboardInterrupt, which the driver turns into a
final checkpoint. SIGTERM is what `timeout` and cluster schedulers send; SIGINT is set too because a
shell starts background jobs with it ignored.

Python lets only the main thread install handlers: a run started from another thread (a notebook's
worker, a Ray Tune trainable, a thread of the user's program) leaves them as they are, and stopping
it is its caller's business."""
from __future__ import annotations

import signal
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def stop_on_signals() -> dict:
    """Make SIGINT and SIGTERM raise KeyboardInterrupt; returns the handlers replaced (none outside
    the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, _raise_interrupt) for signum in STOP_SIGNALS}


def restore_signals(previous: dict) -> None:
    """Put back the handlers `stop_on_signals` replaced."""
    for signum, handler in previous.items():
        signal.signal(signum, handler)
