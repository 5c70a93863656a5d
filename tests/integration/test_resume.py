"""Ctrl-C, then `--resume`: the run ends with the counters it would have had without the stop.

A real SIGINT is sent to this process in the middle of a local-runtime CartPole run (what Ctrl-C
does); the run writes its final checkpoint, and a second Driver resumes from it to the full budget.
Frames, updates, each actor's step count (and so its epsilon), the replay contents (`save_replay`)
and the metrics continue; nothing starts again from zero.
"""

import os
import signal

import numpy as np
import pytest

from gorila.config import build_config
from gorila.placement import WorkerId
from gorila.records.checkpoints import load_latest_good
from gorila.records.metrics import read_metrics
from gorila.system.driver import Driver
from tests.helpers import from_the_driver

TOTAL = 12_000
CONFIG = dict(
    env="CartPole-v1",
    runtime="local",
    total_frames=TOTAL,
    learning_starts=500,
    batch_size=32,
    hidden_sizes="32",
    eval_every_frames=4_000,
    eval_episodes=2,
    checkpoint_every_frames=0,
    replay_capacity=20_000,
    envs_per_actor=2,
    epsilon_decay_steps=20_000,
    save_replay=True,
    log_every_seconds=0.5,
    seed=5,
)


def interrupt_at(trainer: Driver, frames: int) -> None:
    """Ctrl-C (a real SIGINT to this process) once the run has `frames`, sent from its driver's loop."""
    from_the_driver(
        trainer, lambda: trainer.info.frames(trainer.steps) >= frames, lambda: os.kill(os.getpid(), signal.SIGINT)
    )


def bundle(trainer: Driver):
    return trainer.system.workers[WorkerId("bundle", 0)]


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path):
    config = build_config(overrides=CONFIG)
    whole = Driver(config, tmp_path / "whole", live_progress=False)
    expected = whole.run()

    first = Driver(config, tmp_path / "run", live_progress=False)
    interrupt_at(first, TOTAL // 2)
    stopped = first.run()
    assert stopped["interrupted"] and TOTAL // 2 <= stopped["env_frames"] < TOTAL
    replay_at_stop = len(bundle(first).replay)

    payload = load_latest_good(tmp_path / "run")
    assert payload["env_frames"] == stopped["env_frames"]
    second = Driver(config, tmp_path / "run", live_progress=False, resume=payload)
    assert len(bundle(second).replay) == replay_at_stop  # the experience came back
    assert bundle(second).actor.steps == first.info.steps(stopped["env_frames"])
    # the training return goes on averaging the same last episodes
    assert list(second.records.window.returns) == list(first.records.window.returns) != []
    resumed = second.run()

    # a work item's last vector step may overshoot its 256 agent steps by up to envs_per_actor - 1 (a
    # copy that only resets takes none), so the budget is met and passed by at most that much per item
    items = -(-TOTAL // 256)
    assert TOTAL <= resumed["env_frames"] <= items * 256 + items * (config.envs_per_actor - 1)
    assert bundle(second).actor.epsilon == pytest.approx(bundle(whole).actor.epsilon, abs=1e-3)
    # Updates follow the frames (one per update_every steps once the replay is warm); a resumed
    # bundle only loses the fraction of an update it had credited when it stopped.
    assert abs(resumed["updates"] - expected["updates"]) <= 2
    trains = [r for r in read_metrics(tmp_path / "run") if r["kind"] == "train"]
    frames, times = [r["env_frames"] for r in trains], [r["wall_time"] for r in trains]
    assert frames == sorted(frames) and times == sorted(times) and frames[-1] == resumed["env_frames"]


def test_a_run_of_actors_and_learners_resumes(tmp_path):
    """Outside bundles the learners have no step count to continue from; the actors do."""
    config = build_config(overrides={**CONFIG, "bundled": False, "actors": 1, "learners": 2})
    first = Driver(config, tmp_path / "run", live_progress=False)
    interrupt_at(first, TOTAL // 2)
    stopped = first.run()
    assert stopped["interrupted"]
    second = Driver(config, tmp_path / "run", live_progress=False, resume=load_latest_good(tmp_path / "run"))
    assert second.system.workers[WorkerId("actor", 0)].steps == first.info.steps(stopped["env_frames"])
    assert second.run()["env_frames"] >= TOTAL


def test_a_prioritised_replay_resumes_with_its_priorities(tmp_path):
    config = build_config(overrides={**CONFIG, "bundled": False, "replay": "global", "prioritised": True})
    first = Driver(config, tmp_path / "run", live_progress=False)
    interrupt_at(first, TOTAL // 2)
    assert first.run()["interrupted"]
    second = Driver(config, tmp_path / "run", live_progress=False, resume=load_latest_good(tmp_path / "run"))
    before, after = first.system.replays[0].sampler, second.system.replays[0].sampler
    assert before.updated > 0 and after.max_priority == before.max_priority
    np.testing.assert_array_equal(after.tree.leaves, before.tree.leaves)
    assert after.tree.total() == pytest.approx(before.tree.total())


def test_bundles_on_ray_save_every_replay_whether_or_not_they_hold_a_parameter_shard(tmp_path):
    """On Ray the first bundle holds the shard and the second does not: two host classes, whose
    save_replay each runs its own component's (one class name for both had mixed up their methods)."""
    overrides = {**CONFIG, "runtime": "ray", "actors": 2, "learners": 2, "torch_threads": 1}
    overrides.update(total_frames=6_000, checkpoint_every_frames=2_000, eval_every_frames=0)
    result = Driver(build_config(overrides=overrides), tmp_path / "run", live_progress=False).run()
    assert result["env_frames"] >= 6_000
    replays = sorted(path.name for path in (tmp_path / "run" / "checkpoints" / "replay").iterdir())
    assert replays == ["replay-0.npz", "replay-1.npz"]
