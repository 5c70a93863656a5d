"""The session guard reaches a raylet's workers without ancestry: a worker that no scan noted (an orphan
of a raylet that died with its driver) is ended through the raylet's pid in its environment."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from gorila.runtime import session_guard
from tests.helpers import wait_for

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


def sleeper(**env) -> subprocess.Popen:
    """A process asleep for two minutes with `env` added to its environment, returned once its exec has
    finished. Popen returns when the exec has begun (the new program replaced the old), and /proc shows
    the new program's arguments and environment only a moment later, empty until then: a scan in that
    moment would not find its RAY_RAYLET_PID (seen under load, about 1 time in 40)."""
    process = subprocess.Popen(SLEEPER, env={**os.environ, **env}, start_new_session=True)
    assert wait_for(lambda: Path(f"/proc/{process.pid}/cmdline").read_bytes(), 10), "the sleeper never ran"
    return process


def test_the_end_of_a_session_kills_the_workers_of_its_noted_raylet_and_no_one_else(monkeypatch):
    monkeypatch.setattr(session_guard, "GRACE_S", 0.5)
    raylet = sleeper()
    stranger = sleeper()  # a process that is no raylet of this session
    worker = sleeper(RAY_RAYLET_PID=str(raylet.pid))
    bystander = sleeper(RAY_RAYLET_PID=str(stranger.pid))  # another session's worker
    try:
        noted = {raylet.pid: session_guard.processes()[raylet.pid][1]}  # the raylet only: the worker was never noted
        session_guard.end(noted)
        assert worker.wait(timeout=10) == -signal.SIGKILL
        assert raylet.wait(timeout=10) == -signal.SIGKILL
        assert worker.pid in noted
        assert bystander.poll() is None and stranger.poll() is None
    finally:
        for process in (raylet, stranger, worker, bystander):
            process.kill()
            process.wait()


def test_a_process_under_a_reused_raylet_pid_is_not_taken_for_its_worker():
    worker = sleeper(RAY_RAYLET_PID=str(os.getpid()))
    try:
        started = session_guard.processes()[worker.pid][1]
        assert session_guard.raylet_workers({os.getpid(): started + 1}) == {}  # a raylet noted after it started
        assert session_guard.raylet_workers({os.getpid(): started}) == {worker.pid: started}
    finally:
        worker.kill()
        worker.wait()
