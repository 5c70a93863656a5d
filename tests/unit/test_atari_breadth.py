"""benchmarks/atari_breadth.py: each run's command is one `gorila train` accepts for its game, and a run
is started, resumed or passed over by what its directory holds."""

import json
import sys
from pathlib import Path

import pytest

from gorila.cli.main import build_parser
from gorila.cli.train import checked_train_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def breadth(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import atari_breadth

    return atari_breadth


@pytest.mark.parametrize("name", ["pong-atari-fast-seed1", "breakout-atari-fast-sticky-seed0"])
def test_a_new_runs_command_passes_gorila_trains_checks(breadth, name, tmp_path):
    argv = breadth.command(name, tmp_path / name, "new")
    assert argv[:4] == [sys.executable, "-m", "gorila", "train"]
    config, info = checked_train_config(build_parser(argv[3:]).parse_args(argv[3:]))
    game, seed, _ = breadth.RUNS[name]
    assert (config.env, config.seed, config.save_replay, config.total_frames) == (game, seed, True, 10_000_000)
    assert config.checkpoint_every_frames == 1_000_000
    if game == "Pong":
        assert config.stop_at_return == 18 and config.sticky_actions == 0
    else:
        assert config.sticky_actions == 0.25 and config.fire_reset


def records(run_dir: Path, *lines: dict) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text("env: Pong\n")
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_run_is_new_cut_or_done_by_its_directory(breadth, tmp_path):
    run_dir = tmp_path / "run"
    assert breadth.state(run_dir) == "new"
    records(run_dir, {"kind": "train", "env_frames": 1000})  # killed: no summary
    assert breadth.state(run_dir) == "cut"
    resumed = breadth.command("pong-atari-fast-seed2", run_dir, "cut")
    assert resumed[4:] == ["--resume", str(run_dir), "--set", "stop_at_return=18"]
    records(run_dir, {"kind": "summary", "stop_reason": "interrupted"})
    assert breadth.state(run_dir) == "cut"
    records(run_dir, {"kind": "summary", "stop_reason": "interrupted"}, {"kind": "summary", "stop_reason": "solved"})
    assert breadth.state(run_dir) == "done"
    records(run_dir, {"kind": "summary", "stop_reason": "budget"})
    assert breadth.state(run_dir) == "done"
