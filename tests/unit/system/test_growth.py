"""A bundled run that grows on the room its cluster gains (`gorila.system.growth`), with real bundles
placed by the local runtime and the free CPUs Ray would report set by the test: one bundle more when a
bundle's worker_cpus are free and the last one placed has reported, on the rung of bundle N mod
actors, never beyond max_bundles."""

from collections import Counter

import pytest

from gorila.config import build_config
from gorila.placement import WorkerId
from gorila.runtime.local import LocalRuntime
from gorila.system.growth import Growth
from gorila.system.planning import plan_run
from gorila.system.topology import build_system
from tests.helpers import CARTPOLE_INFO

BUNDLES = [WorkerId("bundle", i) for i in range(4)]


class WithRoom(LocalRuntime):
    """The local runtime, with the CPUs free in the cluster set by the test."""

    free = 0.0

    def free_cpus(self) -> float:
        return self.free


def test_a_bundle_joins_on_free_room_once_the_last_one_reported_and_takes_the_rung_of_n_mod_actors():
    settings = dict(env="CartPole-v1", runtime="ray", actors=2, learners=2, max_bundles=3, worker_cpus=1.0)
    config = build_config(overrides=dict(settings, hidden_sizes="8", replay_capacity=1_000, epsilon_ladder=True))
    runtime, lines, plan = WithRoom(), [], plan_run(config, CARTPOLE_INFO)
    system = build_system(config, plan, runtime)
    steps = Counter({BUNDLES[0]: 64})
    growth = Growth(config, plan, runtime, system, steps, lines.append)
    runtime.free = 4.0
    assert growth.look() is None  # bundle 1 has not reported yet
    steps[BUNDLES[1]] = 64
    runtime.free = 0.5
    assert growth.look() is None  # less than a bundle's worker_cpus free
    runtime.free = 2.0
    assert growth.look() == BUNDLES[2] and list(system.workers) == BUNDLES[:3]
    assert lines == ["bundle 2 joins on room the cluster gained (2 CPUs free): 3 bundles (max_bundles=3)"]
    rungs = [system.workers[bundle].actor.schedule.end for bundle in BUNDLES[:3]]
    assert rungs == pytest.approx([0.4, 0.4**8, 0.4])  # Ape-X's ladder over 2 actors; bundle 2 on bundle 0's
    assert system.workers[BUNDLES[2]].replay.storage.size() == 0  # it starts with an empty replay
    steps[BUNDLES[2]] = 64
    assert growth.look() is None and len(system.workers) == 3  # at max_bundles
    runtime.shutdown()
