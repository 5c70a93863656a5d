"""Learning: the cartpole preset reaches a greedy mean >= 475 over 20 episodes within its budget.

The same preset on both runtimes: one bundle in one process, and two bundles sharing a two-shard
parameter server on an embedded Ray (asynchronous, as in the paper).
"""

import pytest

from gorila.config import build_config
from gorila.trainer import Trainer

SETUPS = {
    "local-1-bundle": dict(runtime="local"),
    "ray-2-bundles": dict(runtime="ray", actors=2, learners=2, param_shards=2),
}


@pytest.mark.parametrize("setup", list(SETUPS))
def test_cartpole_preset_solves(setup, tmp_path):
    config = build_config("cartpole", overrides=SETUPS[setup])
    result = Trainer(config, tmp_path / "run", live_progress=False).run()
    assert result["env_frames"] <= config.total_frames + 4 * 256 * config.actors
    assert result["best_eval_return_mean"] >= 475.0, result
    assert result["solved_at_frames"] <= config.total_frames
