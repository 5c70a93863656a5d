"""The MinAtar suite's table from hand-made runs, against numbers read off the published curves' files.

gorila/evaluation/minatar/dqn_breakout.tsv has 4.10 at 88,000 frames and 4.05 at 95,100: 4.0875 at
89,775, a quarter of the way. dqn_freeway.tsv: 5.56 at 21,500 and at 28,700, so 5.56 at 25,000.
dqn_seaquest.tsv begins at 68,100 frames: no published value at 50,000.
"""

import csv
import json

import pytest
import yaml

from gorila.experiments.suite.minatar_table import write_minatar_tables
from gorila.experiments.suite.plan import SuitePlan

GAMES = ("MinAtar/Breakout-v0", "MinAtar/Freeway-v1", "MinAtar/Seaquest-v0", "MinAtar/Asterix-v0")


def hand_made_run(plan, game, train, final=0.5, fps=None):
    """A finished suite game: config.yaml, train records [(frames, return_mean, episodes)] (with the
    frames/s of `fps`, one per record, where given), an eval and a summary record after them, and the
    final evaluation the suite stores."""
    run = plan.game_dir(game)
    run.mkdir(parents=True)
    (run / "config.yaml").write_text(yaml.safe_dump({"env": game}))
    records = [
        {"kind": "train", "env_frames": f, "wall_time": 1.0, "return_mean": r, "episodes_recent": n}
        for f, r, n in train
    ]
    for record, speed in zip(records, fps or []):
        record["fps"] = speed
    last = train[-1][0]
    records += [
        {"kind": "eval", "env_frames": last, "wall_time": 2.0, "eval_return_mean": 99.0},
        {"kind": "summary", "env_frames": last, "wall_time": 2.0, "stop_reason": "budget"},
    ]
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    plan.result_file(game, "noop").write_text(
        json.dumps({"eval_return_mean": final, "eval_episodes": 3, "env_frames": last})
    )


@pytest.fixture
def tables(tmp_path):
    plan = SuitePlan(tmp_path, GAMES, 90_000)
    hand_made_run(
        plan, "MinAtar/Breakout-v0", [(40_000, 1.0, 100), (89_775, 6.13, 100)], final=7.0, fps=(800.0, 1000.0)
    )
    hand_made_run(plan, "MinAtar/Freeway-v1", [(10_000, None, 0), (25_000, 2.78, 40)])  # no frames/s recorded
    hand_made_run(plan, "MinAtar/Seaquest-v0", [(50_000, 0.3, 100)], fps=(600.0,))
    # Asterix: not finished (no run at all), so no row
    write_minatar_tables(plan)
    return tmp_path


def test_rows_set_our_training_return_beside_the_published_dqn_at_the_same_frames(tables):
    rows = {r["game"]: r for r in json.loads((tables / "results.json").read_text())["rows"]}
    assert list(rows) == ["MinAtar/Breakout-v0", "MinAtar/Freeway-v1", "MinAtar/Seaquest-v0"]
    breakout, freeway, seaquest = rows.values()
    assert (breakout["frames"], breakout["ours_training_return"], breakout["episodes"]) == (89_775, 6.13, 100)
    assert breakout["published_dqn"] == pytest.approx(4.0875)
    assert breakout["ratio"] == pytest.approx(6.13 / 4.0875)  # 1.4997
    assert breakout["ours_final_eval"] == 7.0 and breakout["env"] == "MinAtar/Breakout-v0"
    assert freeway["published_dqn"] == pytest.approx(5.56) and freeway["ratio"] == pytest.approx(0.5)
    assert freeway["episodes"] == 40
    assert seaquest["published_dqn"] is None and seaquest["ratio"] is None
    assert seaquest["published_note"] == "the published curve begins at 68,100 frames"
    with open(tables / "results.csv") as file:
        assert float(next(csv.DictReader(file))["published_dqn"]) == pytest.approx(4.0875)


