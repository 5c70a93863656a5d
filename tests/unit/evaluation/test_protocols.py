"""Each evaluation protocol on real ALE games: no-op counts, frame caps, post-start reward only,
sticky actions and the full action set, and the normalised scores of `gorila evaluate`'s result."""

import json
from pathlib import Path

import numpy as np
import pytest

from gorila.config import ConfigError
from gorila.envs import EnvError, make_vector_env, play_episodes
from gorila.envs.ale_single import AtariGame
from gorila.evaluation import checkpoint_evaluation
from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint
from gorila.evaluation.protocol_env import ProtocolEnv, action_ids
from gorila.evaluation.protocols import PROTOCOLS, trained_protocol
from gorila.evaluation.start_points import StartPoint, save_start_points, start_points_of
from gorila.evaluation.start_recording import play_trajectory, random_policy
from gorila.system import agent_builders as agent_builders
from tests.helpers import fresh_checkpoint


def test_noop_starts_play_at_most_30_frames_before_the_agent():
    with make_vector_env("Pong", 8, evaluation=True) as env:
        env.reset(seed=100)
        frames = env._frames[1]  # the random no-ops, before the first step (no FIRE)
    assert frames.min() >= 0 and frames.max() <= 30 and len(set(frames.tolist())) > 2


def test_noop_episodes_stop_at_the_frame_cap():
    steps = []
    with make_vector_env("Pong", 2, evaluation=True, max_episode_frames=200) as env:

        def act(obs):
            steps.append(len(obs))
            return np.zeros(len(obs), np.int64)

        play_episodes(env, act, 2, seed=0)
    assert len(steps) == 50  # 200 frames = 50 agent steps per episode


@pytest.fixture(scope="module")
def pong_play():
    """A random Pong game of 600 agent steps and the reward of each of its steps."""
    game = AtariGame("Pong", max_frames=2_400)
    trajectory = play_trajectory(game, random_policy(game, 1), seed=2)
    game.reset(trajectory.seed)
    rewards = np.array([game.step(action)[1] for action in trajectory.actions])
    return trajectory, rewards


def start_before_second_point(trajectory, rewards) -> StartPoint:
    """A start point 5 steps before the second point of the game: the first was scored before it."""
    scored = np.flatnonzero(rewards)
    assert len(scored) >= 2
    return start_points_of(trajectory, AtariGame("Pong"))[scored[1] - 5 - 1]


def test_human_starts_count_only_the_reward_after_the_start_point(pong_play):
    trajectory, rewards = pong_play
    start = start_before_second_point(trajectory, rewards)
    k = len(start.actions)
    assert start.reward_before == rewards[:k].sum() != 0
    env = ProtocolEnv(AtariGame("Pong").spec, 1, PROTOCOLS["human-starts"], 6, start.frames + 40, [start])
    network_action = {ale: i for i, ale in enumerate(env.action_ids)}
    env.reset(0)
    total, steps = 0.0, 0
    for action in trajectory.actions[k : k + 10]:
        step = env.step(np.array([network_action[action]]))
        total, steps = total + step.reward[0], steps + 1
        if step.episode_end[0]:
            break
    assert steps == 10  # the 108,000-frame cap counts the start's frames: here F + 40
    assert total == rewards[k : k + 10].sum() != 0 and total != rewards[: k + 10].sum()


def test_human_starts_need_start_points():
    with pytest.raises(EnvError, match="needs start points"):
        ProtocolEnv(AtariGame("Pong").spec, 1, PROTOCOLS["human-starts"], 6)


def test_machado_sticky_actions_full_action_set_no_life_loss_signal_and_frame_cap():
    rules = PROTOCOLS["machado"]
    assert (rules.sticky_actions, rules.full_action_set, rules.life_loss_signal, rules.max_frames) == (
        0.25,
        True,
        False,
        108_000,
    )
    env = ProtocolEnv(AtariGame("Breakout").spec, 2, rules, 4, max_frames=400)
    assert env._games[0].ale.getFloat("repeat_action_probability") == 0.25
    assert env.action_ids.tolist() == [0, 1, 3, 4]  # the network's minimal actions as ALE ids
    env.reset(seed=0)
    rng, steps, lives, differed = np.random.default_rng(0), 0, [], False
    while True:
        step = env.step(rng.integers(4) * np.ones(2, np.int64))  # the same actions in both copies
        steps, differed = steps + 1, differed or not np.array_equal(step.obs[0], step.obs[1])
        lives.append(env._games[0].lives)
        if step.episode_end.any():
            break
    assert steps == 100 and step.episode_end.all()  # 400 frames, not a life loss, ended it
    assert min(lives) < 5 and differed  # lives were lost; sticky actions diverge


