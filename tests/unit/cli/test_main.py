"""How `main` ends a command that fails: a cluster that cannot host the run exits 2, a component's
failure and an error nobody foresaw exit 1, each as one line on stderr."""
import os
import subprocess
import sys

import pytest

from gorila import cli
from gorila.cli import train
from gorila.runtime.calls import WorkerError

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
    process = subprocess.run([sys.executable, "-c", RAISE_CLUSTER_ERROR], capture_output=True, text=True,
                             timeout=120, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert process.returncode == 2, process.stderr
    assert process.stderr == "gorila: error: the cluster at 10.0.0.1:6379 has 2 CPUs; the run needs 9\n"


@pytest.mark.parametrize("error, line", [
    (WorkerError("learner 0 failed: ValueError: bad batch"), "gorila: error: learner 0 failed: ValueError: bad batch"),
    (KeyError("theta"), "gorila: error: KeyError: 'theta' (set GORILA_DEBUG=1 for the traceback)"),
])
def test_a_failure_nobody_foresaw_exits_1_in_one_line(error, line, monkeypatch, capsys):
    def run(args):
        raise error
    monkeypatch.setattr(train, "run", run)
    monkeypatch.delenv("GORILA_DEBUG", raising=False)
    assert cli.main(["train"]) == 1
    assert capsys.readouterr().err == line + "\n"
