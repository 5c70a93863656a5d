"""Normalised scores against hand-computed numbers from the published table."""

import pytest

from gorila.envs import EnvError, resolve_env
from gorila.evaluation.scores import ATARI_GAMES, normalised_scores, reference_protocol, reference_scores, suite_summary


def test_noop_pong_against_hand_computed_numbers():
    # Pong, null-op columns: random -20.7, human 9.3, DQN 18.9.
    row = normalised_scores("Pong", 0.0, "noop")
    assert row["human_normalised"] == pytest.approx(100 * 20.7 / 30.0)
    assert row["dqn_normalised"] == pytest.approx(100 * 20.7 / 39.6)


def test_human_starts_use_their_own_columns():
    # Pong, human-start columns: random -18.0, human 15.5, DQN 16.2.
    row = normalised_scores("pong", 15.5, "human-starts")
    assert row["human_normalised"] == pytest.approx(100.0)
    assert row["dqn_normalised"] == pytest.approx(100 * 33.5 / 34.2)


def test_machado_is_compared_with_the_noop_columns():
    assert reference_protocol("machado") == "noop"
    assert normalised_scores("Breakout", 1.7, "machado")["human_normalised"] == pytest.approx(0.0)
    with pytest.raises(ValueError):
        reference_protocol("sticky")


def test_suite_counts_as_the_paper_does():
    # Breakout: random 1.7, human 31.8, DQN 401.2; Pong: human 9.3, DQN 18.9.
    summary = suite_summary({"breakout": 402.0, "pong": 0.0}, "noop")
    assert summary["games_above_dqn"] == 1
    assert summary["games_at_human_level"] == 1  # Breakout far above human, Pong at 69%
    breakout = 100 * (402.0 - 1.7) / (31.8 - 1.7)
    assert summary["median_human_normalised"] == pytest.approx((breakout + 69.0) / 2)


def test_no_dqn_scale_where_dqn_scored_as_random_play():
    # Montezuma's Revenge, null-op columns: random 0.0, human 4366.7, DQN 0.
    row = normalised_scores("montezuma_revenge", 100.0, "noop")
    assert row["dqn_normalised"] is None
    assert row["human_normalised"] == pytest.approx(100 * 100.0 / 4366.7)


def test_all_paper_games_resolve_to_atari():
    assert len(ATARI_GAMES) == 49 and len(set(ATARI_GAMES)) == 49
    for game in ATARI_GAMES:
        spec = resolve_env(game)
        assert spec.kind == "atari" and spec.game == game, game
        assert resolve_env(spec.id) == spec


def test_reference_scores():
    scores = reference_scores("SpaceInvaders")
    assert scores["random"] == 148.0 and scores["human"] == 1652.3
    assert set(scores) >= {"random", "human", "dqn_nature", "gorila"}
    with pytest.raises(EnvError):
        reference_scores("Tetris")  # an ale-py game, but not one of the paper's 49
