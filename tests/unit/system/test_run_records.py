"""What the driver writes while a run goes on (`gorila.system.run_records.RunRecords`), read back from
the run directory: config.yaml, and metrics.jsonl's fault, train, eval and summary records with their
frames (agent steps times frames per step), and the payload every checkpoint holds."""

import time

import torch

from gorila.config import build_config
from gorila.config.parsing import load_yaml
from gorila.messages import Report
from gorila.records.metrics import read_metrics
from gorila.system.planning import plan_run
from gorila.system.run_records import RunRecords
from tests.helpers import ATARI_INFO

CONFIG = build_config(overrides=dict(env="Pong", total_frames=40_000))


def opened(run_dir) -> RunRecords:
    """The records of a run that started 100 s ago."""
    return RunRecords(CONFIG, plan_run(CONFIG, ATARI_INFO), run_dir, start=time.time() - 100, live_progress=False)


def test_the_run_directory_gets_its_config_and_a_record_of_each_kind_at_its_frames(tmp_path, capsys):
    records = opened(tmp_path)
    assert load_yaml(tmp_path / "config.yaml") == CONFIG.to_dict()
    records.fault(10, "learner 0", "learner 0 died (ConnectionError)", 1)
    window = records.window
    window.add(Report(steps=90, updates=8, episode_returns=(1.0, 3.0), loss_sum=2.0, loss_count=8, dropped_outliers=1))
    window.add(Report(steps=10, updates=2, episode_returns=(5.0,), loss_sum=3.0, loss_count=2))
    records.train(100, {"updates": 10, "replay_size": None}, last_eval=None, warmup=0)
    result = dict(eval_return_mean=2.0, eval_return_std=1.0, eval_episodes=3)
    records.evaluation(100, result, updates=10, confirming=False)
    records.metrics.close()
    fault, train, evaluation = read_metrics(tmp_path)
    assert fault["kind"] == "fault" and fault["env_frames"] == 40  # 4 frames per agent step
    assert (fault["component"], fault["reason"], fault["failures"]) == (
        "learner 0",
        "learner 0 died (ConnectionError)",
        1,
    )
    assert train["kind"] == "train" and train["env_frames"] == 400
    assert (train["updates"], train["return_mean"], train["loss"], train["dropped_outliers"]) == (10, 3.0, 0.5, 1)
    assert "replay_size" not in train and "q_mean" not in train  # nothing to say: not recorded as null
    assert evaluation["kind"] == "eval" and evaluation["env_frames"] == 400
    assert (evaluation["updates"], evaluation["confirmation"], evaluation["eval_return_mean"]) == (10, False, 2.0)
    assert "eval at 400 frames: mean 2.0 +/- 1.0 over 3 episodes" in capsys.readouterr().out


def test_the_summary_adds_the_runs_dropped_gradients_and_wall_time_and_the_payload_all_a_checkpoint_needs(tmp_path):
    records = opened(tmp_path)
    records.window.add(Report(dropped_outliers=2))
    records.window.close(1.0, 4)  # a train record's window: the run's count stays
    records.window.add(Report(dropped_outliers=1))
    summary = records.summary({"env_frames": 400, "checkpoint": "ckpt.pt", "best_eval_return_mean": None})
    assert summary["dropped_outliers"] == 3 and summary["checkpoint"] == "ckpt.pt" and 100 <= summary["wall_time"] < 160
    records.metrics.close()
    [written] = read_metrics(tmp_path)
    assert written["kind"] == "summary" and written["dropped_outliers"] == 3 and "checkpoint" not in written
    payload = records.payload([0.5, 1.5], 12, shards=[])
    assert payload["config"] == CONFIG.to_dict() and payload["env_info"]["frames_per_step"] == 4
    assert payload["updates"] == 12 and payload["shards"] == [] and 100 <= payload["wall_time"] < 160
    assert torch.equal(payload["theta"], torch.tensor([0.5, 1.5]))
