"""Real `gorila record-starts` and `gorila evaluate --protocol ...` processes: a human-starts evaluation
written as JSON, an evaluation kept in its run, and bad input (unknown game, start points of another
game or damaged, a checkpoint whose network does not fit its game, a protocol a non-Atari env cannot
have) ending with one line and exit code 2."""

import hashlib
import json
import os
import shutil
import subprocess
import sys

import pytest
import torch

from gorila.records.checkpoints import load_checkpoint, save_checkpoint
from tests.helpers import fresh_checkpoint, slowdown


def gorila(*argv, cwd):
    return subprocess.run(
        [sys.executable, "-m", "gorila", *map(str, argv)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300 * slowdown(),
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A fresh Pong checkpoint and 2 start points recorded from random play."""
    folder = tmp_path_factory.mktemp("eval")
    fresh_checkpoint(folder / "run")
    done = gorila("record-starts", "--env", "Pong", "--out", folder / "starts", "--count", 2, cwd=folder)
    assert done.returncode == 0, done.stderr
    assert "2 start points of pong (random play" in done.stdout
    return folder


def test_human_starts_evaluation_writes_returns_settings_seeds_and_normalised_scores(workspace):
    done = gorila(
        "evaluate",
        workspace / "run",
        "--protocol",
        "human-starts",
        "--starts",
        workspace / "starts",
        "--max-frames",
        6_000,
        "--json",
        workspace / "hs.json",
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads((workspace / "hs.json").read_text())
    assert result["protocol"] == "human-starts" and len(result["returns"]) == 2  # one per start point
    assert [seed["start_point"] for seed in result["seeds"]] == [0, 1]
    assert result["settings"]["start_points"]["source"] == "random"
    assert {"human_normalised", "dqn_normalised"} <= set(result) and "human-normalised" in done.stdout
    # random-play start points are not the paper's human starts: said in the JSON and in one line on stderr
    assert result["start_points_source"] == "random-play" and result["normalised"]["warning"]
    assert done.stderr.splitlines() == [f"gorila: warning: {result['normalised']['warning']}"]


def bad_checkpoint(workspace):
    """A Pong checkpoint whose network has 4 actions (Pong has 6), checksum and all in order."""
    payload = load_checkpoint(workspace / "run" / "checkpoints" / "latest.pt")
    payload["env_info"] = {**payload["env_info"], "num_actions": 4}
    payload["theta"] = torch.zeros(10)
    save_checkpoint(workspace / "bad", payload, 0)
    return workspace / "bad"


def breakout_starts(workspace):
    from gorila.evaluation.start_points import StartPoint, save_start_points

    point = StartPoint(0, (1,), 4, 0.0, "0" * 64)
    save_start_points(workspace / "breakout.json", "Breakout", [point], "trajectory")
    return workspace / "breakout.json"


CASES = {
    "unknown-game": (
        lambda w: ["record-starts", "--env", "NoSuchGame", "--out", w / "x", "--count", 1],
        "unknown environment 'NoSuchGame'",
    ),
    "starts-of-another-game": (
        lambda w: ["evaluate", w / "run", "--protocol", "human-starts", "--starts", breakout_starts(w)],
        "start points of 'breakout', not of 'pong'",
    ),
    "damaged-starts": (
        lambda w: [
            "evaluate",
            w / "run",
            "--protocol",
            "human-starts",
            "--starts",
            w / "run" / "checkpoints" / "latest.pt",
        ],
        "is not a start-point file",
    ),
    "no-starts": (lambda w: ["evaluate", w / "run", "--protocol", "human-starts"], "needs --starts FILE"),
    "network-does-not-fit": (
        lambda w: ["evaluate", bad_checkpoint(w), "--protocol", "machado"],
        "its network (4 actions",
    ),
    "non-atari-machado": (
        lambda w: ["evaluate", fresh_checkpoint(w / "cartpole", "CartPole-v1", "cartpole"), "--protocol", "machado"],
        "is for Atari games",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_exits_2_with_one_line(case, workspace):
    argv, words = CASES[case]
    done = gorila(*argv(workspace), cwd=workspace)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("gorila: error: ") and words in lines[0], lines


def test_an_evaluation_of_a_run_is_kept_in_the_run_with_the_checksum_of_its_checkpoint(workspace):
    run = fresh_checkpoint(workspace / "kept", "CartPole-v1", "cartpole")
    done = gorila("evaluate", run, "--episodes", 2, cwd=workspace)
    assert done.returncode == 0, done.stderr
    kept = run / "evaluations" / "ckpt-000000000000-noop-2ep-epsilon0.json"
    assert f"saved: {kept}" in done.stdout
    result = json.loads(kept.read_text())
    played = (run / "checkpoints" / "latest.pt").resolve()
    assert result["episodes"] == 2 and result["checkpoint_sha256"] == hashlib.sha256(played.read_bytes()).hexdigest()

    lone = workspace / "lone.pt"  # a checkpoint outside any run: only --json keeps it
    shutil.copy(played, lone)
    done = gorila("evaluate", lone, "--episodes", 2, cwd=workspace)
    assert done.returncode == 0 and "saved:" not in done.stdout, done.stdout
    assert not (workspace / "evaluations").exists()
