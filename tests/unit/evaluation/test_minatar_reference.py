"""MinAtar's published DQN curves: the points of the files, interpolation between them, names, range."""

from importlib import resources

import numpy as np
import pytest

from gorila.envs import EnvError
from gorila.evaluation.minatar_reference import MINATAR_GAMES, minatar_game, published_dqn_curve, published_dqn_return


def tsv_rows(game):
    """The file's points, parsed here on their own: frames and return, tab-separated, after '#' lines."""
    path = resources.files("gorila.evaluation").joinpath("minatar", f"dqn_{game}.tsv")
    return np.loadtxt(str(path), comments="#", delimiter="\t")


@pytest.mark.parametrize("game", MINATAR_GAMES)
def test_every_point_of_the_file_is_returned_at_its_frames(game):
    rows = tsv_rows(game)
    assert len(rows) >= 90 and (np.diff(rows[:, 0]) > 0).all()
    assert [published_dqn_return(game, int(frames)) for frames in rows[:, 0]] == pytest.approx(list(rows[:, 1]))


@pytest.mark.parametrize("game", MINATAR_GAMES)
def test_between_two_points_the_return_is_on_the_straight_line(game):
    (f0, r0), (f1, r1) = tsv_rows(game)[40:42]
    assert published_dqn_return(game, int(f0 + (f1 - f0) / 4)) == pytest.approx(r0 + (r1 - r0) / 4, abs=1e-3)


@pytest.mark.parametrize("game", MINATAR_GAMES)
def test_none_outside_the_readable_frames(game):
    rows = tsv_rows(game)
    first, last = int(rows[0, 0]), int(rows[-1, 0])
    assert first > 0 and last < 5_000_000
    assert published_dqn_return(game, first - 1) is None
    assert published_dqn_return(game, last + 1) is None
    assert published_dqn_return(game, 0) is None and published_dqn_return(game, 6_000_000) is None


@pytest.mark.parametrize(
    "name, game",
    [
        ("MinAtar/SpaceInvaders-v1", "space_invaders"),
        ("MinAtar/SpaceInvaders-v0", "space_invaders"),
        ("space_invaders", "space_invaders"),
        ("SpaceInvaders", "space_invaders"),
        ("minatar/breakout", "breakout"),
        (" Breakout ", "breakout"),
        ("MinAtar/Seaquest-v0", "seaquest"),
    ],
)
def test_any_spelling_of_a_game_reads_its_curve(name, game):
    assert minatar_game(name) == game
    assert published_dqn_return(name, 300_000) == published_dqn_return(game, 300_000)
    assert (published_dqn_curve(name) == tsv_rows(game)).all()


@pytest.mark.parametrize("name", ["Pong", "MinAtar/Pong-v0", "MinAtar/Breakout-v7"])
def test_a_game_minatar_does_not_have_is_an_error_naming_the_real_ones(name):
    with pytest.raises(EnvError, match="MinAtar has MinAtar/Asterix-v0"):
        published_dqn_return(name, 300_000)


@pytest.mark.parametrize(
    "game, at_500k",
    [("breakout", 8.0), ("space_invaders", 27.0), ("freeway", 34.0), ("asterix", 1.0), ("seaquest", 0.8)],
)
def test_at_500k_frames_the_curves_are_where_the_figure_puts_them(game, at_500k):
    # Checked by eye on the figure's panels: a wrong panel, curve or calibration misses them by far more
    # than 10%. The Freeway line lies flat near 5.6 until it climbs, after 230k frames.
    assert published_dqn_return(game, 500_000) == pytest.approx(at_500k, rel=0.1, abs=0.15)
    if game == "freeway":
        assert published_dqn_return(game, 200_000) == pytest.approx(5.6, abs=0.1)


@pytest.mark.parametrize("game", MINATAR_GAMES)
def test_each_header_names_the_full_action_set_id_of_its_game(game):
    text = resources.files("gorila.evaluation").joinpath("minatar", f"dqn_{game}.tsv").read_text()
    header = " ".join(line[2:] for line in text.splitlines() if line.startswith("# "))
    env_id = f"MinAtar/{game.title().replace('_', '')}-v0"
    assert f"full action set of 6 actions ({env_id};" in header
    assert "cannot be read: frames 0-" in header
