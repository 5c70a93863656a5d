"""Every random stream of a run, derived from its one `seed` here and nowhere else.

A run with seed s draws:

    theta_0 (the shards' initialisation)      s
    replay memory i (its draws)               s + i                    i < 1000
    actor i (its copy c: + c; its epsilon)    s + 1000 (i + 1)         i < 999, c < 1000
    evaluations during training (episode e)   s + 10^6 + e
    learner j (torch; PQN's minibatch order)  s for learner 0, s + 10^8 + j for the others
    learner j's draws over several memories   s + 2 10^8 + j
    `gorila evaluate` and episode videos      s + 10^9 + e

Each kind has a band of its own, so that no two components start a generator from the same number
(an environment copy's and a learner's would otherwise be the same numpy generator). Learner 0 keeps
the run's own seed, as it had before the bands, so that a seed's one-learner run (every local run, and
PQN's) learns as it did: it shares that number with theta_0, drawn first from torch's generator, and
with replay memory 0, which a PQN learner, the one learner that draws from numpy, never has beside it.
"""

from __future__ import annotations

ACTOR_STRIDE = 1000  # seeds per actor: one per environment copy
TRAINING_EVALUATIONS = 10**6
LEARNERS = 10**8
SAMPLERS = 2 * 10**8
INDEPENDENT_EVALUATIONS = 10**9  # episodes that no training evaluation played


def theta_0_seed(seed: int) -> int:
    return seed


def replay_seed(seed: int, index: int) -> int:
    return seed + index


def actor_seed(seed: int, index: int) -> int:
    """Actor `index`'s first environment copy's seed (copy c: + c) and its epsilon-greedy draws'."""
    return seed + ACTOR_STRIDE * (index + 1)


def learner_seed(seed: int, index: int) -> int:
    return seed if index == 0 else seed + LEARNERS + index


def sampler_seed(seed: int, index: int) -> int:
    """Learner `index`'s draws of which memory gives each minibatch entry (separate actors and
    learners), apart from the memories' own draws."""
    return seed + SAMPLERS + index


def evaluation_seed(seed: int, independent: bool = False) -> int:
    """The first episode's seed of the evaluations during training, or of `gorila evaluate`'s."""
    return seed + (INDEPENDENT_EVALUATIONS if independent else TRAINING_EVALUATIONS)
