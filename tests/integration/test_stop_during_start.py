"""Ctrl-C or SIGTERM at any moment of a Ray run's start stops it: while Python imports, while the config
is checked, while the embedded Ray starts, while components are placed and while they take their first
work. The command ends within seconds, without a traceback, and every process of its Ray goes with it.

The driver is started in a session of its own (Ray starts none), so the session's processes are the
driver's and its Ray's; each moment is a delay after the launch, spread over a start that takes about
10-20 s on two cores."""

import signal
import subprocess
import sys

import pytest

from tests.helpers import in_session, wait_for

FLAGS = ["--preset", "cartpole", "--runtime", "ray", "--total-frames", "200000", "--eval-every-frames", "0"]


# (signal, seconds after the launch): Python importing, the config and Ray starting, components being
# placed, the first work (the two signals alternate: each takes the same path once Python handles it)
MOMENTS = [
    (signal.SIGTERM, 0.3),
    (signal.SIGINT, 3.0),
    (signal.SIGTERM, 6.0),
    (signal.SIGINT, 9.0),
    (signal.SIGTERM, 13.0),
]


@pytest.mark.parametrize("signum, delay", MOMENTS, ids=[f"{s.name}-{d:g}s" for s, d in MOMENTS])
def test_a_stop_signal_at_any_moment_of_the_start_ends_the_run_and_its_ray(tmp_path, signum, delay):
    driver = subprocess.Popen(
        [sys.executable, "-m", "gorila", "train", *FLAGS, "--run-dir", str(tmp_path / "run")],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ended_early = driver.wait(timeout=delay) if delay else None
    except subprocess.TimeoutExpired:
        ended_early = None
    assert ended_early is None, f"the run ended by itself before the signal: {driver.stderr.read()}"
    driver.send_signal(signum)
    try:
        _, err = driver.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        driver.kill()
        _, err = driver.communicate()
        pytest.fail(f"{signum.name} at {delay} s was not honoured within 90 s: {err[-2000:]}")
    # Before Python has set its handlers the signal's default action ends the process (-signum); after,
    # the driver stops with its final checkpoint and exit code 130.
    assert driver.returncode in (130, -signum), (driver.returncode, err[-2000:])
    assert "Traceback" not in err, err[-3000:]
    assert wait_for(lambda: not in_session(driver.pid), 30), f"left behind: {in_session(driver.pid)}"
