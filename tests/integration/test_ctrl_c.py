"""Ctrl-C as a terminal sends it: SIGINT to the whole process group of `gorila train`, once, or twice a
second apart (a wrapper such as `timeout --foreground` passes it on once more); and SIGTERM to the
group, as a batch scheduler sends it. The run writes its final checkpoint at the frames it reached,
exits with 130 and leaves no process behind, on the local runtime and on Ray.

A second stop signal while the final checkpoint is written lets it finish: raised there, it once cut
the checkpoint short, and when it landed as TensorBoard's writer queued the final train record (the
record queued, its thread not told), closing the metrics then waited for that thread's next flush, up
to two minutes with no CPU. A third stops at once, with a line naming the checkpoint a resume uses.

The driver is started in a session of its own, as test_stop_during_start does, so `os.killpg` reaches
every process of its group, as a terminal's Ctrl-C would."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gorila.config import build_config
from gorila.records.checkpoints import checkpoint_frames, load_latest_good, training_checkpoints
from gorila.records.metrics import read_metrics
from gorila.system.driver import Driver
from gorila.system.signals import AGAIN
from tests.helpers import from_the_driver, in_session, slowdown, wait_for

CARTPOLE = ["--preset", "cartpole", "--total-frames", "2000000", "--eval-every-frames", "0"]
PERIODIC = 5_000  # frames between periodic checkpoints: the first comes within seconds of the start
EXIT_S = 90  # from the first signal to the end of the command on an idle machine (times tests.helpers.slowdown())


def frames_of(checkpoint: Path) -> int:
    return checkpoint_frames(checkpoint)


def trained_past(run_dir: Path, frames: int) -> bool:
    """Has the run logged a train record past `frames`?"""
    return any(r["kind"] == "train" and r["env_frames"] > frames for r in read_metrics(run_dir))


def summary(run_dir: Path) -> dict:
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line]
    summaries = [record for record in records if record["kind"] == "summary"]
    assert summaries, "no summary record"
    return summaries[-1]


STOPS = [
    *(
        pytest.param(runtime, signal.SIGINT, presses, id=f"{runtime}-sigint-{times}")
        for runtime in ("local", "ray")
        for presses, times in ((1, "once"), (2, "twice-a-second-apart"))
    ),
    # a batch scheduler's or `kill -TERM -- -PGID`'s: it once killed Ray's own processes too, and the
    # driver waited 60 s for the GCS, then ended without its final checkpoint
    pytest.param("ray", signal.SIGTERM, 1, id="ray-sigterm-once"),
]


@pytest.mark.parametrize(("runtime", "stop", "presses"), STOPS)
def test_a_stop_to_the_process_group_writes_the_final_checkpoint(tmp_path, runtime, stop, presses):
    run_dir = tmp_path / "run"
    flags = [*CARTPOLE, "--runtime", runtime, "--set", f"checkpoint_every_frames={PERIODIC}"]
    driver = subprocess.Popen(
        [sys.executable, "-m", "gorila", "train", *flags, "--run-dir", str(run_dir)],
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        started = wait_for(lambda: driver.poll() is not None or training_checkpoints(run_dir), 300, poll=0.1)
        assert started and driver.poll() is None, f"no periodic checkpoint: {driver.communicate()[1][-2000:]}"
        periodic = max(frames_of(path) for path in training_checkpoints(run_dir))
        # training goes on past it (a fixed second's wait left a loaded machine's run at its frames)
        past = lambda: driver.poll() is not None or trained_past(run_dir, periodic)
        assert wait_for(past, 60, poll=0.1) and driver.poll() is None, "no training past the periodic checkpoint"
        os.killpg(driver.pid, stop)
        for _ in range(presses - 1):
            time.sleep(1)
            try:
                os.killpg(driver.pid, stop)
            except ProcessLookupError:  # the run had ended already
                pass
        out, err = driver.communicate(timeout=EXIT_S * slowdown())
    finally:
        if driver.poll() is None:
            os.killpg(driver.pid, signal.SIGKILL)
            driver.communicate()
    assert driver.returncode == 130, (driver.returncode, err[-3000:])
    assert "Traceback" not in err, err[-3000:]
    assert wait_for(lambda: not in_session(driver.pid), 30), f"left behind: {in_session(driver.pid)}"
    ended = summary(run_dir)
    assert ended["stop_reason"] == "interrupted"
    final = training_checkpoints(run_dir)[-1]
    assert frames_of(final) == ended["env_frames"] > periodic, (final.name, ended["env_frames"], periodic)
    assert f"checkpoint: {final}" in out, out[-2000:]
    assert load_latest_good(run_dir, warn=pytest.fail)["env_frames"] == ended["env_frames"]


CONFIG = dict(
    env="CartPole-v1",
    runtime="local",
    total_frames=200_000,
    learning_starts=500,
    eval_every_frames=0,
    checkpoint_every_frames=1_000,
    log_every_seconds=0.2,
    seed=3,
)
STOP_AT = 3_000  # frames: the first SIGINT, sent from the driver's loop


def interrupt(trainer: Driver) -> None:
    """Ctrl-C (a real SIGINT to this process) from the driver's loop once the run has STOP_AT frames."""
    from_the_driver(
        trainer, lambda: trainer.info.frames(trainer.steps) >= STOP_AT, lambda: os.kill(os.getpid(), signal.SIGINT)
    )