def test_a_network_with_another_action_count_does_not_fit():
    game = AtariGame("Pong")
    assert action_ids(game, 18) == list(range(18))
    with pytest.raises(EnvError, match="a network with 4 actions does not fit ALE/Pong-v5"):
        action_ids(game, 4)


@pytest.fixture(scope="module")
def pong_run(tmp_path_factory):
    return fresh_checkpoint(tmp_path_factory.mktemp("pong") / "run")


def test_machado_result_normalised_against_the_null_op_columns(pong_run):
    result = evaluate_checkpoint(pong_run, episodes=2, protocol="machado", max_frames=400)
    mean = result["return_mean"]
    assert result["returns"] and mean == np.mean(result["returns"])
    # Pong, null-op columns: random -20.7, human 9.3, DQN 18.9
    assert result["human_normalised"] == pytest.approx(100 * (mean + 20.7) / 30.0)
    assert result["dqn_normalised"] == pytest.approx(100 * (mean + 20.7) / 39.6)
    assert result["settings"]["sticky_actions"] == 0.25 and result["settings"]["max_frames"] == 400
    assert result["seeds"] == [{"seed": 10**9}, {"seed": 10**9 + 1}] and result["epsilon"] == 0.05


def test_human_starts_result_normalised_against_the_human_start_columns(pong_run, pong_play, tmp_path):
    trajectory, rewards = pong_play
    start = start_before_second_point(trajectory, rewards)
    save_start_points(tmp_path / "starts", "Pong", [start], "random")
    result = evaluate_checkpoint(
        pong_run, protocol="human-starts", starts=str(tmp_path / "starts"), max_frames=start.frames + 200
    )
    mean = result["return_mean"]
    assert result["episodes"] == 1
    assert result["seeds"] == [{"start_point": 0, "seed": trajectory.seed, "start_frames": start.frames}]
    # Pong, human-start columns: random -18.0, human 15.5, DQN 16.2
    assert result["human_normalised"] == pytest.approx(100 * (mean + 18.0) / 33.5)
    assert result["dqn_normalised"] == pytest.approx(100 * (mean + 18.0) / 34.2)
    assert result["settings"]["start_points"]["source"] == "random"
    assert result["start_points_source"] == "random-play"
    assert result["normalised"]["warning"].startswith("start points not recorded from human play (random-play)")


@pytest.mark.parametrize(
    "source, recorded_from, said",
    [
        ("human", "", "human"),
        (None, "", "unknown"),
        ("checkpoint", "run/checkpoints/best.pt", "agent:run/checkpoints/best.pt"),
    ],
)
def test_human_starts_result_says_who_played_to_its_start_points(
    source, recorded_from, said, pong_run, pong_play, tmp_path
):
    trajectory, rewards = pong_play
    start = start_before_second_point(trajectory, rewards)
    save_start_points(tmp_path / "starts", "Pong", [start], source or "random", recorded_from)
    if source is None:  # a file that does not say, as a hand-made one may not
        data = json.loads((tmp_path / "starts").read_text())
        del data["source"]
        (tmp_path / "starts").write_text(json.dumps(data))
    result = evaluate_checkpoint(
        pong_run, protocol="human-starts", starts=str(tmp_path / "starts"), max_frames=start.frames + 40
    )
    assert result["start_points_source"] == said
    assert (result["normalised"]["warning"] is None) == (said == "human")


def test_other_protocols_have_no_start_points_to_say_of(pong_run):
    result = evaluate_checkpoint(pong_run, episodes=1, protocol="machado", max_frames=40)
    assert "start_points_source" not in result and result["normalised"]["warning"] is None


