"""MinAtar plumbing: names, channels-first boolean frames, MinAtar's DQN network, replay of bool frames."""

import gymnasium
import numpy as np
import pytest
import torch

from gorila.agent.networks import MinAtarCNN, NatureCNN, build_q_network, num_parameters
from gorila.components.replay import ReplayMemory
from gorila.components.replay.storage import StreamStorage
from gorila.config import build_config
from gorila.envs import EnvError, EnvSpec, make_vector_env, resolve_env
from gorila.envs.registry import register_minatar


@pytest.mark.parametrize(
    "name", ["MinAtar/Breakout-v1", "MinAtar/Breakout", "minatar/breakout", " MinAtar/Breakout-v1"]
)
def test_breakout_spellings_resolve_to_the_newest_version(name):
    assert resolve_env(name) == EnvSpec(kind="minatar", id="MinAtar/Breakout-v1", game="breakout")


def test_full_action_set_version_and_two_word_games():
    assert resolve_env("MinAtar/SpaceInvaders-v0") == EnvSpec("minatar", "MinAtar/SpaceInvaders-v0", "space_invaders")
    assert resolve_env("MinAtar/space_invaders").id == "MinAtar/SpaceInvaders-v1"


@pytest.mark.parametrize("name", ["MinAtar/Pong", "MinAtar/Breakout-v7"])
def test_unknown_minatar_names_list_the_real_ones(name):
    with pytest.raises(EnvError, match=r"MinAtar has MinAtar/Asterix-v0, .*MinAtar/SpaceInvaders-v1$"):
        resolve_env(name)


@pytest.mark.parametrize(
    "env_id, channels, actions",
    [("MinAtar/Breakout-v1", 4, 3), ("MinAtar/Breakout-v0", 4, 6), ("MinAtar/SpaceInvaders-v1", 6, 4)],
)
def test_frames_are_channels_first_booleans(env_id, channels, actions):
    with make_vector_env(env_id, 3, seed=1) as env:
        obs = env.reset()
        assert env.obs_shape == env.frame_shape == (channels, 10, 10) and env.stack == 1
        assert env.obs_dtype == np.bool_ and obs.dtype == np.bool_ and obs.shape == (3, channels, 10, 10)
        assert env.num_actions == actions and env.frames_per_step == 1
        step = env.step(np.zeros(3, np.int64))
        assert step.obs.dtype == np.bool_ and step.obs.shape == (3, channels, 10, 10)


STEPS_TO_SEE_AN_END = {"Breakout": 300, "Freeway": 2600}  # a Freeway episode lasts 2,500 frames


@pytest.mark.filterwarnings("ignore:.*is out of date:DeprecationWarning")
@pytest.mark.parametrize(
    "env_id",
    [
        f"MinAtar/{game}-v{version}"
        for version in "01"
        for game in ("Asterix", "Breakout", "Freeway", "Seaquest", "SpaceInvaders")
    ],
)
def test_steps_match_minatar_own_gymnasium_env_frame_for_frame(env_id):
    """Same seed, same actions: each frame is MinAtar's frame with the channel axis moved first,
    and episode ends fall where MinAtar's terminations do (sticky actions included), in every game
    and both action sets."""
    rng = np.random.default_rng(0)
    register_minatar()
    with make_vector_env(env_id, 1, seed=7) as env:
        reference = gymnasium.make(env_id)
        assert env.num_actions == reference.action_space.n
        ours, theirs = env.reset(), reference.reset(seed=7)[0]
        ends = 0
        for _ in range(STEPS_TO_SEE_AN_END.get(env_id[8:-3], 1000)):
            assert np.array_equal(ours[0], np.moveaxis(theirs, -1, 0))
            action = int(rng.integers(env.num_actions))
            step = env.step(np.array([action]))
            theirs, reward, terminated, _, _ = reference.step(action)
            assert step.reward[0] == reward and step.terminal[0] == terminated == step.episode_end[0]
            if terminated:
                ends += 1
                step = env.step(np.array([0]))  # the autoreset step: no transition
                assert step.reward[0] == 0 and not step.episode_end[0]
                theirs = reference.reset()[0]
            ours = step.obs
        assert ends >= 1


def test_episode_cap_truncates_without_terminal():
    with make_vector_env("MinAtar/Freeway-v1", 2, seed=0, max_episode_frames=5) as env:
        env.reset()
        steps = [env.step(np.zeros(2, np.int64)) for _ in range(5)]
        assert not any(s.episode_end.any() for s in steps[:4])
        assert steps[4].episode_end.all() and not steps[4].terminal.any()


def test_minatar_cnn_shape_and_size():
    """One 3x3 convolution of 16 filters (10x10 -> 8x8), 128 hidden units, one Q-value per action."""
    network = MinAtarCNN((4, 10, 10), 6)
    expected = (4 * 9 * 16 + 16) + (16 * 8 * 8 * 128 + 128) + (128 * 6 + 6)
    assert num_parameters(network) == expected
    frames = torch.from_numpy(np.random.default_rng(0).random((5, 4, 10, 10)) < 0.2)
    q_values = network(frames)
    assert q_values.shape == (5, 6) and q_values.dtype == torch.float32
    assert torch.equal(q_values, network(frames.to(torch.uint8)))  # bool and 0/1 bytes are the same frames
    assert torch.equal(q_values, network(frames.float()))  # and the same as 0.0/1.0 cells


def test_auto_network_by_frame_size():
    assert isinstance(build_q_network("auto", (4, 10, 10), 6), MinAtarCNN)
    assert isinstance(build_q_network("auto", (4, 84, 84), 6), NatureCNN)
    with pytest.raises(ValueError, match="minatar_cnn network needs image observations"):
        build_q_network("minatar_cnn", (8,), 2)


def test_replay_keeps_bool_frames_one_byte_a_cell():
    memory = ReplayMemory(100, 1, (4, 10, 10), "bool", seed=0, min_size=1)
    frames = np.random.default_rng(1).random((20, 1, 4, 10, 10)) < 0.3
    for t, frame in enumerate(frames):
        memory.add([0], frame, [t % 3], [1.0], [False], [t == 19])
    batch = memory.sample(8)
    assert batch.obs.dtype == np.bool_ and batch.obs.shape == (8, 4, 10, 10)
    for obs, next_obs, action in zip(batch.obs, batch.next_obs, batch.actions):
        index = next(i for i, f in enumerate(frames) if np.array_equal(f[0], obs))
        assert np.array_equal(frames[index + 1, 0], next_obs) and action == index % 3
    assert memory.storage.frames.dtype == np.bool_
    assert StreamStorage.bytes_per_entry((4, 10, 10), "bool") == 400 + 4 + 4 + 1 + 1 + 8


def test_minatar_preset_is_minatar_dqn_on_its_network():
    config = build_config("minatar")
    assert config.env.startswith("MinAtar/") and config.network == "minatar_cnn"
    assert (config.replay_capacity, config.gamma, config.optimizer) == (100_000, 0.99, "rmsprop")
