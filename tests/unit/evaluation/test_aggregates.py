"""The aggregates of Agarwal et al. (2021) on hand-made score matrices [runs, games], their values worked
out by hand below, and the stratified bootstrap's intervals."""

import numpy as np
import pytest
from scipy import stats

from gorila.evaluation.aggregates import (
    aggregates,
    iqm,
    mean,
    median,
    performance_profile,
    profile_with_band,
    score_matrix,
    stratified_resamples,
)

# 4 runs x 3 games. All 12 scores sorted: 1 2 3 | 4 5 6 7 9 10 | 11 20 100; the IQM drops 3 at each end:
# (4 + 5 + 6 + 7 + 9 + 10) / 6 = 41 / 6. Game means 2.5, 9.5, 32.5: median 9.5, mean 44.5 / 3.
OUTLIERS = np.array([[1, 5, 9], [2, 6, 10], [3, 7, 11], [4, 20, 100]], dtype=float)


def test_iqm_median_and_mean_of_a_hand_made_matrix():
    assert iqm(OUTLIERS) == pytest.approx(41 / 6)
    assert median(OUTLIERS) == pytest.approx(9.5)
    assert mean(OUTLIERS) == pytest.approx(44.5 / 3)
    assert iqm(OUTLIERS) < mean(OUTLIERS) / 2  # the outliers 20 and 100 move the mean, not the IQM


def test_the_iqm_trims_whole_scores_rounding_the_quarter_down_as_scipy_does():
    # 6 scores: a quarter is 1.5, so one is dropped at each end: (1 + 10 + 11 + 20) / 4
    assert iqm([[0, 10, 20], [1, 11, 1000]]) == pytest.approx(10.5)


def test_the_iqm_is_scipys_trim_mean_over_all_scores():
    rng = np.random.default_rng(7)
    for shape in [(3, 5), (5, 7), (10, 57), (2, 1)]:
        scores = rng.lognormal(size=shape)
        assert iqm(scores) == pytest.approx(stats.trim_mean(scores, 0.25, axis=None))


def test_a_stack_of_matrices_gets_an_aggregate_each():
    stack = np.stack([OUTLIERS, OUTLIERS + 1])
    assert iqm(stack) == pytest.approx([41 / 6, 41 / 6 + 1])
    assert median(stack) == pytest.approx([9.5, 10.5])


def test_the_interval_of_two_runs_of_one_game_spans_both():
    # resampled means of runs {0, 1}: 0, 0.5 or 1 with chances 1/4, 1/2, 1/4, so 2.5% and 97.5% are 0 and 1
    result = aggregates([[0.0], [1.0]])
    assert result["mean"] == {"estimate": 0.5, "low": 0.0, "high": 1.0}


def test_the_intervals_contain_their_estimate_and_shrink_with_more_runs():
    rng = np.random.default_rng(3)
    few = rng.normal(loc=[1.0, 2.0, 5.0, 0.5, 3.0], scale=1.0, size=(4, 5))
    many = np.concatenate([few] * 10)  # the same scores, ten times the runs (20 and 200: a quarter trims whole)
    for name in ("IQM", "median", "mean"):
        a, b = aggregates(few)[name], aggregates(many)[name]
        assert a["low"] <= a["estimate"] <= a["high"] and b["low"] <= b["estimate"] <= b["high"]
        assert b["estimate"] == pytest.approx(a["estimate"])
        assert b["high"] - b["low"] < (a["high"] - a["low"]) / 2, name  # about 1/sqrt(10) as wide


def test_the_bootstrap_resamples_runs_within_each_game():
    scores = np.array([[0.0, 10.0], [1.0, 11.0], [2.0, 12.0]])
    copies = stratified_resamples(scores, resamples=500, seed=1)
    assert copies.shape == (500, 3, 2)
    assert set(np.unique(copies[:, :, 0])) == {0.0, 1.0, 2.0}  # a game's runs only, each drawn
    assert set(np.unique(copies[:, :, 1])) == {10.0, 11.0, 12.0}
    assert (copies[:, :, 1] - 10 != copies[:, :, 0]).any()  # games drawn independently of each other
    assert not np.array_equal(stratified_resamples(scores, 500, seed=2), copies)


def test_games_whose_runs_agree_add_no_uncertainty():
    """Games differ (1, 5, 90) but each game's runs agree: an interval over games would be wide, a
    stratified one is the estimate itself; one game's runs disagreeing widens the mean's interval by
    that game's share alone."""
    agreeing = np.array([[1.0, 5.0, 90.0]] * 4)
    for a in aggregates(agreeing).values():
        assert a["low"] == pytest.approx(a["estimate"]) and a["high"] == pytest.approx(a["estimate"])
    one_varies = agreeing.copy()
    one_varies[:, 0] = [0.0, 0.0, 2.0, 2.0]  # same mean, 1
    a = aggregates(one_varies)["mean"]
    assert a["estimate"] == pytest.approx(32.0)
    assert 0 < a["high"] - a["low"] <= 2 / 3 + 1e-9  # game 1's resampled mean moves within [0, 2], a third of it


def test_the_profile_is_the_fraction_of_all_runs_strictly_above_tau():
    scores = [[1.0, 2.0], [3.0, 4.0]]
    assert performance_profile(scores, [0.0, 1.0, 2.0, 3.5, 4.0, 9.0]).tolist() == [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]


def test_the_profiles_band_is_one_below_every_score_zero_above_and_holds_the_profile():
    band = profile_with_band(OUTLIERS, [0.0, 6.5, 1000.0])
    assert band["profile"].tolist() == [1.0, 0.5, 0.0]  # 6 of the 12 scores are above 6.5
    assert band["low"][0] == band["high"][0] == 1.0 and band["low"][2] == band["high"][2] == 0.0
    assert band["low"][1] < 0.5 < band["high"][1]


@pytest.mark.parametrize("bad", [[1.0, 2.0], [[]], [[1.0, np.nan]], np.ones((2, 2, 2))])
def test_a_score_matrix_is_a_finite_runs_by_games_matrix(bad):
    with pytest.raises(ValueError):
        score_matrix(bad)
