"""What `--track` checks before a run starts. The W&B runs themselves are made by real `gorila train`
processes in tests/integration/test_tracking.py: wandb keeps one set of settings per process."""

import sys

import pytest

from gorila.config import ConfigError, build_config
from gorila.records.tracking import WandbRun, check_tracking, one_line


def test_a_tracked_run_without_wandb_installed_is_refused_with_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)  # what `import wandb` meets when it is not installed
    config = build_config("cartpole", overrides={"track": True})
    with pytest.raises(
        ConfigError, match=r"^track: Weights & Biases is not installed \(pip install 'gorila\[track\]'\)$"
    ):
        check_tracking(config)
    with pytest.raises(ConfigError, match="not installed"):
        WandbRun.start(config, "unused")


def test_an_untracked_run_needs_no_wandb(monkeypatch):
    monkeypatch.setitem(sys.modules, "wandb", None)
    config = build_config("cartpole")
    check_tracking(config)
    assert WandbRun.start(config, "unused") is None


def test_a_message_over_several_lines_becomes_one():
    assert (
        one_line(ValueError("1 validation error\nmode\n  Input should be 'online'"))
        == "1 validation error mode Input should be 'online'"
    )
    assert one_line(TimeoutError()) == "TimeoutError"
