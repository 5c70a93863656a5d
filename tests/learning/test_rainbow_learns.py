"""Learning: Rainbow (algorithm rainbow, the rainbow-cartpole preset) reaches a greedy mean >= 475 over
20 episodes within its budget, as one bundle in one process and distributed as DQN is: two bundles on
an embedded Ray sharing theta+ through two parameter shards. (Its learner outside bundles, on any
replay, is built and run in tests/unit/algorithms/test_rainbow.py.)"""

import pytest

from gorila.config import build_config
from gorila.system.driver import Driver

SETUPS = {
    "local-1-bundle": dict(runtime="local"),
    "ray-2-bundles": dict(runtime="ray", actors=2, learners=2, param_shards=2, torch_threads=1),
}


@pytest.mark.parametrize("setup", list(SETUPS))
def test_rainbow_cartpole_preset_solves(setup, tmp_path):
    config = build_config("rainbow-cartpole", overrides=SETUPS[setup])
    result = Driver(config, tmp_path / "run", live_progress=False).run()
    assert result["best_eval_return_mean"] >= 475.0, result
    assert result["solved_at_frames"] <= config.total_frames