def test_zero_episodes_a_seed_out_of_range_or_a_start_past_the_cap_is_refused(pong_run, pong_play, tmp_path):
    with pytest.raises(ConfigError, match="--episodes must be >= 1"):
        evaluate_checkpoint(pong_run, episodes=0, protocol="machado")
    with pytest.raises(ConfigError, match=r"--seed must lie in \[0, 1073741823\], got 2000000000"):
        evaluate_checkpoint(pong_run, episodes=1, protocol="noop", seed=2_000_000_000)
    trajectory, rewards = pong_play
    start = start_before_second_point(trajectory, rewards)
    save_start_points(tmp_path / "starts", "Pong", [start], "random")
    with pytest.raises(ConfigError, match="not before the cap"):
        evaluate_checkpoint(pong_run, protocol="human-starts", starts=str(tmp_path / "starts"), max_frames=start.frames)


def test_non_atari_runs_have_only_plain_evaluation(tmp_path):
    run = fresh_checkpoint(Path(tmp_path) / "run", env="CartPole-v1", preset="cartpole")
    assert evaluate_checkpoint(run, episodes=2, protocol="noop")["normalised"] is None
    with pytest.raises(EnvError, match="--protocol machado is for Atari games"):
        evaluate_checkpoint(run, episodes=2, protocol="machado")


def test_fewer_episodes_than_start_points_spread_over_them_more_go_round(pong_play):
    trajectory, _ = pong_play
    starts = start_points_of(trajectory, AtariGame("Pong"))[:5]
    spread = ProtocolEnv(AtariGame("Pong").spec, 1, PROTOCOLS["human-starts"], 6, starts=starts, episodes=2)
    assert [spread.start_of(e) for e in range(2)] == [0, 2]
    rounds = ProtocolEnv(AtariGame("Pong").spec, 1, PROTOCOLS["human-starts"], 6, starts=starts, episodes=7)
    assert [rounds.start_of(e) for e in range(7)] == [0, 1, 2, 3, 4, 0, 1]


@pytest.fixture(scope="module")
def machado_run(tmp_path_factory):
    """A fresh agent of `--preset machado` on Pong: 18 actions, where Pong's minimal set has 6."""
    return fresh_checkpoint(tmp_path_factory.mktemp("machado") / "run", preset="machado")


def test_a_run_trained_under_machado_is_played_as_trained(machado_run, monkeypatch):
    emulators = []

    class Recorded(ProtocolEnv):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            emulators.extend(game.ale.getFloat("repeat_action_probability") for game in self._games)

    monkeypatch.setattr(checkpoint_evaluation, "ProtocolEnv", Recorded)
    result = evaluate_checkpoint(machado_run, episodes=2, protocol="machado", max_frames=200)
    settings = result["settings"]
    assert emulators == [0.25, 0.25] and settings["sticky_actions"] == 0.25
    assert settings["network_actions"] == 18 and settings["network_action_ale_ids"] == list(range(18))
    assert settings["full_action_set"] is True and result["episodes"] == 2


def test_null_op_starts_of_a_machado_run_drop_sticky_actions_and_keep_its_actions(machado_run, monkeypatch):
    envs = []
    original = agent_builders.make_vector_env_for
    monkeypatch.setattr(
        agent_builders,
        "make_vector_env_for",
        lambda *args, **kwargs: envs.append(original(*args, **kwargs)) or envs[-1],
    )
    result = evaluate_checkpoint(machado_run, episodes=1, protocol="noop", max_frames=200)
    assert (envs[0].sticky_actions, envs[0].num_actions) == (0.0, 18)
    assert result["settings"]["sticky_actions"] == 0.0 and result["settings"]["full_action_set"] is True


def test_a_run_is_evaluated_as_it_was_trained_unless_a_protocol_is_named(machado_run, pong_run):
    assert evaluate_checkpoint(machado_run, episodes=1, protocol=None, max_frames=200)["protocol"] == "machado"
    assert evaluate_checkpoint(pong_run, episodes=1, protocol=None, max_frames=200)["protocol"] == "noop"
    assert trained_protocol(0.25, atari=False) == "noop"
