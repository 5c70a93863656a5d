"""Ctrl-C and SIGTERM stop a run cleanly: both raise KeyboardInterrupt, which the driver turns into a
final checkpoint. SIGTERM is what `timeout` and cluster schedulers send; SIGINT is set too because a
shell starts background jobs with it ignored.

A stop often comes twice: a terminal sends Ctrl-C's SIGINT to the whole process group, so a wrapper
such as `timeout --foreground` gets it too and passes it on once more (and `timeout` sends its own
signal to its child and to its group). Only the first stop raises: the second is told in one line and
lets the stop under way (the final checkpoint) finish; a third raises again, to stop at once.

A KeyboardInterrupt raised at an arbitrary point leaves code that is not written for it broken: raised
as a TensorBoard writer's Queue.put has queued a record but not yet told the writer's thread, it
leaves the record to wait for that thread's next flush, and closing the writer then waits for it, up
to two minutes (`flush_secs`) with no CPU; raised inside torch.save, it comes out as an error of the
half-written archive. Such code runs inside `held()`: a stop that comes there is raised as it ends.

Python lets only the main thread install handlers: a run started from another thread (a notebook's
worker, a Ray Tune trainable, a thread of the user's program) leaves them as they are, and stopping
it is its caller's business."""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from contextlib import contextmanager
from typing import NoReturn

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
AGAIN = (
    "gorila: already stopping; one more Ctrl-C or SIGTERM stops at once, skipping a final checkpoint not yet written"
)


# Set by either signal until the handlers are put back: a KeyboardInterrupt raised inside code that
# catches everything (a library's import guard, say) is lost, the request to stop is not.
STOP_ASKED = threading.Event()


class _Stops:
    """The stops asked since the last one honoured, and the sections of the main thread `held`."""

    asked = 0  # stop signals since the last stop honoured
    held = 0  # depth of `held()` sections in the main thread
    pending = False  # a stop came inside a held section: raised as it ends


def _raise_interrupt(signum, frame):
    STOP_ASKED.set()
    _Stops.asked += 1
    if _Stops.asked == 2:  # the first is being acted on: let it finish, and say how to cut it short
        _tell(AGAIN)
        return
    if _Stops.held:
        _Stops.pending = True
        return
    raise KeyboardInterrupt


def _tell(line: str) -> None:
    """One line on stderr, from a signal handler: written to the descriptor, not through sys.stderr,
    which the handler may have interrupted in the middle of a write. On a terminal it first clears
    the live progress line (drawn again below it)."""
    try:
        prefix = "\r\x1b[K" if os.isatty(2) else ""
        os.write(2, f"{prefix}{line}\n".encode())
    except OSError:
        pass  # no stderr to tell


@contextmanager
def held():
    """Run code that a KeyboardInterrupt raised half-way would leave broken (a TensorBoard write, a
    torch.save) to its end: a stop signal that comes inside raises its KeyboardInterrupt as the
    outermost section ends (unless the section raised an error of its own). Outside the main thread,
    where no handler runs, it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _Stops.held += 1
    try:
        yield
    finally:
        _Stops.held -= 1
    if not _Stops.held and _Stops.pending:
        _Stops.pending = False
        raise KeyboardInterrupt


def raise_if_stop_asked() -> None:
    """KeyboardInterrupt when Ctrl-C or SIGTERM came since the handlers were set, even if the
    KeyboardInterrupt it raised then was swallowed."""
    if STOP_ASKED.is_set():
        raise KeyboardInterrupt


def stop_honoured() -> None:
    """Forget the stop asked: the run it stopped has acted on it (say, with its final checkpoint); the
    next stop signal is a first one again."""
    STOP_ASKED.clear()
    _Stops.asked, _Stops.pending = 0, False


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
        stop_honoured()


def exit_on_stop(code: int) -> None:
    """From now on, a stop signal ends the process at once with `code` (its output flushed): for a
    command whose stop was acted on, while the interpreter exits."""

    def end(signum, frame):
        _flush_output()
        os._exit(code)

    if threading.current_thread() is threading.main_thread():
        for signum in STOP_SIGNALS:
            signal.signal(signum, end)


def leave_after_stop(code: int) -> NoReturn:
    """End a command that a stop ended with `code`: a further stop signal ends it at once with `code`
    (`exit_on_stop`) while what the interpreter's exit runs first runs here (the other non-daemon
    threads joined, the atexit callbacks: Ray's and W&B's shutdowns, seconds), then the process ends
    without the interpreter's teardown. In that teardown Python puts every signal's default action
    back, and a stop landing there (Ctrl-C as a terminal sends it, passed on a second later by a
    wrapper, on a loaded machine) killed the process (exit -2) instead of ending it with `code`."""
    exit_on_stop(code)
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    _flush_output()
    os._exit(code)


def _flush_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - interrupted in a write of its own, or closed: exit anyway
            pass


def exit_code(interrupted: bool) -> int:
    """What a run's command exits with, asked while the run closes (in a `finally`): while an exception
    propagates, 130 for an interruption and 1 for a failure; 130 for a run that Ctrl-C or SIGTERM
    stopped (`interrupted`), else 0."""
    error = sys.exc_info()[1]
    if error is not None:
        return 130 if isinstance(error, KeyboardInterrupt) else 1
    return 130 if interrupted else 0
