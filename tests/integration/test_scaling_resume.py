"""benchmarks/scaling.py on a long run cut short: ended with its `gorila train` (SIGTERM to the process
group, as at the end of a working day), the same command goes on from the run's latest checkpoint
instead of training from launch again, and the finished run counts every frame of both parts."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from gorila.records.checkpoints import checkpoint_frames, training_checkpoints
from gorila.records.metrics import read_metrics
from tests.helpers import in_session, slowdown, wait_for

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 40_000


def command(out: Path, runs: Path) -> list[str]:
    return [
        sys.executable,
        str(ROOT / "benchmarks" / "scaling.py"),
        "--preset", "cartpole", "--env", "CartPole-v1", "--bundles", "1", "--score", "1000",
        "--frames-cap", str(BUDGET), "--set", "checkpoint_every_frames=2000", "--set", "log_every_seconds=0.5",
        "--out", str(out), "--runs", str(runs),
    ]  # fmt: skip


def test_a_study_cut_short_resumes_its_run_from_the_latest_checkpoint(tmp_path):
    out, runs = tmp_path / "out", tmp_path / "runs"
    run_dir = runs / "n1-seed0"
    first = subprocess.Popen(command(out, runs), cwd=ROOT, start_new_session=True, stdout=subprocess.DEVNULL)
    checkpointed = lambda: first.poll() is not None or (run_dir.is_dir() and training_checkpoints(run_dir))
    assert wait_for(checkpointed, 240), "no checkpoint within 240 s (times the load)"
    assert first.poll() is None, "the first part ended before its first checkpoint"
    os.killpg(first.pid, signal.SIGTERM)  # the script and its gorila train, as a terminal's end would
    first.wait(timeout=120 * slowdown())
    # gorila train writes its final checkpoint and ends its Ray (whose processes have a group of their own)
    assert wait_for(lambda: not in_session(first.pid), 60), "the cut run's processes outlived 60 s (times the load)"
    assert not (out / "results.json").is_file() or "1-0" not in json.loads((out / "results.json").read_text())["runs"]
    before = [r["env_frames"] for r in read_metrics(run_dir) if r["kind"] == "train"]  # maybe none yet
    cut_at = checkpoint_frames(training_checkpoints(run_dir)[-1])  # where it resumes
    assert cut_at < BUDGET

    second = subprocess.run(command(out, runs), cwd=ROOT, capture_output=True, text=True, timeout=400 * slowdown())
    assert second.returncode == 0, second.stderr[-2000:]
    assert "N = 1, seed 0: resuming from its latest checkpoint" in second.stdout
    run = json.loads((out / "results.json").read_text())["runs"]["1-0"]
    assert run["frames"] >= BUDGET and run["stop_reason"] == "budget" and run["frames_to_score"] is None
    after = [r["env_frames"] for r in read_metrics(run_dir) if r["kind"] == "train"][len(before) :]
    assert after and after[0] > cut_at and after[-1] >= BUDGET  # went on from the checkpoint, not from launch

    # the script ended before recording a run that had finished: measured from its directory, not trained again
    results = json.loads((out / "results.json").read_text())
    del results["runs"]["1-0"]
    (out / "results.json").write_text(json.dumps(results))
    third = subprocess.run(command(out, runs), cwd=ROOT, capture_output=True, text=True, timeout=400 * slowdown())
    assert third.returncode == 0, third.stderr[-2000:]
    assert "N = 1, seed 0: kept from its run directory" in third.stdout and "resuming" not in third.stdout
    assert json.loads((out / "results.json").read_text())["runs"]["1-0"]["frames"] == run["frames"]
