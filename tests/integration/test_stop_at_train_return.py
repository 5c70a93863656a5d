"""A run that stops when its training mean reaches a score (`stop_at_train_return`), as
benchmarks/scaling.py measures frames to a score: it stops well inside its budget, and its metrics hold
the record that reached the score."""

import gorila
from gorila.records.metrics import read_metrics

SCORE = 40.0  # CartPole's random policy averages about 22


def test_a_run_stops_once_the_mean_of_its_last_100_training_episodes_reaches_the_score(tmp_path):
    config = gorila.make_config("cartpole", runtime="local", total_frames=200_000, stop_at_train_return=SCORE)
    result = gorila.train(config, tmp_path / "run")
    records = read_metrics(result.run_dir)
    summary = next(r for r in records if r["kind"] == "summary")
    assert summary["stop_reason"] == "reached" and result.stop_reason == "reached"
    assert summary["env_frames"] < config.total_frames / 2
    reached = [
        r for r in records if r["kind"] == "train" and r.get("episodes_recent") == 100 and r["return_mean"] >= SCORE
    ]
    assert reached and reached[0]["env_frames"] <= summary["env_frames"]
    before = [r for r in records if r["kind"] == "train" and r["env_frames"] < reached[0]["env_frames"]]
    assert all(r.get("episodes_recent", 0) < 100 or r["return_mean"] < SCORE for r in before)
