"""`gorila suite` on real tiny CartPole runs: finished games are skipped, an unfinished game is
resumed from its checkpoint, several games run at once as Ray tasks, and bad input ends in one line."""

import json
from pathlib import Path

import pytest

from gorila.cli import main
from gorila.experiments.suite.driver import run_suite
from gorila.experiments.suite.plan import SuitePlan
from gorila.records.metrics import read_metrics

FIELDS = dict(
    learning_starts=256,
    batch_size=32,
    hidden_sizes="32",
    eval_every_frames=0,
    eval_episodes=2,
    envs_per_actor=2,
    log_every_seconds=0.5,
    stop_at_return=0.0,
)


def plan(out, frames=1024, games=("CartPole-v1",)):
    return SuitePlan(out, games, frames, preset="cartpole", overrides=FIELDS, episodes=3)


def test_a_finished_game_is_skipped(tmp_path):
    said = []
    first = run_suite(plan(tmp_path), say=said.append)
    assert first["finished"] == ["CartPole-v1"] and not first["failed"]
    result = json.loads((tmp_path / "CartPole-v1" / "final_eval-noop.json").read_text())
    assert result["episodes"] == 3 and result["checkpoint"].endswith(f"ckpt-{result['env_frames']:012d}.pt")
    assert 1024 <= result["env_frames"] <= 1024 + 4 * 1  # each 256-step work item may end a vector step late
    before = {p: p.stat().st_mtime_ns for p in (tmp_path / "CartPole-v1").rglob("*") if p.is_file()}
    said.clear()
    second = run_suite(plan(tmp_path), say=said.append)
    assert second["finished"] == ["CartPole-v1"]
    assert any("CartPole-v1 finished earlier" in line and "skipped" in line for line in said), said
    after = {p: p.stat().st_mtime_ns for p in (tmp_path / "CartPole-v1").rglob("*") if p.is_file()}
    assert after == before  # nothing trained or evaluated again
    assert "CartPole-v1" in (tmp_path / "results.md").read_text()


def test_an_unfinished_game_resumes_from_its_checkpoint(tmp_path):
    run_suite(plan(tmp_path), say=lambda line: None)
    stopped = json.loads((tmp_path / "CartPole-v1" / "final_eval-noop.json").read_text())["checkpoint"]
    (tmp_path / "CartPole-v1" / "final_eval-noop.json").unlink()  # as if stopped before its evaluation
    first = read_metrics(tmp_path / "CartPole-v1")[0]
    run_suite(plan(tmp_path, frames=2048), say=lambda line: None)
    records = read_metrics(tmp_path / "CartPole-v1")
    assert records[0] == first  # continued, not started again
    assert Path(stopped).is_file()  # the first run's checkpoint is kept
    result = json.loads((tmp_path / "CartPole-v1" / "final_eval-noop.json").read_text())
    assert [r["env_frames"] for r in records if r["kind"] == "summary"] == [result["env_frames"]]
    assert 2048 <= result["env_frames"] <= 2048 + 8 * 1


def test_games_run_at_once_as_ray_tasks(tmp_path):
    games = ("CartPole-v1", "Acrobot-v1")
    outcome = run_suite(plan(tmp_path, games=games), parallel=2, say=lambda line: None)
    assert sorted(outcome["finished"]) == sorted(games) and not outcome["failed"]
    rows = (tmp_path / "results.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[1].startswith("CartPole-v1") and rows[2].startswith("Acrobot-v1")


def test_a_game_dir_holding_other_files_is_refused(tmp_path, capsys):
    (tmp_path / "s" / "Pong").mkdir(parents=True)
    (tmp_path / "s" / "Pong" / "thesis.tex").write_text("mine")
    assert main(["suite", "--games", "Pong", "--out", str(tmp_path / "s")]) == 2
    assert "is not a run directory" in capsys.readouterr().err
    assert (tmp_path / "s" / "Pong" / "thesis.tex").read_text() == "mine"


@pytest.mark.parametrize(
    "argv, words",
    [
        (["suite", "--games", "NoSuchGame", "--out", "{dir}/s"], "NoSuchGame"),
        (["suite", "--games", "Pong", "--env", "Pong", "--out", "{dir}/s"], "give --games instead of env"),
        (["suite", "--games", "Pong", "--frames-per-game", "0", "--out", "{dir}/s"], "--frames-per-game must be >= 1"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, words, tmp_path, capsys):
    assert main([a.format(dir=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("gorila: error: ") and words in err[0], err
    assert not (tmp_path / "s").exists()


def test_human_starts_are_evaluated_from_each_games_start_points(tmp_path, capsys):
    starts = tmp_path / "starts"
    starts.mkdir()
    assert main(["record-starts", "--env", "Pong", "--out", str(starts / "Pong.json"), "--count", "2"]) == 0
    fields = {"eval_episodes": 1, "learning_starts": 100, "log_every_seconds": 5.0}
    outcome = run_suite(
        SuitePlan(
            tmp_path / "s",
            ("Pong",),
            2000,
            overrides=fields,
            episodes=2,
            protocols=("noop", "human-starts"),
            starts=str(starts),
        ),
        say=lambda line: None,
    )
    assert outcome["finished"] == ["Pong"]
    result = json.loads((tmp_path / "s" / "Pong" / "final_eval-human-starts.json").read_text())
    assert result["protocol"] == "human-starts" and result["episodes"] == 2
    assert result["normalised"]["reference_protocol"] == "human-starts"
    markdown = (tmp_path / "s" / "results.md").read_text()
    assert "| human starts | ours | 1 |" in markdown


def test_a_game_without_start_points_is_refused_before_training(tmp_path, capsys):
    (tmp_path / "starts").mkdir()
    argv = ["suite", "--games", "Pong", "--starts", str(tmp_path / "starts"), "--out", str(tmp_path / "s")]
    assert main(argv) == 2
    assert "no start points of Pong" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