def test_the_summary_counts_games_at_the_published_return_and_names_the_lowest_ratio(tables):
    summary = json.loads((tables / "results.json").read_text())["summary"]
    assert summary == {
        "games": 2,
        "at_or_above_published": 1,
        "lowest_ratio": pytest.approx(0.5),
        "lowest_game": "MinAtar/Freeway-v1",
        "runs": 2,
        "median_frames_per_s": 750.0,
    }
    markdown = (tables / "results.md").read_text()
    assert "3 of 4 games finished" in markdown
    assert (
        "| MinAtar/Breakout-v0 | MinAtar/Breakout-v0 | 89,775 | 100 | 6.13 | 4.09 | 1.50 | 7.00 (3 episodes) | 900 |"
        in markdown
    )
    assert "| MinAtar/Freeway-v1 | MinAtar/Freeway-v1* | 25,000 | 40 | 2.78 | 5.56 | 0.50 |" in markdown
    assert "| — (the published curve begins at 68,100 frames) | — |" in markdown
    assert (
        "* Played with the game's minimal action set (-v1), not the full set of the published curves: MinAtar/Freeway-v1."
        in markdown
    )
    assert (
        "Games at >= 1.0 of the published DQN: 1 of 2; lowest ratio 0.50 (MinAtar/Freeway-v1). Frames/s, the "
        "median over the 2 runs of each run's median train record: 750."
    ) in markdown


def test_a_suite_of_two_seeds_tables_each_game_over_its_seeds(tmp_path):
    """Breakout's seeds end at 89,000 and 90,550 frames (mean 89,775: 4.0875 published) with 5.0 and
    7.26 (mean 6.13, ratio 1.4997); Seaquest's seed 1 has not finished, so Seaquest has no row yet."""
    plan = SuitePlan(tmp_path, ("MinAtar/Breakout-v0", "MinAtar/Seaquest-v0"), 90_000, seeds=(0, 1))
    seed_0, seed_1 = plan.seed_plans()
    assert (seed_0.out, seed_0.overrides, seed_1.overrides["seed"]) == (tmp_path / "seed-0", {"seed": 0}, 1)
    hand_made_run(
        seed_0,
        "MinAtar/Breakout-v0",
        [(40_000, 1.0, 100), (60_000, 3.0, 100), (89_000, 5.0, 100)],
        final=6.0,
        fps=(700.0, 1300.0, 900.0),
    )  # median 900, mean 967
    hand_made_run(
        seed_1, "MinAtar/Breakout-v0", [(40_000, 2.0, 100), (90_550, 7.26, 120)], final=8.0, fps=(1000.0, 1000.0)
    )
    hand_made_run(seed_0, "MinAtar/Seaquest-v0", [(90_000, 0.3, 100)])
    assert plan.finished("MinAtar/Breakout-v0") and not plan.finished("MinAtar/Seaquest-v0")
    write_minatar_tables(plan)
    [breakout] = json.loads((tmp_path / "results.json").read_text())["rows"]
    assert breakout["seed_returns"] == [5.0, 7.26] and breakout["ours_training_return"] == pytest.approx(6.13)
    assert (breakout["frames"], breakout["episodes"], breakout["ours_final_eval"]) == (89_775, 100, 7.0)
    assert breakout["published_dqn"] == pytest.approx(4.0875) and breakout["ratio"] == pytest.approx(6.13 / 4.0875)
    assert breakout["seed_frames_per_s"] == [900.0, 1000.0]
    markdown = (tmp_path / "results.md").read_text()
    assert "1 of 2 games finished with seeds 0, 1" in markdown
    assert "| ours, training return: mean (each seed) |" in markdown
    assert (
        "| MinAtar/Breakout-v0 | MinAtar/Breakout-v0 | 89,775 | 100 | 6.13 (5.00, 7.26) | 4.09 | 1.50 | 7.00 (3 episodes) | 900 / 1,000 |"
        in markdown
    )
    assert "| frames/s (each seed) |" in markdown
    assert (
        "Games at >= 1.0 of the published DQN: 1 of 1" in markdown
        and "2 runs of each run's median train record: 950." in markdown
    )
