"""Prioritised replay: draw frequencies, importance-sampling weights, several memories as one, stale
updates, the tree kept in step with the rings, and saving.

Frames hold a label (stream * 1000 + entry number) so a draw names the entry it read.
"""

import numpy as np
import pytest
from scipy import stats

from gorila.components.replay import ReplayMemory
from gorila.components.replay.priorities import PriorityRule, annealed_beta, importance_weights, priority
from gorila.components.replay.routing import ReplaySampler
from gorila.runtime.calls import DirectCalls

RULE = PriorityRule(alpha=1.0, beta=0.5, eps=1e-9, beta_steps=10**9)


def labelled_memory(
    streams: list[int],
    entries: int,
    capacity: int | None = None,
    seed: int = 0,
    rule: PriorityRule = RULE,
    stack: int = 1,
    n_step: int = 1,
) -> ReplayMemory:
    """A prioritised memory whose stream k holds `entries` plain steps of global stream `streams[k]`."""
    capacity = capacity or 4 * entries * len(streams)
    memory = ReplayMemory(
        capacity, len(streams), (1,), np.float32, stack=stack, n_step=n_step, seed=seed, min_size=1, priority=rule
    )
    for j in range(entries):
        labels = np.array([[1000 * s + j] for s in streams], np.float32)
        k = len(streams)
        memory.add(range(k), labels, [0] * k, [0.0] * k, [False] * k, [False] * k)
    return memory


def set_priorities(memory, td_of_label) -> None:
    """Give every sampleable entry of `memory` the TD error `td_of_label(label)`."""
    for stream in range(memory.storage.num_streams):
        indices = np.arange(memory.storage.counts[stream] - memory.n_step)
        labels = memory.storage.frames[stream, memory.storage.slots(indices), 0]
        memory.update_priorities(np.full(indices.size, stream), indices, td_of_label(labels))


def labels(batch) -> np.ndarray:
    return batch.obs[:, 0].astype(int)


def test_priority_and_weights_by_hand():
    np.testing.assert_allclose(priority([-2.0, 0.0, 3.0], alpha=0.5, eps=1.0), [3**0.5, 1.0, 2.0], rtol=1e-6)
    # N = 4 entries of mass 10 in all; P = p / 10; w = (4 P)^-0.5, then over the batch's largest (p = 1)
    weights = importance_weights(np.array([1.0, 4.0, 2.0]), total=10.0, count=4, beta=0.5)
    raw = np.array([0.4**-0.5, 1.6**-0.5, 0.8**-0.5])
    np.testing.assert_allclose(weights, raw / raw[0], rtol=1e-6)
    np.testing.assert_allclose(weights, [1.0, 0.5, 0.70710678], rtol=1e-6)
    rule = PriorityRule(beta=0.4, beta_steps=1000)
    assert [annealed_beta(n, rule) for n in (0, 500, 1000, 5000)] == pytest.approx([0.4, 0.7, 1.0, 1.0])


def test_draw_frequencies_are_proportional_to_priorities():
    memory = labelled_memory([0], 21)  # 20 sampleable entries (n = 1: not the newest)
    set_priorities(memory, lambda label: label + 1.0)  # p_j = j + 1
    drawn = np.concatenate([labels(memory.sample(500)) for _ in range(40)])
    observed = np.bincount(drawn, minlength=20)
    expected = np.arange(1, 21) / np.arange(1, 21).sum() * drawn.size
    assert observed.size == 20
    assert stats.chisquare(observed, expected).pvalue > 0.01


def test_a_memory_weights_its_draws_against_its_own_mass_and_count():
    memory = labelled_memory([0], 5)  # entries 0..3 sampleable
    set_priorities(memory, lambda label: np.array([1.0, 2.0, 3.0, 4.0])[label.astype(int)])
    batch = memory.sample(64)
    p = labels(batch) + 1.0
    raw = (4 * p / 10.0) ** -0.5
    np.testing.assert_allclose(batch.weights, raw / raw.max(), rtol=1e-5)
    np.testing.assert_allclose(batch.priorities, p, rtol=1e-6)
    assert batch.indices.tolist() == labels(batch).tolist() and (batch.streams == 0).all()


def test_new_entries_get_the_largest_priority_so_far():
    memory = labelled_memory([0], 5)
    memory.update_priorities([0, 0], [1, 2], [7.0, 0.5])
    write_more(memory, 1)  # entry 4's window is complete now
    assert memory.sampler.tree.leaves[:5].tolist() == pytest.approx([1.0, 7.0, 0.5, 1.0, 7.0])


def write_more(memory, steps: int, stream: int = 0) -> None:
    for _ in range(steps):
        memory.add([stream], np.zeros((1, 1), np.float32), [0], [0.0], [False], [False])


