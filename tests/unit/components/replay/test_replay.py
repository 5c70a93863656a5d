"""Replay storage and sampling: stacks, n-step windows, ring wrap-around, streams, memory size.

Frames are filled with the entry's number (1-based) so a stack's contents name the entries it read
and zeros can only come from zero-filling.
"""

import numpy as np
import pytest
import torch

from gorila.components.replay import ReplayMemory, StreamStorage, sampling


def write_stream(memory, steps, stream=0, start=1):
    """Write entries (reward, terminal, last) to one stream, frame value = start + position."""
    for i, (reward, terminal, last) in enumerate(steps):
        frame = np.full((1,) + memory.storage.frame_shape, start + i, memory.storage.frame_dtype)
        memory.add([stream], frame, [i % 3], [reward], [terminal], [last])


def frame_ids(frames):
    """The number each frame was filled with ([B, k, 2, 2] -> [B, k])."""
    return frames.reshape(frames.shape[0], frames.shape[1], -1)[:, :, 0].astype(int)


def sampled_ids(memory, draws=2000):
    """Frame numbers of the newest obs frame over many draws."""
    batch = memory.sample(draws)
    return batch, set(frame_ids(batch.obs)[:, -1].tolist())


PLAIN, LIFE_LOSS, GAME_OVER, FINAL = (0.0, False, False), (0.0, True, False), (0.0, True, False), (0.0, False, True)


def test_stacks_zero_fill_after_episode_end_but_not_after_life_loss():
    memory = ReplayMemory(32, 1, (2, 2), np.uint8, stack=3, n_step=1)
    # entries 0..9: life loss at 2, game over at 4, final obs 5, new episode from 6
    write_stream(memory, [PLAIN, PLAIN, LIFE_LOSS, PLAIN, GAME_OVER, FINAL, PLAIN, PLAIN, PLAIN, PLAIN])
    stacks = sampling.gather_stacks(memory.storage, np.zeros(10, int), np.arange(10), 3)
    assert frame_ids(stacks).tolist() == [
        [0, 0, 1],
        [0, 1, 2],
        [1, 2, 3],
        [2, 3, 4],
        [3, 4, 5],
        [4, 5, 6],
        [0, 0, 7],
        [0, 7, 8],
        [7, 8, 9],
        [8, 9, 10],
    ]
    batch = memory.gather([0, 0], [4, 6])
    assert frame_ids(batch.next_obs).tolist() == [[4, 5, 6], [0, 7, 8]]


def test_n_step_returns_across_terminal_truncation_and_mid_episode():
    memory = ReplayMemory(32, 1, (2, 2), np.float32, stack=1, n_step=3, gamma=0.5)
    steps = [
        (1, False, False),
        (2, False, False),
        (4, True, False),
        (100, False, True),  # 0..3
        (1, False, False),
        (2, False, False),
        (4, False, False),
        (8, False, False),  # 4..7
        (100, False, True),
    ] + [(1, False, False)] * 5  # 8 truncated
    write_stream(memory, steps)
    batch = memory.gather([0] * 6, [0, 1, 2, 4, 6, 7])
    np.testing.assert_allclose(batch.returns, [1 + 1 + 1, 2 + 2, 4, 1 + 1 + 1, 4 + 4, 8])
    np.testing.assert_allclose(batch.discounts, [0, 0, 0, 0.125, 0.25, 0.5])
    # bootstrap states: entry 3 after the terminal (ignored), entry 7 mid-episode, entry 8 (final obs)
    assert batch.next_obs[:, 0, 0].tolist() == [4, 4, 4, 8, 9, 9]
    assert batch.obs[:, 0, 0].tolist() == [1, 2, 3, 5, 7, 8]
    assert batch.returns.dtype == np.float32 and batch.discounts.dtype == np.float32


def test_last_entries_and_newest_entry_are_never_sampled():
    memory = ReplayMemory(32, 1, (2, 2), np.uint8, stack=1, n_step=2, seed=1)
    write_stream(memory, [PLAIN, PLAIN, GAME_OVER, FINAL, PLAIN, PLAIN, PLAIN])
    # count 7, n 2: candidates 0..4; entry 3 is final -> frames 1, 2, 3, 5
    assert memory.sampleable() == 4
    _, seen = sampled_ids(memory)
    assert seen == {1, 2, 3, 5}


def test_ring_wrap_around_never_samples_or_stacks_overwritten_entries():
    memory = ReplayMemory(8, 1, (2, 2), np.uint8, stack=2, n_step=1, seed=2)
    steps = [PLAIN] * 20
    steps[14] = FINAL
    write_stream(memory, steps)
    # ring holds entries 12..19; stack needs j-1 >= 12; window needs j+1 <= 19; entry 14 is final
    assert memory.sampleable() == 5 and len(memory) == 8
    batch, seen = sampled_ids(memory)
    assert seen == {14, 16, 17, 18, 19}
    expected_prev = {14: 13, 16: 0, 17: 16, 18: 17, 19: 18}
    ids = frame_ids(batch.obs)
    assert all(expected_prev[new] == old for old, new in ids.tolist())
    assert (frame_ids(batch.next_obs)[:, -1] == ids[:, -1] + 1).all()


