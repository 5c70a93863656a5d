"""The sum tree, by hand: sums after writes, prefix-sum search at and around the boundaries, padding."""

import numpy as np
import pytest

from gorila.components.replay.sum_tree import SumTree


def test_sums_follow_every_write_and_rewrite():
    tree = SumTree(5)  # padded to 8 leaves: inner nodes 1..7
    assert tree.size == 8 and tree.depth == 3 and tree.total() == 0
    tree.set([0, 1, 2, 3, 4], [1.0, 2.0, 3.0, 4.0, 5.0])
    assert tree.total() == 15
    assert tree.nodes[1:8].tolist() == [15, 10, 5, 3, 7, 5, 0]
    tree.set([3, 3, 0], [0.5, 0.5, 0.0])  # a repeated leaf with the same value is harmless
    assert tree.nodes[1:8].tolist() == [10.5, 5.5, 5, 2, 3.5, 5, 0]


def test_find_returns_the_leaf_whose_prefix_range_holds_the_target():
    tree = SumTree(4)
    tree.set([0, 1, 2, 3], [1.0, 0.0, 2.0, 3.0])  # ranges: [0,1) -> 0, [1,3) -> 2, [3,6) -> 3
    targets = [0.0, 0.999, 1.0, 2.5, 2.999, 3.0, 5.999]
    assert tree.find(targets).tolist() == [0, 0, 2, 2, 2, 3, 3]


def test_a_leaf_of_priority_zero_is_never_drawn():
    tree = SumTree(6)
    tree.set(np.arange(6), [0.0, 1.0, 0.0, 0.0, 2.0, 0.0])
    drawn = tree.sample(5000, np.random.default_rng(0))
    assert set(drawn.tolist()) == {1, 4}
    assert abs((drawn == 4).mean() - 2 / 3) < 0.03


def test_rebuild_agrees_with_incremental_writes():
    rng = np.random.default_rng(1)
    incremental, rebuilt = SumTree(1000), SumTree(1000)
    for _ in range(20):
        leaves = rng.integers(0, 1000, 50)
        incremental.set(leaves, np.full(50, rng.random(), np.float32))
    rebuilt.leaves[:] = incremental.leaves
    rebuilt.rebuild()
    np.testing.assert_allclose(rebuilt.nodes, incremental.nodes, rtol=1e-12)
    assert incremental.total() == pytest.approx(float(incremental.leaves.astype(np.float64).sum()))


@pytest.mark.parametrize("capacity", [1, 2, 3])
def test_tiny_trees(capacity):
    tree = SumTree(capacity)
    tree.set([capacity - 1], [2.0])
    assert tree.total() == 2.0
    assert tree.sample(10, np.random.default_rng(0)).tolist() == [capacity - 1] * 10
    with pytest.raises(ValueError, match="every priority is 0"):
        SumTree(capacity).sample(1, np.random.default_rng(0))