def test_several_memories_draw_as_one_memory_holding_everything():
    td = lambda label: (label % 1000) % 7 + 1.0 + 3.0 * (label >= 2000)
    whole = labelled_memory([0, 1, 2], 30)
    shards = [labelled_memory([0, 1], 30), labelled_memory([2], 30)]
    for memory in (whole, *shards):
        set_priorities(memory, td)
    sampler = ReplaySampler(shards, DirectCalls(), seed=0)
    drawn, batches = [], []
    for _ in range(300):
        batch = sampler.sample(64)
        drawn.append(labels(batch))
        batches.append(batch)
    drawn = np.concatenate(drawn)
    # the same mass and the same count as the single memory, hence the same P(i) and weights
    assert sum(m.mass for m in sampler.masses) == pytest.approx(whole.mass().mass)
    assert sum(m.entries for m in sampler.masses) == whole.mass().entries == 87
    entries = np.array([1000 * s + j for s in range(3) for j in range(29)])
    observed = np.array([(drawn == e).sum() for e in entries])
    expected = td(entries) / td(entries).sum() * drawn.size
    assert stats.chisquare(observed, expected).pvalue > 0.01
    batch = batches[-1]
    p = td(labels(batch)).astype(np.float64)
    raw = (87 * p / whole.mass().mass) ** -0.5
    np.testing.assert_allclose(batch.weights, raw / raw.max(), rtol=1e-5)


def test_priorities_go_back_to_the_memory_that_gave_each_entry():
    shards = [labelled_memory([0], 10), labelled_memory([1], 10)]
    sampler = ReplaySampler(shards, DirectCalls(), seed=1)
    batch = sampler.sample(32)
    sampler.update_priorities(batch.streams, batch.indices, np.full(32, 5.0))
    for shard, stream in zip(shards, (0, 1)):
        mine = labels(batch) // 1000 == stream
        leaves = shard.sampler.tree.leaves
        assert np.allclose(leaves[np.unique(batch.indices[mine])], 5.0)
        assert np.isclose(leaves[:9], 5.0).sum() == np.unique(batch.indices[mine]).size


def test_updates_of_entries_overwritten_since_they_were_drawn_are_ignored():
    memory = labelled_memory([0], 12, capacity=16)  # entries 0..10 sampleable
    memory.update_priorities([0], [3], [9.0])
    write_more(memory, 6)  # count 18: entries 0 and 1 were overwritten
    before = memory.sampler.tree.leaves.copy()
    memory.update_priorities([0, 0, 0], [0, 1, 17], [50.0, 50.0, 50.0])  # gone, gone, not yet sampleable
    np.testing.assert_array_equal(memory.sampler.tree.leaves, before)
    assert memory.sampler.max_priority == 9.0
    memory.update_priorities([0], [3], [2.0])  # still held: updated
    assert memory.sampler.tree.leaves[3] == pytest.approx(2.0)


@pytest.mark.parametrize("stack, n_step", [(1, 1), (4, 3), (2, 5)])
def test_the_tree_holds_a_priority_exactly_for_the_sampleable_entries(stack, n_step):
    memory = ReplayMemory(60, 3, (1,), np.float32, stack=stack, n_step=n_step, seed=0, priority=RULE)
    rng = np.random.default_rng(stack)
    for _ in range(150):  # wraps each 20-entry ring several times
        ids = rng.permutation(3)[: rng.integers(1, 4)]
        lasts = rng.random(ids.size) < 0.1
        memory.add(ids, np.zeros((ids.size, 1), np.float32), [0] * ids.size, [0.0] * ids.size, lasts, lasts)
        positive = memory.sampler.tree.leaves[:60] > 0
        np.testing.assert_array_equal(positive, memory.sampler.sampleable_mask())
    assert memory.mass().entries == memory.sampler.sampleable_mask().sum()
    assert memory.mass().mass == pytest.approx(memory.mass().entries)  # all at the initial priority 1


def test_save_and_load_keep_priorities_and_continue_the_same_draws(tmp_path):
    memory = labelled_memory([0, 1], 40, seed=3)
    set_priorities(memory, lambda label: label % 13 + 0.5)
    memory.save_replay(str(tmp_path / "replay.npz"))
    loaded = labelled_memory([0, 1], 0, capacity=memory.storage.capacity, seed=99)
    loaded.load_replay(str(tmp_path / "replay.npz"))
    np.testing.assert_array_equal(loaded.sampler.tree.leaves, memory.sampler.tree.leaves)
    np.testing.assert_allclose(loaded.sampler.tree.nodes, memory.sampler.tree.nodes)
    assert loaded.sampler.max_priority == memory.sampler.max_priority == 12.5
    a, b = memory.sample(64), loaded.sample(64)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.weights, b.weights)


def test_a_uniform_save_loads_into_a_prioritised_memory_at_priority_one(tmp_path):
    uniform = ReplayMemory(40, 1, (1,), np.float32, seed=0)
    write_more(uniform, 10)
    uniform.save_replay(str(tmp_path / "uniform.npz"))
    memory = labelled_memory([0], 0, capacity=40)
    memory.load_replay(str(tmp_path / "uniform.npz"))
    assert memory.mass().entries == 9 and memory.mass().mass == 9.0


def test_an_atari_sized_prioritised_memory_still_costs_about_one_frame_per_entry():
    memory = ReplayMemory(10_000, 4, (84, 84), np.uint8, stack=4, n_step=3, priority=PriorityRule())
    per_entry = memory.stats()["nbytes"] / memory.stats()["capacity"]
    assert 7056 <= per_entry <= 7120  # a float32 leaf and float64 sums: about 20 bytes more