def test_interleaved_streams_do_not_mix_frames():
    memory = ReplayMemory(60, 3, (2, 2), np.int32, stack=2, n_step=1, seed=3)
    written = np.zeros(3, int)
    for order in ([0, 1, 2], [2, 0], [1], [2, 1, 0], [0, 2], [1, 0, 2], [2, 1], [0, 1, 2]):
        ids = np.array(order)
        frames = (100 * ids + written[ids] + 1)[:, None, None] * np.ones((1, 2, 2), np.int32)
        memory.add(ids, frames, ids, np.zeros(len(ids)), np.zeros(len(ids), bool), np.zeros(len(ids), bool))
        written[ids] += 1
    batch = memory.sample(3000)
    obs, nxt = frame_ids(batch.obs), frame_ids(batch.next_obs)
    newest = obs[:, 1]
    first_of_stream = newest % 100 == 1
    assert (obs[:, 0] == np.where(first_of_stream, 0, newest - 1)).all()
    assert (nxt[:, 0] == newest).all() and (nxt[:, 1] == newest + 1).all()
    assert set(newest.tolist()) == {100 * s + t for s in range(3) for t in range(1, written[s])}


def test_atari_sized_memory_costs_about_one_frame_per_entry():
    memory = ReplayMemory(10_000, 4, (84, 84), np.uint8, stack=4, n_step=3)
    per_entry = memory.stats()["nbytes"] / memory.stats()["capacity"]
    assert 7056 <= per_entry <= 7200


@pytest.mark.parametrize("stack, shape, dtype", [(4, (84, 84), np.uint8), (1, (4,), np.float32)])
def test_sample_shapes_and_dtypes(stack, shape, dtype):
    memory = ReplayMemory(64, 2, shape, dtype, stack=stack, n_step=3, min_size=10)
    assert memory.sample(5) is None
    rng = np.random.default_rng(0)
    for _ in range(12):
        frames = rng.integers(0, 255, (2,) + shape).astype(dtype)
        memory.add([0, 1], frames, [1, 2], [0.5, -1.0], [False, False], [False, False])
    batch = memory.sample(5)
    obs_shape = (5, stack) + shape if stack > 1 else (5,) + shape
    assert batch.obs.shape == batch.next_obs.shape == obs_shape
    assert batch.obs.dtype == batch.next_obs.dtype == dtype
    assert batch.actions.dtype == np.int64 and batch.actions.shape == (5,)
    assert batch.returns.dtype == batch.discounts.dtype == np.float32
    assert memory.stats() == {"size": 24, "capacity": 64, "added": 24, "nbytes": memory.storage.nbytes()}


def test_invalid_settings_and_writes_are_rejected():
    with pytest.raises(ValueError, match="capacity must be >= 20"):
        ReplayMemory(19, 2, (4,), np.float32, stack=4, n_step=5)
    storage = StreamStorage(10, 2, (4,), np.float32)
    with pytest.raises(ValueError, match="unique"):
        storage.add([1, 1], np.zeros((2, 4)), [0, 0], [0, 0], [False, False], [False, False])


def filled_memory(entries: int, label: int, streams: int = 1) -> ReplayMemory:
    """A memory whose every frame holds `label`, `entries` plain steps in each of `streams` streams."""
    memory = ReplayMemory(4 * entries * streams, streams, (1,), np.float32, stack=1, n_step=1, min_size=1)
    for _ in range(entries):
        memory.add(
            list(range(streams)),
            np.full((streams, 1), label, np.float32),
            [0] * streams,
            [0.0] * streams,
            [False] * streams,
            [False] * streams,
        )
    return memory


def test_a_minibatch_over_memories_of_very_different_sizes_is_uniform_over_transitions():
    from gorila.components.replay.routing import ReplaySampler
    from gorila.runtime.calls import DirectCalls

    memories = [filled_memory(601, 0, streams=2), filled_memory(201, 1), filled_memory(41, 2)]
    counts = np.array([m.sampleable() for m in memories])
    assert counts.tolist() == [1200, 200, 40]
    sampler = ReplaySampler(memories, DirectCalls(), seed=0)
    labels = np.concatenate([sampler.sample(32).obs[:, 0] for _ in range(400)]).astype(int)
    assert len(labels) == 400 * 32
    drawn = np.bincount(labels, minlength=3) / len(labels)
    # each memory's share of 12,800 draws is its share of the transitions, 0.833 / 0.139 / 0.028, within
    # 5 standard deviations (at most 0.0165); equal shares per memory (1/3 each) would fail
    expected = counts / counts.sum()
    tolerance = 5 * np.sqrt(expected * (1 - expected) / len(labels))
    assert np.all(np.abs(drawn - expected) <= tolerance), (drawn, expected)


