"""Atari smoke test: the atari preset trains a few thousand frames on two real ALE games, keeps
observations uint8 4x84x84, stores about one frame per transition, checkpoints and evaluates."""

import numpy as np
import pytest

from gorila.config import build_config
from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint
from gorila.placement import WorkerId
from gorila.records.metrics import read_metrics
from gorila.system.driver import Driver


@pytest.mark.parametrize("game", ["Breakout", "Pong"])
def test_atari_preset_trains_checkpoints_and_evaluates(game, tmp_path):
    config = build_config(
        "atari",
        overrides=dict(
            env=game,
            runtime="local",
            total_frames=6_000,
            replay_capacity=5_000,
            learning_starts=500,
            eval_episodes=1,
            eval_max_frames=2_000,
            eval_every_frames=0,
            checkpoint_every_frames=0,
            log_every_seconds=5,
        ),
    )
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    result = trainer.run()

    assert trainer.info.obs_shape == (4, 84, 84) and trainer.info.obs_dtype == "uint8"
    bundle = trainer.system.workers[WorkerId("bundle", 0)]
    assert bundle.actor.obs.dtype == np.uint8 and bundle.actor.obs.shape[1:] == (4, 84, 84)
    batch = bundle.replay.sample(8)
    assert batch.obs.dtype == np.uint8 and batch.obs.shape == (8, 4, 84, 84)
    stats = bundle.replay.stats()
    assert 84 * 84 <= stats["nbytes"] / stats["capacity"] < 84 * 84 * 1.05  # one frame, not a stack

    assert result["env_frames"] >= 6_000 and result["updates"] > 0
    records = read_metrics(tmp_path / "run")
    assert all("wall_time" in r and "env_frames" in r for r in records)
    assert any("eval_return_mean" in r for r in records)
    evaluation = evaluate_checkpoint(tmp_path / "run", episodes=1, max_frames=2_000)
    assert evaluation["episodes"] == 1 and np.isfinite(evaluation["return_mean"])
