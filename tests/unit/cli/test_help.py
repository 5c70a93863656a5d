"""`gorila --help`, every subcommand's `--help` and `gorila --version` answer without importing torch or
Ray; `python -m gorila` with nothing to do is a one-line usage error."""
import os
import re
import subprocess
import sys
from importlib.metadata import version

import pytest

from gorila.config import PRESETS

SUBCOMMANDS = ["train", "evaluate", "record-starts", "suite", "report", "bench"]
HEAVY = re.compile(r"\|\s+(torch|ray)(\.\S*)?$")      # an `-X importtime` line of torch, Ray or a submodule


def gorila(*argv: str, python_flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """`python [FLAGS] -m gorila ARGV` in a fresh interpreter, on this checkout, help unwrapped."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "400"}
    return subprocess.run([sys.executable, *python_flags, "-m", "gorila", *argv], capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.parametrize("argv", [["--help"], *[[command, "--help"] for command in SUBCOMMANDS], ["--version"]],
                         ids=lambda argv: " ".join(argv))
def test_help_imports_neither_torch_nor_ray(argv):
    process = gorila(*argv, python_flags=("-X", "importtime"))
    assert process.returncode == 0, process.stderr
    assert process.stdout.strip()
    heavy = [line for line in process.stderr.splitlines() if HEAVY.search(line)]
    assert heavy == [], heavy


def test_version_prints_the_installed_version():
    process = gorila("--version")
    assert process.returncode == 0, process.stderr
    assert process.stdout == f"gorila {version('gorila')}\n"


def test_no_command_is_a_one_line_usage_error():
    process = gorila()
    lines = [line for line in process.stderr.splitlines() if line.strip()]
    assert process.returncode == 2
    assert len(lines) == 1 and lines[0].startswith("gorila: error: ") and "command" in lines[0], lines
    assert process.stdout == ""


def test_train_help_names_every_preset():
    process = gorila("train", "--help")
    assert f"start from a preset ({', '.join(PRESETS)})" in process.stdout
