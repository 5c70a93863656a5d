"""The README's "Python API" example runs as it stands, from a directory of its own, and does what it
says: trains CartPole to a confirmed solve, evaluates the best checkpoint on 100 episodes, loads the
Q-network, and trains a user's own environment and network on Ray."""

import re
import subprocess
import sys
from pathlib import Path

from tests.helpers import slowdown

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_api_example() -> str:
    text = README.read_text()
    section = re.search(r"^## Python API$(.*?)^## ", text, re.M | re.S)
    assert section, "README has no '## Python API' section"
    block = re.search(r"```python\n(.*?)```", section.group(1), re.S)
    assert block, "the Python API section has no ```python block"
    return block.group(1)


def test_the_readme_python_api_example_runs(tmp_path):
    (tmp_path / "example.py").write_text(readme_api_example())
    run = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600 * slowdown()
    )
    assert run.returncode == 0, run.stderr[-3000:]
    solved = re.search(r"solved at (\d+) frames, best eval ([\d.]+), (\S+best\.pt)", run.stdout)
    assert solved and float(solved.group(2)) >= 475 and Path(tmp_path, solved.group(3)).is_file(), run.stdout[-2000:]
    mean = float(re.search(r"evaluation: ([\d.]+) \+/-", run.stdout).group(1))
    assert mean >= 400, run.stdout[-2000:]
    assert re.search(r"greedy action [01] of \['0', '1'\] Q \[[-\d.e, ]+\]", run.stdout), run.stdout[-2000:]
    assert re.search(r"own env and network: [\d.]+", run.stdout), run.stdout[-2000:]
    assert len(list((tmp_path / "runs").iterdir())) == 2  # both runs under runs/ of the working directory
