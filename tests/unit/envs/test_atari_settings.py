"""Machado et al.'s (2018) settings reach the emulator: sticky actions, the full action set, no life-loss
signal, on ale-py's vector environment and in the envs `make_vector_env_for` builds from a config."""

import numpy as np
import pytest

from gorila.config import build_config
from gorila.envs import EnvError, make_vector_env, make_vector_env_for
from gorila.envs.ale_single import AtariGame

pytestmark = pytest.mark.filterwarnings("error:.*episode_end:UserWarning")


def plays_like_ale(env, sticky: float, seed: int = 11, steps: int = 120) -> bool:
    """Does copy 0 of a full-action-set Atari `env` play as one ALE emulator whose
    repeat_action_probability reads `sticky` does, for the same seed and random actions?"""
    first = env.reset(seed=seed)
    game = AtariGame(env.spec, sticky)
    assert game.ale.getFloat("repeat_action_probability") == pytest.approx(sticky)
    obs = game.reset(seed, noops=int(env._frames[1][0]))  # the vector reset's random no-ops
    same = np.array_equal(obs, first[0])
    rng = np.random.default_rng(0)
    for _ in range(steps):
        action = int(rng.integers(env.num_actions))
        step = env.step(np.full(env.num_envs, action))
        obs, _, over = game.step(action)
        if step.episode_end[0] or over:
            break
        same = same and np.abs(obs.astype(int) - step.obs[0].astype(int)).max() <= 1
    return same


@pytest.mark.parametrize("evaluation", [False, True], ids=["training", "evaluation"])
def test_the_machado_preset_plays_with_sticky_actions_in_training_and_evaluation(evaluation):
    config = build_config("machado", overrides={"env": "Breakout"})
    with make_vector_env_for(config, 1, config.seed, evaluation=evaluation) as env:
        assert env.sticky_actions == 0.25 and env.num_actions == 18
        assert plays_like_ale(env, 0.25)
        assert not plays_like_ale(env, 0.0)  # without sticky actions the games part within steps


def test_the_atari_preset_plays_without_sticky_actions():
    config = build_config("atari", overrides={"env": "Breakout", "full_action_set": True})
    with make_vector_env_for(config, 1, config.seed) as env:
        assert plays_like_ale(env, 0.0) and not plays_like_ale(env, 0.25)


def test_the_full_action_set_has_18_actions_in_ale_id_order():
    with make_vector_env("Pong", 1, full_action_set=True, num_threads=1) as full:
        assert full.num_actions == 18
        assert [action.value for action in full._env.ale.get_action_set()] == list(range(18))
    with make_vector_env("Pong", 1, num_threads=1) as minimal:
        assert minimal.num_actions == 6


@pytest.mark.parametrize("signal", [True, False])
def test_a_life_loss_is_terminal_only_with_the_life_loss_signal(signal):
    """Breakout has 5 lives; random play loses one within a few hundred steps, and the game goes on."""
    with make_vector_env("Breakout", 1, seed=0, num_threads=1, life_loss_signal=signal) as env:
        env.reset()
        rng, lives, terminal_at_loss = np.random.default_rng(0), env._lives[0], None
        for _ in range(1_000):
            step = env.step(rng.integers(env.num_actions, size=1))
            if env._lives[0] < lives:
                terminal_at_loss = bool(step.terminal[0])
                break
            assert not step.terminal[0]
        assert terminal_at_loss is signal and not step.episode_end[0]


def test_a_config_sets_the_training_frame_cap():
    config = build_config("atari", overrides={"env": "Pong", "max_episode_frames": 40})
    with make_vector_env_for(config, 1, 0) as env:
        env.reset()
        ends = [env.step(np.zeros(1, np.int64)).episode_end[0] for _ in range(10)]
    assert ends == [False] * 9 + [True]  # 40 frames = 10 agent steps


@pytest.mark.parametrize(
    "key, value",
    [("sticky_actions", 0.25), ("full_action_set", True), ("life_loss_signal", False), ("max_episode_frames", 1_000)],
)
def test_an_atari_setting_on_another_env_is_refused_by_name(key, value):
    config = build_config("cartpole", overrides={key: value})
    with pytest.raises(EnvError, match=f"^{key}: an Atari setting, and CartPole-v1 is no Atari game"):
        make_vector_env_for(config, 1, 0)
    with make_vector_env_for(build_config("cartpole"), 1, 0) as env:  # the defaults are fine
        assert env.num_actions == 2
