"""The suite's bar chart: drawn from the rows that have our normalised score, nothing without any; a
game whose published human score is at or below random play's is hatched and marked, not a bare bar."""

from gorila.experiments.report import plots
from gorila.experiments.report.plots import plot_normalised_bars

ROW = {"random_noop": -20.7, "human_noop": 9.3, "dqn_noop": 18.9, "gorila_noop": None}
# Video Pinball, human starts: random 20,452, human 15,641.1, DQN 20,228.1, Gorila 112,093.37.
PINBALL = {
    "game": "video_pinball",
    "ours_human_starts": 112_093.37,
    "human_normalised_human_starts": -1_904.8,
    "random_human_starts": 20_452.0,
    "human_human_starts": 15_641.1,
    "dqn_human_starts": 20_228.1,
    "gorila_human_starts": 112_093.37,
}
PONG = {
    "game": "pong",
    "ours_human_starts": 16.7,
    "human_normalised_human_starts": 103.6,
    "random_human_starts": -18.0,
    "human_human_starts": 15.5,
    "dqn_human_starts": 16.2,
    "gorila_human_starts": 16.71,
}


def test_bars_are_drawn_for_the_games_that_have_our_score(tmp_path):
    rows = [
        {**ROW, "game": "Pong", "ours_noop": 15.0, "human_normalised_noop": 119.0},
        {**ROW, "game": "Breakout", "ours_noop": None, "human_normalised_noop": None},
    ]
    path = plot_normalised_bars(rows, tmp_path / "bars.png")
    assert path == tmp_path / "bars.png" and path.stat().st_size > 1_000


def test_no_game_with_our_score_draws_nothing(tmp_path):
    rows = [{**ROW, "game": "Pong", "ours_noop": None, "human_normalised_noop": None}]
    assert plot_normalised_bars(rows, tmp_path / "x.png") is None
    assert not (tmp_path / "x.png").exists()


def test_a_human_score_below_random_plays_is_hatched_marked_and_explained(monkeypatch, tmp_path):
    drawn, save = {}, plots.save_figure

    def keep(plt, figure, path, bottom=0.0):
        drawn["figure"] = figure
        return save(plt, figure, path, bottom)

    monkeypatch.setattr(plots, "save_figure", keep)
    plot_normalised_bars([PINBALL, PONG], tmp_path / "hs.png", "human-starts")
    axis = drawn["figure"].axes[0]
    assert [label.get_text() for label in axis.get_yticklabels()] == ["video_pinball†", "pong"]
    pinball, pong = sorted(axis.patches, key=lambda bar: bar.get_y())
    assert pinball.get_hatch() == "//" and not pong.get_hatch()
    assert pinball.get_facecolor() == pong.get_facecolor()  # both at human level as the paper counts
    notes = " ".join(text.get_text() for text in drawn["figure"].texts)
    assert "at or below random play's: video_pinball (human starts)" in notes
