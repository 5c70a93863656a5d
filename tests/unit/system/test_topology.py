"""The pure helpers of the wiring: where each actor's streams go, what each learner samples from, the
replay memories a topology has. Every stream lands in exactly one place and every memory is read."""

import itertools

import pytest

from gorila.config import build_config
from gorila.system.topology import actor_routes, learner_replays, replay_count, replay_layout


def global_replay(actors: int, envs: int, shards: int, learners: int = 1):
    return build_config(
        overrides=dict(
            bundled=False, replay="global", actors=actors, learners=learners, envs_per_actor=envs, replay_shards=shards
        )
    )


def test_a_local_replay_takes_all_of_its_actors_streams_under_their_own_slots():
    config = build_config(overrides=dict(actors=3, learners=3, envs_per_actor=4))
    for index in range(3):
        [route] = actor_routes(config, index)
        assert (route.replay, route.slots, route.streams) == (index, (0, 1, 2, 3), (0, 1, 2, 3))
    assert replay_layout(config) == [(config.replay_capacity, 4)] * 3
    assert replay_count(config) == 3


@pytest.mark.parametrize("actors, envs, shards", [(3, 2, 2), (2, 4, 3), (1, 5, 5), (4, 1, 4)])
def test_global_replay_streams_are_dealt_round_robin_each_to_one_shard(actors, envs, shards):
    config = global_replay(actors, envs, shards)
    seen = {}
    for index in range(actors):
        routes = actor_routes(config, index)
        slots = sorted(itertools.chain.from_iterable(route.slots for route in routes))
        assert slots == list(range(envs))  # each env slot goes somewhere, once
        for route in routes:
            for slot, stream in zip(route.slots, route.streams):
                stream_id = index * envs + slot
                assert route.replay == stream_id % shards
                seen[(route.replay, stream)] = stream_id
    assert len(seen) == actors * envs  # no two streams share a place in a shard
    layout = replay_layout(config)
    assert [streams for _, streams in layout] == [
        sum(1 for replay, _ in seen if replay == shard) for shard in range(shards)
    ]
    for shard, (_, streams) in enumerate(layout):  # a shard's stream ids are 0 .. streams-1
        assert sorted(stream for replay, stream in seen if replay == shard) == list(range(streams))
    assert all(capacity == config.replay_capacity // shards for capacity, _ in layout)
    assert replay_count(config) == shards


def test_every_learner_samples_every_shard_of_a_global_replay():
    config = global_replay(actors=3, envs=2, shards=3, learners=2)
    assert [learner_replays(config, j) for j in range(2)] == [[0, 1, 2], [0, 1, 2]]


@pytest.mark.parametrize("actors, learners", [(4, 2), (5, 2), (3, 3), (1, 3), (2, 5)])
def test_local_replays_are_shared_out_among_the_learners(actors, learners):
    config = build_config(overrides=dict(bundled=False, actors=actors, learners=learners))
    read = [learner_replays(config, j) for j in range(learners)]
    assert all(read), "a learner with no replay would never update"
    every = sorted(itertools.chain.from_iterable(read))
    assert set(every) == set(range(actors))  # every actor's replay is read
    if learners <= actors:
        assert every == list(range(actors))  # by exactly one learner
    else:
        assert all(len(replays) == 1 for replays in read)  # surplus learners share one replay each
