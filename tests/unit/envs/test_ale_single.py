"""The single-game evaluation path sees what the network was trained on: its observations match those
of ale-py's vector environment (what actors train on) for the same actions, on real ALE games."""

import numpy as np
import pytest

from gorila.envs import EnvError, make_vector_env
from gorila.envs.ale_single import AtariGame, area_weights, shrink


def test_area_weights_average_each_output_cell_over_its_share_of_the_source():
    weights = area_weights(210, 84)  # 2.5 source rows per output row
    assert np.allclose(weights.sum(axis=1), 1.0)
    assert np.allclose(weights[0, :3], [0.4, 0.4, 0.2]) and weights[0, 3:].sum() == 0
    assert np.allclose(weights[1, 2:5], [0.2, 0.4, 0.4])


def test_shrink_keeps_a_flat_frame_flat_and_averages_stripes():
    assert (shrink(np.full((210, 160), 77, np.uint8)) == 77).all()
    stripes = np.zeros((210, 160), np.uint8)
    stripes[::5] = 250  # rows 0, 5, 10...: 1 of every 5 rows
    assert (shrink(stripes)[::2] == 100).all()  # output row 0 covers rows 0-2.5: 0.4 * 250


@pytest.mark.parametrize("game", ["Pong", "Breakout"])
def test_observations_match_the_vector_env_for_the_same_actions(game):
    vector = make_vector_env(game, 1, evaluation=True, fire_reset=True)  # FIRE on: both paths press it
    first = vector.reset(seed=11)
    start_frames = int(vector._frames[1][0])  # FIRE (1 frame) and the random no-ops of the reset
    single = AtariGame(game)
    fire = 1 in single.minimal_actions
    obs = single.reset(11, fire=True, noops=start_frames - fire)
    assert np.array_equal(obs, first[0])
    rng = np.random.default_rng(0)
    for _ in range(150):
        action = int(rng.integers(vector.num_actions))
        step = vector.step(np.array([action]))
        obs, reward, over = single.step(single.minimal_actions[action])
        if step.episode_end[0] or over:
            break
        assert np.abs(obs.astype(int) - step.obs[0].astype(int)).max() <= 1
        assert (obs != step.obs[0]).mean() < 0.001
        assert reward == step.reward[0]
    vector.close()


def test_frame_cap_truncates_inside_a_step():
    game = AtariGame("Pong", max_frames=10)
    game.reset(0)
    game.step(0), game.step(0)
    assert game.frames == 8 and not game.truncated
    game.step(0)
    assert game.frames == 10 and game.truncated


def test_a_gymnasium_env_has_no_single_game_path():
    with pytest.raises(EnvError, match="not an Atari game"):
        AtariGame("CartPole-v1")
