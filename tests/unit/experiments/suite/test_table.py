"""The suite's results table against hand-computed numbers from the published scores.

Null-op columns (random, human, DQN, Gorila): Pong -20.7, 9.3, 18.9, 18.3; Breakout 1.7, 31.8,
401.2, 402.2; Alien 227.8, 6875.4, 3069, 2620.53. Human-start columns of Pong: -18.0, 15.5, 16.2, 16.71.
"""

import csv
import json

import pytest

from gorila.experiments.suite.plan import SuitePlan
from gorila.experiments.suite.table import write_tables
from tests.helpers import store_final_evaluation as store

NOOP = {"Pong": 19.0, "Breakout": 10.0, "Alien": 5300.0}


@pytest.fixture
def tables(tmp_path):
    plan = SuitePlan(tmp_path, ("Pong", "Breakout", "Alien", "Boxing"), 20_000)
    for game, score in NOOP.items():
        store(plan, game, "noop", score)
    store(plan, "Pong", "human-starts", 16.5, starts="random-play")
    write_tables(plan)
    return tmp_path


def test_counts_as_the_paper_does(tables):
    summary = json.loads((tables / "results.json").read_text())["summary"]
    ours = summary["noop"]["ours"]
    pong, breakout, alien = 100 * 39.7 / 30.0, 100 * 8.3 / 30.1, 100 * 5072.2 / 6647.6
    assert ours["games"] == 3
    assert ours["games_above_dqn"] == 2  # Pong 19.0 > 18.9, Alien 5300 > 3069
    assert ours["games_at_human_level"] == 2  # Pong 132%, Alien 76.3%; Breakout 27.6%
    assert ours["median_human_normalised"] == pytest.approx(alien)
    assert ours["mean_human_normalised"] == pytest.approx((pong + breakout + alien) / 3)
    gorila = summary["noop"]["gorila"]  # the published Gorila over the same games
    assert gorila["games_above_dqn"] == 1  # Breakout 402.2 > 401.2 only
    assert gorila["games_at_human_level"] == 2  # Pong 130%, Breakout 1331%; Alien 36%
    hs = summary["human-starts"]["ours"]
    assert hs["games"] == 1 and hs["games_above_dqn"] == 1
    assert hs["median_human_normalised"] == pytest.approx(100 * 34.5 / 33.5)


def test_table_rows_put_ours_beside_the_published_scores(tables):
    with open(tables / "results.csv") as file:
        rows = {r["game"]: r for r in csv.DictReader(file)}
    assert sorted(rows) == ["Alien", "Breakout", "Pong"]  # Boxing has no result yet
    pong = rows["Pong"]
    assert float(pong["ours_noop"]) == 19.0 and float(pong["dqn_noop"]) == 18.9
    assert float(pong["gorila_noop"]) == 18.3 and float(pong["gorila_human_starts"]) == 16.71
    assert float(pong["human_normalised_noop"]) == pytest.approx(100 * 39.7 / 30.0)
    assert rows["Breakout"]["ours_human_starts"] == ""
    markdown = (tables / "results.md").read_text()
    assert "3 of 4 games finished" in markdown and "not the best evaluation seen during training" in markdown
    assert "| Pong | 20,000 | 19.0 | 132.3 | 18.9 | 18.3 | 16.5‡ | 103.0 | 16.2 | 16.7 |" in markdown
    assert "‡ Start points not recorded from human play: Pong (random-play)." in markdown
    assert pong["start_points_human_starts"] == "random-play" and rows["Breakout"]["start_points_human_starts"] == ""
    assert "| null-op starts | ours | 3 | 2 | 0 | 0 | 2 | 76.3 |" in markdown  # none at 2x DQN (Pong 1.0x)
    assert "| null-op starts | DQN (published) | 3 | — | — | — | 2 |" in markdown


def test_a_human_score_below_random_plays_is_marked_and_counted_by_the_rule(tmp_path):
    # Video Pinball, human starts: random 20,452, human 15,641.1, DQN 20,228.1; Gorila 112,093.37.
    plan = SuitePlan(tmp_path, ("VideoPinball",), 20_000, protocols=("noop", "human-starts"))
    store(plan, "VideoPinball", "noop", 20_000.0)
    store(plan, "VideoPinball", "human-starts", 112_093.37)
    write_tables(plan)
    markdown = (tmp_path / "results.md").read_text()
    assert "| 112,093.4 | -1,904.9† | 20,228.1 | 112,093.4 |" in markdown
    assert "† The published human score is at or below random play's: VideoPinball (human starts)." in markdown
    hs = json.loads((tmp_path / "results.json").read_text())["summary"]["human-starts"]["ours"]
    assert hs["games_at_human_level"] == 1 and hs["games_at_2x_dqn"] == hs["games_at_5x_dqn"] == 1
    assert hs["mean_human_normalised"] == pytest.approx(100 * (112_093.37 - 20_452) / (15_641.1 - 20_452))


def test_only_start_points_from_human_play_go_unmarked(tmp_path):
    plan = SuitePlan(tmp_path, ("Pong", "Breakout", "Alien"), 20_000, protocols=("noop", "human-starts"))
    store(plan, "Pong", "human-starts", 16.5)
    store(plan, "Breakout", "human-starts", 20.0, starts="agent:runs/b/checkpoints/best.pt")
    store(plan, "Alien", "human-starts", 900.0)
    old = json.loads(plan.result_file("Alien", "human-starts").read_text())  # written before results said so
    del old["start_points_source"]
    old["settings"] = {"start_points": {"source": "random", "recorded_from": ""}}
    plan.result_file("Alien", "human-starts").write_text(json.dumps(old))
    write_tables(plan)
    with open(tmp_path / "results.csv") as file:
        said = {r["game"]: r["start_points_human_starts"] for r in csv.DictReader(file)}
    assert said == {"Pong": "human", "Breakout": "agent:runs/b/checkpoints/best.pt", "Alien": "random-play"}
    markdown = (tmp_path / "results.md").read_text()
    assert "| 16.5 | 103.0 |" in markdown and "| 20.0‡ |" in markdown and "| 900.0‡ |" in markdown
    assert (
        "‡ Start points not recorded from human play: Breakout (agent:runs/b/checkpoints/best.pt), Alien (random-play)."
    ) in markdown
