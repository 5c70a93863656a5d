"""Start points: recorded, saved, loaded and replayed on real ALE games, the same state every time."""

import json

import numpy as np
import pytest

from gorila.envs.ale_single import AtariGame
from gorila.evaluation.start_points import (
    StartPointError,
    Trajectory,
    load_start_points,
    load_trajectory,
    sample_start_points,
    save_start_points,
    start_points_source,
)
from gorila.evaluation.start_recording import play_trajectory, random_policy, record_starts


@pytest.fixture(scope="module")
def pong_trajectory():
    game = AtariGame("Pong", max_frames=1_600)  # 400 agent steps: two points conceded
    return play_trajectory(game, random_policy(game, 3), seed=5)


def test_record_load_replay_gives_the_recorded_state_and_observation(pong_trajectory, tmp_path):
    game = AtariGame("Pong")
    points = sample_start_points([pong_trajectory], game, 4, seed=1)
    observations = [point.play(game) for point in points]
    save_start_points(tmp_path / "starts", "Pong", points, "random")
    loaded, header = load_start_points(tmp_path / "starts", "ALE/Pong-v5")
    assert loaded == points and header["source"] == "random" and header["game"] == "pong"
    assert header["ale_py"] and header["frameskip"] == 4 and header["sticky_actions"] == 0.0
    fresh = AtariGame("Pong")
    for point, obs in zip(loaded, observations):
        assert np.array_equal(point.play(fresh), obs)
        assert fresh.state_digest() == point.digest and fresh.frames == point.frames == 4 * len(point.actions)


def test_start_points_lie_before_the_game_ends_and_record_the_reward_before_them(pong_trajectory):
    game = AtariGame("Pong")
    points = sample_start_points([pong_trajectory], game, 50, seed=0)
    assert (
        len(pong_trajectory.actions) == 400
        and len(points) == 50
        and all(len(p.actions) < len(pong_trajectory.actions) for p in points)
    )
    assert [p.frames for p in points] == sorted(p.frames for p in points)
    assert min(p.reward_before for p in points) < 0  # random Pong concedes points


def test_a_replay_that_reaches_another_state_is_refused(pong_trajectory):
    game = AtariGame("Pong")
    point = sample_start_points([pong_trajectory], game, 1, seed=0)[0]
    assert len(point.actions) > 10
    other = type(point)(point.seed, point.actions[:-10], point.frames - 40, point.reward_before, point.digest)
    with pytest.raises(StartPointError, match="does not replay to its recorded state"):
        other.play(game)


def test_a_file_for_another_game_or_damaged_is_one_clear_error(pong_trajectory, tmp_path):
    game = AtariGame("Pong")
    save_start_points(tmp_path / "pong.json", "Pong", sample_start_points([pong_trajectory], game, 2), "random")
    with pytest.raises(StartPointError, match="start points of 'pong', not of 'breakout'"):
        load_start_points(tmp_path / "pong.json", "Breakout")
    data = json.loads((tmp_path / "pong.json").read_text())
    data["start_points"][0]["frames"] += 4
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(StartPointError, match="damaged"):
        load_start_points(tmp_path / "bad.json", "Pong")
    (tmp_path / "cut.json").write_text((tmp_path / "pong.json").read_text()[:100])
    with pytest.raises(StartPointError, match="not a start-point file"):
        load_start_points(tmp_path / "cut.json", "Pong")


def test_trajectory_files_in_json_and_npz(tmp_path):
    (tmp_path / "t.json").write_text(json.dumps({"game": "Pong", "seed": 4, "actions": [0, 1, 3, 3]}))
    np.savez(tmp_path / "t.npz", actions=np.array([0, 11, 12]), seed=np.array(9))
    assert load_trajectory(tmp_path / "t.json", "Pong") == Trajectory(4, (0, 1, 3, 3))
    assert load_trajectory(tmp_path / "t.npz", "Pong") == Trajectory(9, (0, 11, 12))
    with pytest.raises(StartPointError, match="trajectory of 'Pong', not of 'Breakout'"):
        load_trajectory(tmp_path / "t.json", "Breakout")
    (tmp_path / "b.json").write_text(json.dumps({"actions": [0, 18]}))
    with pytest.raises(StartPointError, match="ALE action ids 0-17"):
        load_trajectory(tmp_path / "b.json", "Pong")


