"""Ctrl-C and SIGTERM become KeyboardInterrupt in the main thread; from any other thread (where Python
refuses to install handlers) nothing is installed and nothing raises. A second stop while the first is
acted on is told, not raised; a third raises; a stop inside a `held` section is raised as it ends."""

import os
import signal
import subprocess
import sys
import threading

import pytest

from gorila.system.signals import (
    AGAIN,
    held,
    raise_if_stop_asked,
    restore_signals,
    stop_honoured,
    stop_on_signals,
)
from tests.helpers import slowdown


def deliver(signum=signal.SIGINT) -> None:
    """Send `signum` to this process and let its handler run."""
    os.kill(os.getpid(), signum)
    signal.sigtimedwait([], 0.2)


def test_in_the_main_thread_sigterm_raises_keyboard_interrupt_until_restored():
    previous = stop_on_signals()
    try:
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGTERM)
            signal.sigtimedwait([], 1)  # let the handler run
    finally:
        restore_signals(previous)
    assert signal.getsignal(signal.SIGTERM) is previous[signal.SIGTERM]


def test_from_another_thread_no_handler_is_installed():
    before = signal.getsignal(signal.SIGTERM)
    seen = {}
    worker = threading.Thread(target=lambda: seen.setdefault("replaced", stop_on_signals()))
    worker.start()
    worker.join()
    assert seen["replaced"] == {} and signal.getsignal(signal.SIGTERM) is before


@pytest.fixture
def python_default_handlers():
    """Python's own handlers for the test (a Driver made and never run, earlier in this process, may
    have left gorila's in place), put back as they were afterwards."""
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


def test_a_stop_whose_keyboard_interrupt_was_swallowed_is_still_honoured_until_the_handlers_are_restored(
    python_default_handlers,
):
    previous = stop_on_signals()
    try:
        try:  # code that catches everything (a library's import guard)
            os.kill(os.getpid(), signal.SIGINT)
            signal.sigtimedwait([], 1)
        except BaseException:
            pass
        with pytest.raises(KeyboardInterrupt):
            raise_if_stop_asked()
    finally:
        restore_signals(previous)
    raise_if_stop_asked()  # the outermost handlers put back: forgotten


def test_a_stop_once_honoured_is_forgotten_even_while_the_handlers_stay():
    previous = stop_on_signals()
    try:
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            signal.sigtimedwait([], 1)
        except KeyboardInterrupt:
            stop_honoured()  # what the driver and the CLI do when they stop on it
        raise_if_stop_asked()
    finally:
        restore_signals(previous)


def test_a_second_stop_is_told_and_lets_the_first_finish_a_third_raises(python_default_handlers, capfd):
    previous = stop_on_signals()
    try:
        with pytest.raises(KeyboardInterrupt):
            deliver()
        deliver(signal.SIGTERM)  # as `timeout` passes Ctrl-C on: the final checkpoint goes on
        assert AGAIN in capfd.readouterr().err
        with pytest.raises(KeyboardInterrupt):
            deliver()
        stop_honoured()
        with pytest.raises(KeyboardInterrupt):  # a stop after the one honoured is a first one again
            deliver()
    finally:
        restore_signals(previous)
    raise_if_stop_asked()


def test_a_stop_inside_a_held_section_is_raised_as_the_outermost_ends(python_default_handlers):
    previous = stop_on_signals()
    reached = []
    try:
        with pytest.raises(KeyboardInterrupt):
            with held():
                with held():
                    deliver()
                    reached.append("inner")
                reached.append("outer")
        assert reached == ["inner", "outer"]
    finally:
        restore_signals(previous)


def test_an_error_of_a_held_section_is_not_hidden_by_the_stop_held(python_default_handlers):
    previous = stop_on_signals()
    try:
        with pytest.raises(OSError):
            with held():
                deliver()
                raise OSError("disk full")
        with pytest.raises(KeyboardInterrupt):  # the stop itself is not lost
            raise_if_stop_asked()
    finally:
        restore_signals(previous)


def test_after_exit_on_stop_a_stop_signal_ends_the_process_with_its_code():
    program = (
        "import os, signal, time; from gorila.system.signals import exit_on_stop; exit_on_stop(130); "
        "print('flushed', end=''); os.kill(os.getpid(), signal.SIGINT); time.sleep(30)"
    )
    ended = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60 * slowdown())
    assert (ended.returncode, ended.stdout) == (130, "flushed"), ended.stderr


# A command a stop ended, leaving: a stop during its atexit callbacks (Ray's shutdown, say) ends it at
# once, and one that would land in the interpreter's teardown (sent here by an object freed there, where
# Python has put SIGINT's default action back: the process died of it, exit -2) finds none to land in.
LEAVING = """
import atexit, os, signal, sys, time
from gorila.system.signals import leave_after_stop

class FreedInTheTeardown:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)

kept = FreedInTheTeardown()
if sys.argv[1] == "atexit":
    atexit.register(lambda: (os.kill(os.getpid(), signal.SIGINT), time.sleep(5), print("not ended at once")))
print("stopped", end="")
leave_after_stop(130)
"""


@pytest.mark.parametrize("stop_during", ["atexit", "teardown"])
def test_a_command_a_stop_ended_leaves_with_its_code_whenever_a_further_stop_comes(stop_during):
    ended = subprocess.run(
        [sys.executable, "-c", LEAVING, stop_during], capture_output=True, text=True, timeout=60 * slowdown()
    )
    assert (ended.returncode, ended.stdout) == (130, "stopped"), ended.stderr
