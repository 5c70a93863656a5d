"""The MinAtar figure: one panel per game, our training return (solid once 100 episodes ended, dotted
before) over the published DQN curve (dashed) up to our last frames, the published value there marked;
a game whose run ended before the published curve begins says so instead."""

import pytest

from gorila.evaluation.minatar_reference import published_dqn_curve, published_dqn_return
from gorila.experiments.report.minatar_plots import (
    END_LABEL,
    OURS_LABEL,
    PARTIAL_LABEL,
    PUBLISHED_LABEL,
    SEED_LABEL,
    minatar_figure,
    minatar_panels,
    minatar_seeds_panel,
    plot_minatar_curves,
)


def train_records(frames, episodes_per_record=30):
    return [
        {
            "kind": "train",
            "env_frames": f,
            "return_mean": f / 100_000,
            "episodes_recent": min(100, episodes_per_record * (i + 1)),
        }
        for i, f in enumerate(frames)
    ]


RUNS = [
    ("MinAtar/Breakout-v0", "MinAtar/Breakout-v0", train_records(range(50_000, 300_001, 50_000))),
    ("MinAtar/Freeway-v0", "MinAtar/Freeway-v0", train_records(range(10_000, 400_001, 10_000))),
    ("seaquest run", "MinAtar/Seaquest-v0", train_records([20_000, 40_000])),
    ("CartPole-v1", "CartPole-v1", train_records([1_000])),
]


def lines_of(axis):
    return {line.get_label(): line for line in axis.get_lines()}


def test_one_panel_per_minatar_game_with_ours_over_the_published_curve():
    figure = minatar_figure(minatar_panels(RUNS))
    axes = [axis for axis in figure.axes if axis.get_visible()]
    assert [axis.get_title().splitlines()[0] for axis in axes] == [
        "MinAtar/Breakout-v0",
        "MinAtar/Freeway-v0",
        "seaquest run",
    ]  # no CartPole panel
    breakout = lines_of(axes[0])
    assert list(breakout[OURS_LABEL].get_xdata()) == [200_000, 250_000, 300_000]  # 100 episodes ended
    assert list(breakout[PARTIAL_LABEL].get_xdata()) == [50_000, 100_000, 150_000, 200_000]  # 30, 60, 90; joined
    published = breakout[PUBLISHED_LABEL]
    assert published.get_linestyle() == "--"
    curve = published_dqn_curve("breakout")
    assert published.get_xdata()[0] == curve[0, 0] and published.get_xdata()[-1] == 300_000
    at_end = published_dqn_return("breakout", 300_000)
    assert published.get_ydata()[-1] == pytest.approx(at_end)
    assert list(breakout[END_LABEL].get_xdata()) == [300_000] and breakout[END_LABEL].get_ydata()[0] == pytest.approx(
        at_end
    )
    assert f"ours 3.00 / published {at_end:.2f} = {3 / at_end:.2f} at 300,000 frames" in axes[0].get_title()
    assert max(lines_of(axes[1])[PUBLISHED_LABEL].get_xdata()) == 400_000


def test_a_run_ending_before_the_published_curve_says_so():
    figure = minatar_figure(minatar_panels(RUNS[2:3]))
    seaquest = figure.axes[0]
    assert set(lines_of(seaquest)) == {PARTIAL_LABEL}  # ours only: nothing published before 68,100
    assert "the published curve begins at 68,100 frames" in " ".join(t.get_text() for t in seaquest.texts)


def test_the_png_is_written_and_nothing_without_a_minatar_run(tmp_path):
    assert plot_minatar_curves(minatar_panels(RUNS), tmp_path / "m.png").stat().st_size > 10_000
    assert plot_minatar_curves(minatar_panels(RUNS[3:]), tmp_path / "none.png") is None
    assert not (tmp_path / "none.png").exists()


def test_a_game_of_two_seeds_draws_each_seed_and_their_mean_ending_where_the_table_does():
    """Seed 0 returns frames / 100k at 100k..300k; seed 1 twice that at 110k..310k (interpolated onto
    seed 0's frames: 2 * f / 100k). The mean: 1.5 * f / 100k, then the mean of the last points, 4.60
    at 305,000 frames (the suite's table takes the same mean)."""
    seed_0 = [
        {"kind": "train", "env_frames": f, "return_mean": f / 100_000, "episodes_recent": 100}
        for f in range(100_000, 300_001, 50_000)
    ]
    seed_1 = [
        {"kind": "train", "env_frames": f + 10_000, "return_mean": 2 * (f + 10_000) / 100_000, "episodes_recent": 100}
        for f in range(100_000, 300_001, 50_000)
    ]
    panel = minatar_seeds_panel("MinAtar/Breakout-v0 (2 seeds)", "MinAtar/Breakout-v0", [seed_0, seed_1])
    assert [f for f, _, _ in panel.ours] == [100_000, 150_000, 200_000, 250_000, 305_000]
    assert [r for _, r, _ in panel.ours][1:4] == pytest.approx([2.25, 3.0, 3.75])
    assert panel.ours[-1][1] == pytest.approx((3.0 + 6.2) / 2)
    assert panel.end == 305_000 and panel.published_at_end == pytest.approx(published_dqn_return("breakout", 305_000))
    assert [len(seed) for seed in panel.seeds] == [5, 5]
    axis = minatar_figure([panel]).axes[0]
    lines = axis.get_lines()
    labels = [line.get_label() for line in lines]
    assert len(lines) == 5 and labels.count(SEED_LABEL) == 1  # two seeds, one legend entry for them
    assert lines_of(axis)[OURS_LABEL].get_xdata()[-1] == 305_000
    assert "ours 4.60 / published" in axis.get_title()