def test_record_starts_from_a_trajectory_says_so(pong_trajectory, tmp_path):
    (tmp_path / "t.json").write_text(
        json.dumps({"game": "pong", "seed": pong_trajectory.seed, "actions": list(pong_trajectory.actions)})
    )
    done = record_starts("Pong", str(tmp_path / "s.json"), 3, trajectories=[str(tmp_path / "t.json")])
    points, header = load_start_points(tmp_path / "s.json", "Pong")
    assert done["source"] == header["source"] == "trajectory" and len(points) == 3
    assert all(p.actions == pong_trajectory.actions[: len(p.actions)] for p in points)
    assert start_points_source(header) == f"trajectory:{tmp_path / 't.json'}"  # who played it is not said


def test_trajectories_that_say_they_are_human_play_make_human_start_points(pong_trajectory, tmp_path):
    played = {"game": "pong", "seed": pong_trajectory.seed, "actions": list(pong_trajectory.actions)}
    (tmp_path / "h.json").write_text(json.dumps({**played, "played_by": "human"}))
    np.savez(
        tmp_path / "h.npz",
        actions=np.array(played["actions"]),
        seed=np.array(played["seed"]),
        played_by=np.array("human"),
    )
    (tmp_path / "t.json").write_text(json.dumps(played))
    assert load_trajectory(tmp_path / "h.npz", "Pong").played_by == "human"
    record_starts(
        "Pong", str(tmp_path / "h.json.starts"), 2, trajectories=[str(tmp_path / "h.json"), str(tmp_path / "h.npz")]
    )
    assert start_points_source(load_start_points(tmp_path / "h.json.starts", "Pong")[1]) == "human"
    record_starts("Pong", str(tmp_path / "mixed"), 2, trajectories=[str(tmp_path / "h.json"), str(tmp_path / "t.json")])
    assert start_points_source(load_start_points(tmp_path / "mixed", "Pong")[1]).startswith("trajectory:")


def test_the_source_of_start_points_read_back_from_their_file(pong_trajectory, tmp_path):
    points = sample_start_points([pong_trajectory], AtariGame("Pong"), 1)
    for source, recorded_from, said in (
        ("random", "", "random-play"),
        ("human", "", "human"),
        ("checkpoint", "run/checkpoints/best.pt", "agent:run/checkpoints/best.pt"),
    ):
        save_start_points(tmp_path / "s.json", "Pong", points, source, recorded_from)
        assert start_points_source(load_start_points(tmp_path / "s.json", "Pong")[1]) == said
    data = json.loads((tmp_path / "s.json").read_text())
    del data["source"]  # a file that does not say who played
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert start_points_source(load_start_points(tmp_path / "old.json", "Pong")[1]) == "unknown"
    assert start_points_source(None) == start_points_source({"source": "alien"}) == "unknown"


def test_human_play_without_a_display_is_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(StartPointError, match="needs a display"):
        record_starts("Pong", str(tmp_path / "s.json"), 3, human=True)


def test_record_starts_from_a_checkpoint_says_so_and_refuses_another_games(monkeypatch, tmp_path):
    import gorila.evaluation.start_recording as recording
    from tests.helpers import fresh_checkpoint

    run = fresh_checkpoint(tmp_path / "run")
    monkeypatch.setattr(recording, "RECORD_MAX_FRAMES", 400)  # a short game keeps the test short
    done = record_starts("Pong", str(tmp_path / "s.json"), 2, checkpoint=str(run))
    points, header = load_start_points(tmp_path / "s.json", "Pong")
    assert done["source"] == header["source"] == "checkpoint" and header["recorded_from"].endswith(".pt")
    assert start_points_source(header) == f"agent:{header['recorded_from']}"
    assert len(points) == 2 and max(p.frames for p in points) < 400
    with pytest.raises(StartPointError, match="trained on ALE/Pong-v5, not on ALE/Breakout-v5"):
        record_starts("Breakout", str(tmp_path / "b.json"), 2, checkpoint=str(run))


def test_play_recorded_on_gymnasiums_env_replays_to_the_same_state():
    """What `--human` records (Gymnasium's env under its play utility) replays on `AtariGame`."""
    from gorila.evaluation.start_recording import gymnasium_game

    game = AtariGame("Pong")
    env = gymnasium_game(game)
    env.reset(seed=3)
    seed = env.unwrapped.ale.getInt("random_seed")
    actions = np.random.default_rng(0).integers(18, size=150).tolist()
    for action in actions:
        env.step(action)
    game.reset(seed)
    for action in actions:
        game.step(action)
    assert np.array_equal(game.ale.getRAM(), env.unwrapped.ale.getRAM())
    assert np.array_equal(game.ale.getScreen(), env.unwrapped.ale.getScreen())
    env.close()
