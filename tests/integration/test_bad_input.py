"""Real `gorila train` processes given bad input: exit 2 and one line on stderr that names the field,
before anything is trained or written (the property test covers the same path in-process)."""

import os
import subprocess
import sys

import pytest

from tests.helpers import slowdown

CASES = {
    "yaml-null": (["--config", "{dir}/null.yaml"], "run_dir must be a string, got null"),
    "nothing-at-address": (["--address", "127.0.0.1:1"], "address: nothing answers at 127.0.0.1:1"),
    "replay-too-small": (["--preset", "atari", "--replay-capacity", "10000"], "learning_starts: each replay memory"),
    "cnn-on-vectors": (["--network", "nature_cnn"], "network: nature_cnn cannot take CartPole-v1's observations"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_exits_2_with_one_line(case, tmp_path):
    (tmp_path / "null.yaml").write_text("run_dir:\n")
    flags, words = CASES[case]
    argv = ["train", "--preset", "cartpole", *[flag.format(dir=tmp_path) for flag in flags]]
    process = subprocess.run(
        [sys.executable, "-m", "gorila", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120 * slowdown(),
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    lines = [line for line in process.stderr.splitlines() if line.strip()]
    assert process.returncode == 2, process.stderr
    assert len(lines) == 1 and lines[0].startswith("gorila: error: ") and words in lines[0], lines
    assert process.stdout == ""
    assert sorted(path.name for path in tmp_path.iterdir()) == ["null.yaml"]  # no run dir, no ./None
