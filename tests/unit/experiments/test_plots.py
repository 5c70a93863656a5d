"""The suite's bar chart: drawn from the rows that have our normalised score, nothing without any."""
from gorila.experiments.report.plots import plot_normalised_bars

ROW = {"random_noop": -20.7, "human_noop": 9.3, "dqn_noop": 18.9, "gorila_noop": None}


def test_bars_are_drawn_for_the_games_that_have_our_score(tmp_path):
    rows = [{**ROW, "game": "Pong", "human_normalised_noop": 120.0},
            {**ROW, "game": "Breakout", "human_normalised_noop": None}]
    path = plot_normalised_bars(rows, tmp_path / "bars.png")
    assert path == tmp_path / "bars.png" and path.stat().st_size > 1_000


def test_no_game_with_our_score_draws_nothing(tmp_path):
    assert plot_normalised_bars([{**ROW, "game": "Pong", "human_normalised_noop": None}], tmp_path / "x.png") is None
    assert not (tmp_path / "x.png").exists()
