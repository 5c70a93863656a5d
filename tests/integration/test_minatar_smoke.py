"""MinAtar smoke test: the minatar preset trains two thousand frames of each of MinAtar's five games
end to end on the local runtime (their -v0 ids, the full action set of the published curves), keeping
frames boolean Cx10x10 from the environment through replay to the network, then evaluates and
checkpoints."""

import numpy as np
import pytest

from gorila.agent.networks import MinAtarCNN
from gorila.config import build_config
from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint
from gorila.placement import WorkerId
from gorila.records.metrics import read_metrics
from gorila.system.driver import Driver

CHANNELS = {
    "MinAtar/Asterix-v0": 4,
    "MinAtar/Breakout-v0": 4,
    "MinAtar/Freeway-v0": 7,
    "MinAtar/Seaquest-v0": 10,
    "MinAtar/SpaceInvaders-v0": 6,
}  # one boolean 10x10 plane per kind of object


@pytest.mark.parametrize("env", list(CHANNELS))
def test_minatar_preset_trains_checkpoints_and_evaluates(env, tmp_path):
    config = build_config(
        "minatar",
        overrides=dict(
            env=env,
            runtime="local",
            total_frames=2000,
            learning_starts=500,
            eval_episodes=2,
            eval_every_frames=0,
            checkpoint_every_frames=0,
            log_every_seconds=5,
        ),
    )
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    result = trainer.run()

    assert trainer.info.obs_shape == (CHANNELS[env], 10, 10) and trainer.info.obs_dtype == "bool"
    assert trainer.info.num_actions == 6  # -v0: MinAtar's full action set
    bundle = trainer.system.workers[WorkerId("bundle", 0)]
    assert isinstance(bundle.learner.online, MinAtarCNN)
    assert bundle.actor.obs.dtype == np.bool_ and bundle.actor.obs.shape[1:] == (CHANNELS[env], 10, 10)
    batch = bundle.replay.sample(8)
    assert batch.obs.dtype == np.bool_ and batch.obs.shape == (8, CHANNELS[env], 10, 10)
    stats = bundle.replay.stats()
    assert stats["nbytes"] / stats["capacity"] < 100 * CHANNELS[env] + 100  # one-byte cells and the bookkeeping

    warmup = config.learning_starts  # 500 agent steps before the first update
    assert result["env_frames"] >= 2000 and result["updates"] >= (2000 - warmup) // config.update_every - 2
    records = read_metrics(tmp_path / "run")
    ended = [r for r in records if r["kind"] == "train" and r.get("return_mean") is not None]
    assert ended or env == "MinAtar/Freeway-v0"  # a Freeway episode lasts 2,500 frames
    assert any("eval_return_mean" in r for r in records)
    evaluation = evaluate_checkpoint(tmp_path / "run", episodes=2)
    assert evaluation["episodes"] == 2 and np.isfinite(evaluation["return_mean"])
