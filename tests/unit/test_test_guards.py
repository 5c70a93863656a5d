"""The suite's own guards (tests/conftest.py): every test is bounded by a limit that stretches with the
machine's load, and a skip for a reason it does not list fails. Each case runs pytest on a small test file
in a subprocess, with tests/conftest.py loaded as a plugin."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


def run_pytest(folder: Path, source: str, *options: str, slowdown: float = 1.0) -> subprocess.CompletedProcess:
    (folder / "test_case.py").write_text(source)
    environment = dict(os.environ, PYTHONPATH=str(REPOSITORY), GORILA_TEST_SLOWDOWN=str(slowdown))
    environment.pop("PYTEST_XDIST_WORKER_COUNT", None)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest", *options]
    return subprocess.run(command, cwd=folder, env=environment, capture_output=True, text=True, timeout=60)


SLEEPS_3_S = "import time\n\ndef test_sleeps():\n    time.sleep(3)\n"


def test_a_test_past_its_limit_fails_with_the_limit_named(tmp_path):
    result = run_pytest(tmp_path, SLEEPS_3_S, "--timeout", "1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Timeout (>1.0s)" in result.stdout


def test_the_limit_stretches_with_the_load(tmp_path):
    result = run_pytest(tmp_path, SLEEPS_3_S, "--timeout", "1", slowdown=5)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("reason", "passes"),
    [("no CUDA device here", True), ("the network was down", False)],
)
def test_only_a_listed_reason_may_skip(tmp_path, reason, passes):
    source = f"import pytest\n\ndef test_skips():\n    pytest.skip({reason!r})\n"
    result = run_pytest(tmp_path, source)
    assert (result.returncode == 0) == passes, result.stdout + result.stderr
    if not passes:
        assert "not in tests/conftest.py's ALLOWED_SKIPS: the network was down" in result.stdout
