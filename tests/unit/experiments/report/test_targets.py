"""Time to a target from a hand-made metrics.jsonl: the training mean's and the DQN-protocol
evaluation's, each at its own frames and wall seconds, and "not reached" where neither got there."""

import json

import yaml

from gorila.cli import main
from gorila.experiments.report.summary import load_run, summary_lines_of
from gorila.experiments.report.targets import evaluation_first, is_dqn_protocol, run_target, training_first

# the atari-fast preset's evaluation settings: DQN's protocol
PONG = dict(env="Pong", eval_epsilon=0.05, eval_episodes=30, eval_max_frames=18_000, sticky_actions=0.0)


def train(frames, wall, mean, episodes=100):
    return dict(
        kind="train",
        env_frames=frames,
        wall_time=wall,
        updates=frames // 40,
        return_mean=mean,
        episodes_recent=episodes,
    )


def evaluation(frames, wall, mean, confirmation=False):
    return dict(kind="eval", env_frames=frames, wall_time=wall, eval_return_mean=mean, confirmation=confirmation)


RECORDS = [
    train(1_000_000, 1_200.0, 19.0, episodes=40),  # a mean of 40 episodes: not yet a training mean
    train(2_000_000, 2_400.0, -3.0),
    evaluation(2_000_000, 2_450.0, 5.0),
    train(3_000_000, 3_600.0, 18.4),
    evaluation(3_000_000, 3_650.0, 16.3),
    evaluation(3_000_000, 3_900.0, 18.5, confirmation=True),  # 100 more episodes of the same parameters
    train(4_000_000, 4_800.0, 19.1),
    evaluation(4_000_000, 4_831.0, 18.2),
]


def run_dir(tmp_path, records, config=PONG):
    (tmp_path / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    return tmp_path


def test_both_times_come_from_their_own_records():
    assert training_first(RECORDS, 18).as_dict() == {"frames": 3_000_000, "wall_s": 3_600.0}
    assert evaluation_first(RECORDS, 18).as_dict() == {"frames": 4_000_000, "wall_s": 4_831.0}
    assert training_first(RECORDS, 20) is None and evaluation_first(RECORDS, 20) is None


def test_the_report_prints_both_times_under_their_names(tmp_path):
    lines = summary_lines_of(load_run(run_dir(tmp_path, RECORDS)))
    assert (
        "training mean first >= 18: at 3,000,000 frames, 3,600 s (60 min) "
        "(last 100 training episodes, at the actors' exploration rates)"
    ) in lines
    assert (
        "DQN-protocol evaluation first >= 18: at 4,000,000 frames, 4,831 s (81 min) (null-op starts, epsilon 0.05, "
        "30 episodes, at most 18,000 frames; 3 evaluations during training, best 18.2 at 4,000,000 frames)"
    ) in lines

    assert not any(line.startswith("resumed") for line in lines)


def test_the_report_names_each_resume_and_what_its_replay_held(tmp_path):
    resume = {"kind": "resume", "wall_time": 2_500.0, "env_frames": 2_000_000, "replay": "replay: empty (...)"}
    lines = summary_lines_of(load_run(run_dir(tmp_path, [*RECORDS[:3], resume, *RECORDS[3:]])))
    assert "resumed at 2,000,000 frames (2500 s from launch); replay: empty (...)" in lines


def test_a_target_neither_reached_reads_not_reached_from_the_command_line(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    run = run_dir(tmp_path / "run", RECORDS)
    assert main(["report", str(run), "--target", "20"]) == 0
    out = capsys.readouterr().out
    assert "training mean first >= 20: not reached" in out
    assert "DQN-protocol evaluation first >= 20: not reached" in out
    assert "Traceback" not in out


def test_evaluations_other_than_dqns_are_not_called_dqn_protocol(tmp_path):
    greedy = {**PONG, "eval_epsilon": 0.0}
    sticky = {**PONG, "sticky_actions": 0.25, "eval_max_frames": 108_000}
    cartpole = dict(env="CartPole-v1", eval_epsilon=0.0, eval_episodes=20, stop_at_return=475.0)
    assert is_dqn_protocol(PONG) and not any(map(is_dqn_protocol, (greedy, sticky, cartpole)))
    lines = summary_lines_of(load_run(run_dir(tmp_path, RECORDS, sticky)))
    assert any(line.startswith("evaluation first >= 18: at 4,000,000 frames") for line in lines)
    assert any("sticky actions 0.25, epsilon 0.05" in line for line in lines)


def test_the_target_is_the_flag_else_the_runs_stop_at_return_else_the_games():
    assert run_target(PONG) == 18.0
    assert run_target(PONG, 10) == 10.0
    assert run_target({**PONG, "stop_at_return": 20.0}) == 20.0
    assert run_target({"env": "Breakout"}) is None
