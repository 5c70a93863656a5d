"""Ctrl-C and SIGTERM stop a run cleanly: both raise KeyboardInterrupt, which the driver turns into a
final checkpoint. SIGTERM is what `timeout` and cluster schedulers send; SIGINT is set too because a
shell starts background jobs with it ignored.

Python lets only the main thread install handlers: a run started from another thread (a notebook's
worker, a Ray Tune trainable, a thread of the user's program) leaves them as they are, and stopping
it is its caller's business."""

from __future__ import annotations

import signal
import sys
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


# Set by either signal until the handlers are put back: a KeyboardInterrupt raised inside code that
# catches everything (a library's import guard, say) is lost, the request to stop is not.
STOP_ASKED = threading.Event()


def _raise_interrupt(signum, frame):
    STOP_ASKED.set()
    raise KeyboardInterrupt


def raise_if_stop_asked() -> None:
    """KeyboardInterrupt when Ctrl-C or SIGTERM came since the handlers were set, even if the
    KeyboardInterrupt it raised then was swallowed."""
    if STOP_ASKED.is_set():
        raise KeyboardInterrupt


def stop_honoured() -> None:
    """Forget the stop asked: the run it stopped has acted on it (say, with its final checkpoint)."""
    STOP_ASKED.clear()


def stop_on_signals() -> dict:
    """Make SIGINT and SIGTERM raise KeyboardInterrupt; returns the handlers replaced (none outside
    the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {signum: signal.signal(signum, _raise_interrupt) for signum in STOP_SIGNALS}


def restore_signals(previous: dict) -> None:
    """Put back the handlers `stop_on_signals` replaced (and forget a stop asked of the outermost)."""
    for signum, handler in previous.items():
        signal.signal(signum, handler)
    if previous and _raise_interrupt not in previous.values():
        STOP_ASKED.clear()


def exit_code(interrupted: bool) -> int:
    """What a run's command exits with, asked while the run closes (in a `finally`): while an exception
    propagates, 130 for an interruption and 1 for a failure; 130 for a run that Ctrl-C or SIGTERM
    stopped (`interrupted`), else 0."""
    error = sys.exc_info()[1]
    if error is not None:
        return 130 if isinstance(error, KeyboardInterrupt) else 1
    return 130 if interrupted else 0
