"""A component whose code raises ends the run with the same one-line error on both runtimes, naming
the component by role and index, and leaves no Ray session behind; one that stops answering is
restarted on Ray and the run finishes."""
import os
import sys
import time

import pytest
import ray
import ray.cloudpickle

from gorila.system import builders

from gorila.system import topology
from gorila.components.bundle import Bundle
from gorila.config import build_config
from gorila.records.metrics import read_metrics
from gorila.runtime.calls import WorkerError
from gorila.system.trainer import Trainer

# The bundle below is built inside Ray's worker processes, which cannot import this test module.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def bundle_whose_learner_fails(config, info, index, shards, bounds, calls, saved_replay=None) -> Bundle:
    """A real bundle; bundle 1's learner raises on its first update."""
    bundle = builders.make_bundle(config, info, index, shards, bounds, calls, saved_replay)
    if index == 1:
        def update():
            raise FloatingPointError("loss became nan\nsecond line of detail")
        bundle.learner.update = update
    return bundle


@pytest.mark.parametrize("runtime", ["local", "ray"])
def test_a_failing_component_is_named_in_one_line(runtime, tmp_path, monkeypatch):
    monkeypatch.setattr(topology, "make_bundle", bundle_whose_learner_fails)
    config = build_config(overrides=dict(
        env="CartPole-v1", runtime=runtime, actors=2, learners=2, total_frames=3000, learning_starts=100,
        batch_size=16, hidden_sizes="16", eval_every_frames=0, eval_episodes=2, checkpoint_every_frames=0))
    with pytest.raises(WorkerError) as caught:
        Trainer(config, tmp_path / "run", live_progress=False).run()
    assert str(caught.value) == "bundle 1 failed: FloatingPointError: loss became nan"
    assert not ray.is_initialized()


def bundle_that_hangs_once(config, info, index, shards, bounds, calls, saved_replay=None) -> Bundle:
    """A real bundle; the first process of bundle 0 stops answering after 500 steps of its actor."""
    bundle = builders.make_bundle(config, info, index, shards, bounds, calls, saved_replay)
    marker = os.path.join(config.run_dir, "hung-once")
    if index == 0 and not os.path.exists(marker):
        step, steps = bundle.actor.step, []

        def step_then_hang():
            steps.append(1)
            if len(steps) == 500:
                open(marker, "w").close()
                time.sleep(3600)
            return step()
        bundle.actor.step = step_then_hang
    return bundle


def test_a_component_that_stops_answering_is_restarted_and_the_run_finishes(tmp_path, monkeypatch):
    monkeypatch.setattr(topology, "make_bundle", bundle_that_hangs_once)
    run_dir = tmp_path / "run"
    config = build_config(overrides=dict(
        env="CartPole-v1", runtime="ray", actors=2, learners=2, total_frames=6000, learning_starts=100,
        batch_size=16, hidden_sizes="16", eval_every_frames=0, eval_episodes=2, checkpoint_every_frames=0,
        call_timeout_seconds=5, log_every_seconds=1, run_dir=str(run_dir)))
    result = Trainer(config, run_dir, live_progress=False).run()
    assert (run_dir / "hung-once").exists(), "bundle 0 never hung: the test tested nothing"
    assert result["env_frames"] >= 6000
    faults = [r for r in read_metrics(run_dir) if r["kind"] == "fault"]
    assert [r["component"] for r in faults] == ["bundle 0"]
    assert not ray.is_initialized()
