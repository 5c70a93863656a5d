"""A component that fails mid-run ends the run with the same one-line error on both runtimes, naming
the component by role and index, and leaves no Ray session behind."""
import sys

import pytest
import ray
import ray.cloudpickle

from gorila import factory, topology
from gorila.bundle import Bundle
from gorila.config import build_config
from gorila.runtime.calls import WorkerError
from gorila.trainer import Trainer

# The bundle below is built inside Ray's worker processes, which cannot import this test module.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def bundle_whose_learner_fails(config, info, index, shards, bounds, calls, saved_replay=None) -> Bundle:
    """A real bundle; bundle 1's learner raises on its first update."""
    bundle = factory.make_bundle(config, info, index, shards, bounds, calls, saved_replay)
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
