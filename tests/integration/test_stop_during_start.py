"""Ctrl-C or SIGTERM at any moment of a Ray run's start stops it: while Python imports, while the config
is checked, while the embedded Ray starts, while components are placed and while they take their first
work. The command ends within seconds, without a traceback, and every process of its Ray goes with it.

The driver is started in a session of its own (Ray starts none), so the session's processes are the
driver's and its Ray's. Each moment but the first is a stage of the start, seen in the session's
processes or the run directory (a delay after the launch lands in a different stage on a busier
machine: a SIGTERM at 6 s, that landed in ray.init only when the machine was loaded, once crashed the
run); the first is 0.3 s after the launch, while Python imports."""

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import in_session, slowdown, wait_for

FLAGS = ["--preset", "cartpole", "--runtime", "ray", "--total-frames", "200000", "--eval-every-frames", "0"]


def names(session: int) -> list[str]:
    """The program names of the session's live processes (a Ray worker's title, e.g. `ray::Bundle...`)."""
    found = []
    for pid in in_session(session):
        try:
            found.append(Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace"))
        except OSError:
            continue
    return found


def running(program: str):
    """The stage at which a process whose name holds `program` runs in the session."""
    return lambda session, run_dir: any(program in name for name in names(session))


# (signal, stage of the start) in the order a start goes through them: Python importing (0.3 s after
# the launch), Ray's control store started and its raylet (both inside ray.init), the components
# placed, the first work reported (the two signals alternate: each takes the same path once Python
# handles it)
MOMENTS = [
    (signal.SIGTERM, "importing", lambda session, run_dir: time.sleep(0.3) or True),
    (signal.SIGINT, "ray-starting", running("gcs_server")),
    (signal.SIGTERM, "raylet-up", running("raylet")),
    (signal.SIGINT, "components-placed", running("Bundle")),
    (signal.SIGTERM, "first-work", lambda session, run_dir: (run_dir / "metrics.jsonl").is_file()),
    (signal.SIGINT, "first-work", lambda session, run_dir: (run_dir / "metrics.jsonl").is_file()),
]


@pytest.mark.parametrize("signum, stage, reached", MOMENTS, ids=[f"{s.name}-{stage}" for s, stage, _ in MOMENTS])
def test_a_stop_signal_at_any_moment_of_the_start_ends_the_run_and_its_ray(tmp_path, signum, stage, reached):
    driver = subprocess.Popen(
        [sys.executable, "-m", "gorila", "train", *FLAGS, "--run-dir", str(tmp_path / "run")],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    came = wait_for(lambda: driver.poll() is not None or reached(driver.pid, tmp_path / "run"), 120, poll=0.02)
    assert came and driver.poll() is None, f"the run ended, or never reached {stage}: {driver.stderr.read()[-2000:]}"
    driver.send_signal(signum)
    limit = 90 * slowdown()
    try:
        _, err = driver.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        driver.kill()
        _, err = driver.communicate()
        pytest.fail(f"{signum.name} at {stage} was not honoured within {limit:.0f} s: {err[-2000:]}")
    # Before Python has set its handlers the signal's default action ends the process (-signum); after,
    # the driver stops with its final checkpoint and exit code 130.
    assert driver.returncode in (130, -signum), (driver.returncode, err[-2000:])
    assert "Traceback" not in err, err[-3000:]
    assert wait_for(lambda: not in_session(driver.pid), 30), f"left behind: {in_session(driver.pid)}"
