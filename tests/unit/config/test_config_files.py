"""Every example config in `configs/` loads as the command in its `# Run:` line loads it (its preset,
then the file), and names an environment gorila runs."""

import re
from pathlib import Path

import pytest

from gorila.config import build_config
from gorila.envs.registry import resolve_env

CONFIGS = sorted((Path(__file__).resolve().parents[3] / "configs").glob("*.yaml"))


def test_there_are_example_configs():
    assert len(CONFIGS) >= 3


@pytest.mark.parametrize("path", CONFIGS, ids=lambda path: path.name)
def test_each_example_config_loads_and_names_a_known_environment(path):
    run = re.search(r"^# Run: gorila train --preset (\S+) --config (\S+)", path.read_text(), re.M)
    assert run and run.group(2) == f"configs/{path.name}", "no `# Run: gorila train --preset P --config FILE` line"
    config = build_config(run.group(1), str(path))
    assert config.env and resolve_env(config.env).kind in ("atari", "minatar", "gym")
