"""Learning: the cartpole preset reaches a greedy mean >= 475 over 20 episodes within its budget.

The same preset on both runtimes: one bundle in one process, and on an embedded Ray, asynchronous as
in the paper, with processes killed (`kill -9`) in the middle of the run: a bundle and a parameter
shard of a bundled run; an actor and a learner of a run with separate actors and learners. The
parameter shards are held by the learners' processes (the default placement), so each kill of a
learner's process brings its shards back too, with their last state from the driver. Each kill
must cost seconds, not the run: Ray restarts the process, the driver records a fault and carries on.
"""

import pytest

from gorila.config import build_config
from gorila.placement import WorkerId
from gorila.records.metrics import read_metrics
from gorila.system.driver import Driver
from tests.helpers import KILL_EVERY_FRAMES, kill_in_turn

# (overrides, what is killed, the faults the run records). The shards sit beside the learners (the
# default placement): killing a bundle or a learner restarts the shards it holds too, and killing a
# shard kills the bundle that holds it.
SETUPS = {
    "local-1-bundle": (dict(runtime="local"), [], set()),
    "ray-2-bundles-killed": (
        dict(runtime="ray", actors=2, learners=2, param_shards=2),
        [WorkerId("bundle", 1), "shard 0"],
        {"bundle 1", "shard 1", "bundle 0", "shard 0"},
    ),
    "ray-actor-learner-killed": (
        dict(runtime="ray", bundled=False, actors=1, learners=1, param_shards=2),
        [WorkerId("actor", 0), WorkerId("learner", 0)],
        {"actor 0", "learner 0", "shard 0", "shard 1"},
    ),
}
# The kills come every 2,000 frames (KILL_EVERY_FRAMES), from the driver's own loop, just before its
# periodic jobs: all of them land before the first evaluation is due (eval_every_frames 5,000), so that
# no run can be solved, and end, before its last kill. The faults are recorded whenever the run ends
# after them.


@pytest.mark.parametrize("setup", list(SETUPS))
def test_cartpole_preset_solves(setup, tmp_path):
    overrides, victims, expected_faults = SETUPS[setup]
    config = build_config("cartpole", overrides=overrides)
    assert len(victims) * KILL_EVERY_FRAMES < config.eval_every_frames
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    killed = kill_in_turn(trainer, victims)
    result = trainer.run()
    assert killed == [str(v) for v in victims], "the run ended before every victim was killed"
    assert result["env_frames"] <= config.total_frames + 4 * 256 * config.actors
    assert result["best_eval_return_mean"] >= 475.0, result
    assert result["solved_at_frames"] <= config.total_frames
    faults = [r for r in read_metrics(tmp_path / "run") if r["kind"] == "fault"]
    recorded = {r["component"].replace("parameter ", "") for r in faults}
    assert recorded == expected_faults, faults
