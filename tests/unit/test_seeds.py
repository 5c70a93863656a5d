"""The run's random streams start from distinct numbers: no actor's copy, replay memory, learner,
learner's sampler or evaluation starts a generator from another's seed."""

import pytest

from gorila import seeds


@pytest.mark.parametrize("seed", [0, 7, 123_456])
def test_no_two_streams_of_a_large_run_share_a_seed(seed):
    copies, actors, learners, memories = 1000, 998, 1000, 1000
    streams = {
        "copy": [seeds.actor_seed(seed, i) + c for i in range(actors) for c in range(copies)],
        "replay": [seeds.replay_seed(seed, i) for i in range(memories)],
        "learner": [seeds.learner_seed(seed, j) for j in range(1, learners)],  # learner 0: below
        "sampler": [seeds.sampler_seed(seed, j) for j in range(learners)],
        "evaluation": [seeds.evaluation_seed(seed) + e for e in range(1000)],
        "gorila evaluate": [seeds.evaluation_seed(seed, independent=True) + e for e in range(1000)],
    }
    everything = [value for values in streams.values() for value in values]
    assert len(set(everything)) == len(everything)
    # learner 0 keeps the run's seed, shared with theta_0 (drawn first from torch) and replay memory 0
    assert seeds.learner_seed(seed, 0) == seeds.theta_0_seed(seed) == seeds.replay_seed(seed, 0) == seed


def test_the_seeds_of_a_one_learner_run_are_the_ones_it_had():
    """Kept as they were before they had one home, so that a seed's local or PQN run learns as it did."""
    assert seeds.theta_0_seed(5) == 5 and seeds.replay_seed(5, 2) == 7 and seeds.actor_seed(5, 0) == 1005
    assert seeds.learner_seed(5, 0) == 5  # PQN's one learner draws its minibatches as it did
    assert seeds.evaluation_seed(5) == 5 + 10**6 and seeds.evaluation_seed(5, independent=True) == 5 + 10**9
