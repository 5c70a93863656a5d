"""The samplers of one memory: both implement the `Sampler` protocol; the uniform one draws only
sampleable entries, adds no fields and learns nothing from TD errors; a memory draws through its sampler."""

import inspect

import numpy as np
import pytest

from gorila.components.replay import ReplayMemory
from gorila.components.replay.priorities import PriorityRule
from gorila.components.replay.samplers import PrioritisedSampler, Sampler, UniformSampler
from gorila.components.replay.storage import StreamStorage
from gorila.core import contract_methods


def protocol_methods() -> dict:
    return {name: inspect.signature(f) for name, f in contract_methods(Sampler).items()}


@pytest.mark.parametrize("sampler", [UniformSampler, PrioritisedSampler])
def test_every_sampler_has_the_protocols_methods(sampler):
    assert {"draw", "weigh", "state", "restore"} <= set(protocol_methods())
    for name, signature in protocol_methods().items():
        ours = inspect.signature(getattr(sampler, name))
        assert list(ours.parameters) == list(signature.parameters), name


def filled_storage(entries: int, lasts_every: int = 0) -> StreamStorage:
    """Two streams of `entries` steps each, frames labelled 1000 * stream + step; every
    `lasts_every`-th step an episode's last."""
    storage = StreamStorage(200, 2, (1,), np.float32)
    for j in range(entries):
        last = bool(lasts_every) and j % lasts_every == lasts_every - 1
        storage.add([0, 1], np.array([[j], [1000 + j]], np.float32), [0, 0], [0.0, 0.0], [last, last], [last, last])
    return storage


def test_uniform_draws_only_sampleable_entries_and_adds_no_fields():
    storage = filled_storage(30, lasts_every=5)
    sampler = UniformSampler(storage, stack=1, n_step=2)
    streams, indices, fields = sampler.draw(500, np.random.default_rng(0))
    assert fields == {}
    assert not storage.lasts[streams, storage.slots(indices)].any()  # never a final observation
    assert (indices < storage.counts[streams] - 2).all()  # its 2-step window is written
    mass = sampler.mass()
    assert mass.entries == mass.mass == 2 * (28 - 5)  # 28 candidates per stream, 5 of them lasts (4, 9, .. 24)
    assert sampler.update(streams, indices, np.ones(500)) == 0 and sampler.stats() == {} and sampler.state() == {}


def test_a_uniform_memory_gives_unweighted_batches_and_a_prioritised_one_weighted():
    def memory(priority):
        memory = ReplayMemory(200, 2, (1,), np.float32, seed=3, priority=priority)
        for j in range(20):
            memory.add([0, 1], np.array([[j], [1000 + j]], np.float32), [0, 0], [0.0, 0.0], [False] * 2, [False] * 2)
        return memory

    uniform, prioritised = memory(None).sample(16), memory(PriorityRule()).sample(16)
    assert uniform.weights is None and uniform.streams is None and uniform.priorities is None
    assert prioritised.weights.shape == prioritised.streams.shape == prioritised.indices.shape == (16,)
