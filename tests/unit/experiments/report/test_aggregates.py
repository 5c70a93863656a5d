"""`gorila report` of hand-made suites: the aggregates over the seeds of a suite of two (IQM, median and
mean with their intervals, and the performance profile), and a line saying why a suite of one seed has none.

The published curves' files hold Breakout's DQN at 4.10 at 88,000 frames, Freeway's at 5.56 from 21,500 to
28,700 and Space Invaders' at 8.49 at 43,900; Seaquest's begins at 68,100 frames. The returns below are
those times the ratios [seed 0, seed 1]: Breakout [1, 4], Freeway [0.5, 0.8], Space Invaders [2, 10].
All six sorted: 0.5 | 0.8 1 2 4 | 10, so the IQM is 7.8 / 4 = 1.95; the games' means 2.5, 0.65 and 6:
median 2.5, mean 3.05.
"""

import json

import numpy as np
import pytest

from gorila.experiments.report.aggregates import suite_scores
from gorila.experiments.report.page import make_report
from gorila.experiments.suite.plan import SUITE_FILE, SuitePlan
from tests.helpers import store_final_evaluation
from tests.unit.experiments.suite.test_minatar_table import hand_made_run

GAMES = (
    "MinAtar/Breakout-v0",
    "MinAtar/Freeway-v0",
    "MinAtar/SpaceInvaders-v0",
    "MinAtar/Seaquest-v0",
    "MinAtar/Asterix-v0",
)
RUNS = {
    "MinAtar/Breakout-v0": (88_000, 4.10, [1.0, 4.0]),
    "MinAtar/Freeway-v0": (25_000, 5.56, [0.5, 0.8]),
    "MinAtar/SpaceInvaders-v0": (43_900, 8.49, [2.0, 10.0]),
    "MinAtar/Seaquest-v0": (50_000, 1.0, [1.0, 1.0]),
}


@pytest.fixture
def two_seeds(tmp_path):
    """A MinAtar suite of seeds 0 and 1: Seaquest has no published value at its frames, Asterix only seed 0's run."""
    plan = SuitePlan(tmp_path / "suite", GAMES, 90_000, preset="minatar", seeds=(0, 1))
    plan.out.mkdir()
    (plan.out / SUITE_FILE).write_text(json.dumps(plan.to_dict()))
    for seed, seed_plan in enumerate(plan.seed_plans()):
        for game, (frames, published, ratios) in RUNS.items():
            hand_made_run(seed_plan, game, [(frames, published * ratios[seed], 100)])
    hand_made_run(plan.seed_plans()[0], "MinAtar/Asterix-v0", [(90_000, 1.0, 100)])
    return plan


def test_the_score_matrix_holds_each_seeds_ratio_to_the_published_dqn(two_seeds):
    scores = suite_scores(two_seeds)
    assert scores.games == ["MinAtar/Breakout-v0", "MinAtar/Freeway-v0", "MinAtar/SpaceInvaders-v0"]
    np.testing.assert_allclose(scores.matrix, [[1.0, 0.5, 2.0], [4.0, 0.8, 10.0]])
    assert scores.left_out == {
        "MinAtar/Asterix-v0": "not finished by every seed",
        "MinAtar/Seaquest-v0": "no normalised score from seed 0, 1",
    }
    assert {name: a["estimate"] for name, a in scores.aggregates.items()} == pytest.approx(
        {"IQM": 1.95, "median": 2.5, "mean": 3.05}
    )


def test_the_report_prints_the_aggregates_and_draws_the_performance_profile(two_seeds, tmp_path):
    text, index = make_report([str(two_seeds.out)], tmp_path / "report")
    assert "Over 2 seeds x 3 games, of the training return / the published DQN's at the same frames" in text
    assert (
        "Left out: MinAtar/Seaquest-v0 (no normalised score from seed 0, 1); MinAtar/Asterix-v0 (not finished "
        "by every seed)."
    ) in text
    lines = text.splitlines()
    table = lines[lines.index("| aggregate | estimate | 95% CI |") :][:5]
    assert [row.split(" | ")[:2] for row in table[2:]] == [["| IQM", "1.95"], ["| median", "2.50"], ["| mean", "3.05"]]
    for row in table[2:]:
        low, high = (float(x) for x in row.split(" | ")[2].rstrip(" |").split(" to "))
        assert low <= float(row.split(" | ")[1]) <= high and low < high
    page = index.read_text()
    assert "<th>aggregate</th><th>estimate</th><th>95% CI</th>" in page and "<td>IQM</td><td>1.95</td>" in page
    assert 'src="suite_performance_profile.png"' in page
    assert (tmp_path / "report" / "suite_performance_profile.png").stat().st_size > 10_000


def test_a_suite_of_one_seed_says_the_intervals_need_several(tmp_path):
    plan = SuitePlan(tmp_path / "suite", ("Pong", "Breakout"), 20_000)
    plan.out.mkdir()
    (plan.out / SUITE_FILE).write_text(json.dumps(plan.to_dict()))
    store_final_evaluation(plan, "Pong", "noop", 19.0)
    store_final_evaluation(plan, "Breakout", "noop", 300.0)
    text, index = make_report([str(plan.out)], tmp_path / "report")
    assert "need several runs of each game, a suite of several seeds: this suite has one run per game." in text
    assert "| aggregate |" not in text and not (tmp_path / "report" / "suite_performance_profile.png").exists()
    one_seed = SuitePlan(tmp_path / "one", ("Pong",), 20_000, seeds=(3,))
    store_final_evaluation(one_seed.seed_plans()[0], "Pong", "noop", 19.0)
    assert suite_scores(one_seed).matrix is None


def test_atari_runs_enter_the_matrix_human_normalised(tmp_path):
    """Pong: random -20.7, human 9.3 under null-op starts, so -5.7 is 50% and 9.3 100%; Breakout: random
    1.7, human 31.8, so 1.7 is 0% and 61.9 200%. Sorted 0 | 50 100 | 200: the IQM is 75."""
    plan = SuitePlan(tmp_path, ("Pong", "Breakout"), 20_000, seeds=(0, 1))
    for seed_plan, (pong, breakout) in zip(plan.seed_plans(), [(-5.7, 1.7), (9.3, 61.9)]):
        store_final_evaluation(seed_plan, "Pong", "noop", pong)
        store_final_evaluation(seed_plan, "Breakout", "noop", breakout)
    scores = suite_scores(plan)
    np.testing.assert_allclose(scores.matrix, [[50.0, 0.0], [100.0, 200.0]])
    assert scores.aggregates["IQM"]["estimate"] == pytest.approx(75.0)
    assert scores.measure.reference == 100.0