def test_a_minibatch_over_memories_waits_for_every_memory_to_warm_up():
    from gorila.components.replay.routing import ReplaySampler
    from gorila.runtime.calls import DirectCalls

    cold = ReplayMemory(100, 1, (1,), np.float32, min_size=50)
    sampler = ReplaySampler([filled_memory(200, 0), cold], DirectCalls())
    assert sampler.sample(32) is None


def test_image_stacks_are_laid_out_channels_last_and_read_as_k_h_w():
    memory = ReplayMemory(64, 1, (3, 5), np.uint8, stack=4, n_step=1, seed=0)
    write_stream(memory, [PLAIN] * 20)
    streams, indices = [0] * 6, [4, 5, 9, 10, 14, 15]
    batch = memory.gather(streams, indices)
    plain = memory.storage.frames[np.zeros((6, 1), np.int64), np.array(indices)[:, None] - np.arange(3, -1, -1)]
    np.testing.assert_array_equal(batch.obs, plain)  # [B, k, H, W], oldest first
    assert batch.obs.shape == (6, 4, 3, 5) and batch.obs.strides[1] == 1  # the stack is the fastest axis
    assert torch.as_tensor(batch.obs).is_contiguous(memory_format=torch.channels_last)


def held(memory, stream: int) -> list[tuple]:
    """The entries `stream` holds, oldest first: (frame number, action, reward, terminal, last)."""
    storage = memory.storage
    count = int(storage.counts[stream])
    slots = storage.slots(np.arange(max(0, count - storage.stream_capacity), count))
    columns = (storage.frames[stream, slots, 0, 0], *(a[stream, slots] for a in (storage.actions, storage.rewards)))
    flags = (storage.terminals[stream, slots], storage.lasts[stream, slots])
    return [(int(f), int(a), float(r), bool(t), bool(last)) for f, a, r, t, last in zip(*columns, *flags)]


def saved_wrapped_memory(path) -> ReplayMemory:
    """Two streams of 8 entries: stream 0 written 13 times (its ring wrapped; a terminal at entry 9 and
    an episode's last at 10), stream 1 five times; saved to `path`."""
    memory = ReplayMemory(16, 2, (2, 2), np.uint8, stack=2, n_step=1, seed=5)
    write_stream(memory, [(float(i), i == 9, i == 10) for i in range(13)])
    write_stream(memory, [(-1.0, False, i == 2) for i in range(5)], stream=1, start=101)
    memory.save_replay(str(path))
    return memory


def test_a_saved_memory_comes_back_with_the_same_entries_in_the_same_order_after_its_ring_wrapped(tmp_path):
    memory = saved_wrapped_memory(tmp_path / "replay.npz")
    loaded = ReplayMemory(16, 2, (2, 2), np.uint8, stack=2, n_step=1, seed=99)
    loaded.load_replay(str(tmp_path / "replay.npz"))
    # stream 0 holds entries 5..12 (frames 6..13); each stream's newest is now an episode's last
    assert held(loaded, 0) == [(i + 1, i % 3, float(i), i == 9, i in (10, 12)) for i in range(5, 13)]
    assert held(loaded, 1) == [(101 + i, i % 3, -1.0, False, i in (2, 4)) for i in range(5)]
    assert held(memory, 0)[:-1] == held(loaded, 0)[:-1] and len(loaded) == len(memory) == 13
    # the sampler's generator comes back too: the same draws as the saved memory's
    a, b = memory.sample(64), loaded.sample(64)
    np.testing.assert_array_equal(a.obs, b.obs)
    np.testing.assert_array_equal(a.next_obs, b.next_obs)
    # writing on overwrites the oldest entry, and nothing is stitched onto the newest saved one
    write_stream(loaded, [PLAIN], start=14)
    assert [entry[0] for entry in held(loaded, 0)] == list(range(7, 15))
    assert frame_ids(sampling.gather_stacks(loaded.storage, np.array([0]), np.array([13]), 2)).tolist() == [[0, 14]]


def test_a_saved_replay_loads_into_a_memory_of_the_same_rings_and_is_refused_by_another(tmp_path):
    saved_wrapped_memory(tmp_path / "replay.npz")
    same_rings = ReplayMemory(17, 2, (2, 2), np.uint8, stack=2, n_step=1)  # 2 rings of 8, as saved
    same_rings.load_replay(str(tmp_path / "replay.npz"))
    assert [entry[0] for entry in held(same_rings, 0)] == list(range(6, 14))
    refusal = r"saved replay frames is shaped \(2, 8, 2, 2\), this replay's \({}, {}, 2, 2\)"
    larger = ReplayMemory(24, 2, (2, 2), np.uint8, stack=2, n_step=1)
    with pytest.raises(ValueError, match=refusal.format(2, 12)):
        larger.load_replay(str(tmp_path / "replay.npz"))
    more_streams = ReplayMemory(16, 4, (2, 2), np.uint8, stack=2, n_step=1)
    with pytest.raises(ValueError, match=refusal.format(4, 4)):
        more_streams.load_replay(str(tmp_path / "replay.npz"))
    assert len(larger) == len(more_streams) == 0  # nothing taken from the refused file
