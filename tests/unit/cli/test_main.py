"""How `main` ends a command that fails: a cluster that cannot host the run exits 2, a component's
failure and an error nobody foresaw exit 1, each as one line on stderr; a mistyped flag or config key
exits 2 with the flags or keys it most likely meant."""

import os
import subprocess
import sys

import pytest

from gorila import cli
from gorila.cli import train
from gorila.runtime.calls import WorkerError
from tests.helpers import slowdown

RAISE_CLUSTER_ERROR = """
from gorila import cli
from gorila.cli import train
from gorila.runtime.calls import ClusterError

def run(args):
    raise ClusterError("the cluster at 10.0.0.1:6379 has 2 CPUs; the run needs 9")

train.run = run
cli.main(["train"])
raise SystemExit("main returned instead of exiting")
"""


def test_a_cluster_error_exits_2_in_one_line():
    process = subprocess.run(
        [sys.executable, "-c", RAISE_CLUSTER_ERROR],
        capture_output=True,
        text=True,
        timeout=120 * slowdown(),
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert process.returncode == 2, process.stderr
    assert process.stderr == "gorila: error: the cluster at 10.0.0.1:6379 has 2 CPUs; the run needs 9\n"


@pytest.mark.parametrize(
    "error, line",
    [
        (
            WorkerError("learner 0 failed: ValueError: bad batch"),
            "gorila: error: learner 0 failed: ValueError: bad batch",
        ),
        (KeyError("theta"), "gorila: error: KeyError: 'theta' (set GORILA_DEBUG=1 for the traceback)"),
    ],
)
def test_a_failure_nobody_foresaw_exits_1_in_one_line(error, line, monkeypatch, capsys):
    def run(args):
        raise error

    monkeypatch.setattr(train, "run", run)
    monkeypatch.delenv("GORILA_DEBUG", raising=False)
    assert cli.main(["train"]) == 1
    assert capsys.readouterr().err == line + "\n"


def one_line_error(capsys, argv) -> str:
    """The one line `gorila ARGV` prints on stderr, after checking that it exits 2."""
    assert cli.main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gorila: error: "), lines
    return lines[0]


@pytest.mark.parametrize(
    "argv, words",
    [
        (
            ["train", "--learning_rate", "1e-3"],
            "unrecognized arguments: --learning_rate 1e-3; did you mean --learning-rate? ",
        ),
        (["train", "--lr=1e-3"], "did you mean --learning-rate?"),
        (["train", "--totl-frames", "5000"], "did you mean --total-frames?"),
        (["evaluate", "runs/x", "--max_frames", "100"], "did you mean --max-frames?"),
        (["train", "--set", "lr=1e-3"], "lr: unknown config key; did you mean learning_rate?"),
        (["train", "--set", "epsilon_decay=5"], "did you mean epsilon_decay_steps or epsilon_end?"),
        (
            ["train", "--help-field", "learnig_rate"],
            "--help-field: learnig_rate is no config field; did you mean learning_rate or learning_rate_decay?",
        ),
        (["train", "--no-such-flag"], "unrecognized argument: --no-such-flag (see `gorila train --help`)"),
    ],
)
def test_a_mistyped_flag_or_key_is_one_line_that_says_what_was_meant(capsys, argv, words):
    assert words in one_line_error(capsys, argv)


def test_an_unknown_key_of_a_config_file_is_named_with_what_was_meant(capsys, tmp_path):
    (tmp_path / "exp.yaml").write_text("batch_size: 16\nbuffer_size: 50000\n")
    line = one_line_error(capsys, ["train", "--config", str(tmp_path / "exp.yaml")])
    assert f"buffer_size: unknown config key in {tmp_path / 'exp.yaml'}; did you mean replay_capacity?" in line


@pytest.mark.parametrize(
    "argv, words",
    [
        (["suite", "--env", "Pong"], "suite: give --games instead of env"),
        (["suite", "--run-dir", "x"], "suite: give --out instead of run_dir"),
        (["suite", "--set", "total_frames=5"], "suite: give --frames-per-game instead of total_frames"),
    ],
)
def test_suite_still_refuses_the_fields_its_help_leaves_out(capsys, argv, words):
    assert one_line_error(capsys, argv) == f"gorila: error: {words}"