def on_first_tensorboard_record(event) -> None:
    """Make `event()` (a signal) as this thread's next queue hands its writer thread an item: where a
    KeyboardInterrupt leaves the item queued and the thread not told of it."""

    def hook(frame, kind, arg):
        caller = frame.f_back
        if kind == "call" and frame.f_code.co_name == "notify" and caller and caller.f_code.co_name == "put":
            sys.setprofile(None)
            event()

    sys.setprofile(hook)


def test_a_second_stop_as_the_final_record_is_queued_waits_for_the_final_checkpoint(tmp_path, capfd):
    trainer = Driver(build_config(overrides=CONFIG), tmp_path / "run", live_progress=False)
    interrupt(trainer)
    say = trainer.records.say

    stopped_at = []

    def say_then_stop_again(line: str) -> None:
        say(line)
        if line.startswith("interrupted"):  # the final train record is next
            stopped_at.append(time.monotonic())
            on_first_tensorboard_record(lambda: os.kill(os.getpid(), signal.SIGINT))

    trainer.records.say = say_then_stop_again
    began = time.monotonic()
    try:
        result = trainer.run()
    except KeyboardInterrupt:  # not let out: pytest would take it for the user's Ctrl-C and end the session
        pytest.fail(
            f"the second stop ended the run after {time.monotonic() - began:.0f} s, without its final checkpoint"
        )
    finally:
        sys.setprofile(None)
    # from the first stop to the end: the final record, checkpoint and close take about a second on an
    # idle machine; the wait this guards against was TensorBoard's next flush, up to 120 s
    took = time.monotonic() - stopped_at[0]
    assert took < 30 * slowdown(), f"the run took {took:.0f} s to end after its first stop"
    assert result["interrupted"] and result["env_frames"] >= STOP_AT
    assert frames_of(training_checkpoints(tmp_path / "run")[-1]) == result["env_frames"]
    assert AGAIN in capfd.readouterr().err


def test_a_third_stop_skips_the_final_checkpoint_and_names_the_one_a_resume_uses(tmp_path, capfd):
    run_dir = tmp_path / "run"
    trainer = Driver(build_config(overrides=CONFIG), run_dir, live_progress=False)
    interrupt(trainer)
    checkpoint = trainer.keeping.checkpoint

    def stopped_twice_more():  # the second is told, the third raises before anything is written
        for _ in range(2):
            os.kill(os.getpid(), signal.SIGINT)
            signal.sigtimedwait([], 0.2)  # its handler runs here
        return checkpoint()

    trainer.keeping.checkpoint = lambda: stopped_twice_more() if trainer.scheduler.stop_reason else checkpoint()
    with pytest.raises(KeyboardInterrupt):
        trainer.run()
    out, err = capfd.readouterr()
    newest = training_checkpoints(run_dir)[-1]
    assert frames_of(newest) < trainer.info.frames(trainer.steps)  # the last periodic one
    line = f"final checkpoint skipped; --resume starts from {newest.name} ({frames_of(newest):,} frames)"
    assert line in out, out[-2000:]
    assert AGAIN in err
