"""The driver's own death: `gorila train` on its embedded Ray is killed with kill -9 after a checkpoint,
every process of that Ray ends within seconds, and `gorila train --resume` continues from the newest
good checkpoint, dropping what the killed run had logged past it.

The driver is started in a session of its own, and Ray starts no sessions: the processes of that
session are exactly the driver's and its Ray's (GCS, raylet, agents, workers, the guard).
"""

import os
import signal
import subprocess
import sys

from gorila.records.checkpoints import checkpoint_frames, training_checkpoints
from gorila.records.metrics import read_metrics
from tests.helpers import in_session, slowdown, wait_for

FLAGS = [
    "--preset",
    "cartpole",
    "--runtime",
    "ray",
    "--checkpoint-every-frames",
    "3000",
    "--eval-every-frames",
    "0",
    "--log-every-seconds",
    "0.5",
]


def newest_checkpoint(run_dir) -> int:
    return checkpoint_frames(training_checkpoints(run_dir)[-1])


def kill_past_a_checkpoint(driver: subprocess.Popen, run_dir) -> None:
    """kill -9 the driver once it has logged train records past its newest checkpoint (which the resume
    must drop). It is stopped (SIGSTOP) while that is looked at, so no checkpoint comes between the look
    and the kill; if one came just before, it runs on and is looked at again."""
    while True:
        assert wait_for(lambda: read_metrics(run_dir)[-1]["env_frames"] > newest_checkpoint(run_dir), 60)
        os.kill(driver.pid, signal.SIGSTOP)
        if read_metrics(run_dir)[-1]["env_frames"] > newest_checkpoint(run_dir):
            return os.kill(driver.pid, signal.SIGKILL)
        os.kill(driver.pid, signal.SIGCONT)


def test_a_driver_killed_leaves_no_ray_behind_and_resumes_from_its_checkpoint(tmp_path):
    run_dir = tmp_path / "run"
    driver = subprocess.Popen(
        [sys.executable, "-m", "gorila", "train", *FLAGS, "--run-dir", str(run_dir), "--total-frames", "200000"],
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: training_checkpoints(run_dir) and driver.poll() is None, 180), "no checkpoint"
        assert len(in_session(driver.pid)) > 4  # the driver, GCS, raylet, workers, ...
        kill_past_a_checkpoint(driver, run_dir)
    finally:
        driver.kill()
        driver.wait()
    assert wait_for(lambda: not in_session(driver.pid), 20), f"left behind: {in_session(driver.pid)}"

    newest = newest_checkpoint(run_dir)
    logged = read_metrics(run_dir)
    dropped = [r for r in logged if r["env_frames"] > newest]
    assert dropped
    resumed = subprocess.Popen(
        [sys.executable, "-m", "gorila", "train", "--resume", str(run_dir), "--total-frames", str(newest + 2_000)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    out, err = resumed.communicate(timeout=240 * slowdown())
    assert resumed.returncode == 0, err
    assert f"ckpt-{newest:012d}.pt" in out
    # a run that ends in order leaves nothing either (its guard exits once Ray has shut down)
    assert wait_for(lambda: not in_session(resumed.pid), 10), f"left behind: {in_session(resumed.pid)}"
    records = read_metrics(run_dir)
    assert not [r for r in records if r in dropped], "records past the checkpoint were kept"
    after = [r for r in records if r not in logged]  # the resumed run's
    assert after and after[0]["env_frames"] >= newest
    frames, times = [r["env_frames"] for r in records], [r["wall_time"] for r in records]
    assert frames == sorted(frames) and times == sorted(times)
    assert records[-1]["kind"] == "summary"
