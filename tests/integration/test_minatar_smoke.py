"""MinAtar smoke test: the minatar preset trains a few hundred frames of MinAtar Breakout end to end on
the local runtime, keeping frames boolean Cx10x10 from the environment through replay to the network,
then evaluates and checkpoints."""
import numpy as np

from gorila.config import build_config
from gorila.contracts import WorkerId
from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint
from gorila.records.metrics import read_metrics
from gorila.agent.networks import MinAtarCNN
from gorila.system.trainer import Trainer


def test_minatar_preset_trains_checkpoints_and_evaluates(tmp_path):
    config = build_config("minatar", overrides=dict(
        runtime="local", total_frames=600, learning_starts=200, eval_episodes=2, eval_every_frames=0,
        checkpoint_every_frames=0, log_every_seconds=5))
    trainer = Trainer(config, tmp_path / "run", live_progress=False)
    result = trainer.run()

    assert trainer.info.obs_shape == (4, 10, 10) and trainer.info.obs_dtype == "bool"
    bundle = trainer.system.workers[WorkerId("bundle", 0)]
    assert isinstance(bundle.learner.online, MinAtarCNN)
    assert bundle.actor.obs.dtype == np.bool_ and bundle.actor.obs.shape[1:] == (4, 10, 10)
    batch = bundle.replay.sample(8)
    assert batch.obs.dtype == np.bool_ and batch.obs.shape == (8, 4, 10, 10)
    stats = bundle.replay.stats()
    assert stats["nbytes"] / stats["capacity"] < 500          # 400 one-byte cells and the bookkeeping

    warmup = config.learning_starts                            # 200 agent steps before the first update
    assert result["env_frames"] >= 600 and result["updates"] >= (600 - warmup) // config.update_every - 2
    records = read_metrics(tmp_path / "run")
    assert any(r["kind"] == "train" and r.get("return_mean") is not None for r in records)
    assert any("eval_return_mean" in r for r in records)
    evaluation = evaluate_checkpoint(tmp_path / "run", episodes=2)
    assert evaluation["eval_episodes"] == 2 and np.isfinite(evaluation["eval_return_mean"])
