"""The stale-gradient threshold follows the number of learners: many learners taking turns lose no
gradient, while one that fell far behind loses exactly the gradient it computed on old parameters."""

import contextlib

from gorila.config import build_config
from gorila.config.derived import staleness_limit
from gorila.placement import WorkerId
from gorila.runtime.local import LocalRuntime
from gorila.system.planning import plan_run
from gorila.system.preflight import probe_env
from gorila.system.topology import build_system, describe_topology
from tests.helpers import CARTPOLE_INFO

LEARNERS = 100


def test_the_auto_threshold_grows_with_the_learners():
    assert staleness_limit(build_config()) == 100  # one learner: the old constant
    assert staleness_limit(build_config(overrides={"actors": 100, "learners": 100})) == 2 * 100 * (2 + 4)
    many = build_config(overrides={"actors": 1, "learners": 50, "bundled": False, "push_every": 4})
    assert staleness_limit(many) == 2 * 50 * (2 + 4 * 4)
    assert staleness_limit(build_config(overrides={"max_staleness": 30, "actors": 100, "learners": 100})) == 30
    assert staleness_limit(build_config(overrides={"max_staleness": -1})) == 0  # keep every gradient


def launch_line(**overrides) -> str:
    config = build_config(overrides=overrides)
    return describe_topology(config, plan_run(config, CARTPOLE_INFO))


def test_the_launch_line_states_the_threshold():
    assert launch_line(actors=100, learners=100).endswith(
        "1 parameter shard beside the learners (gradients over 1,200 versions stale dropped; "
        "theta+ refresh synchronous where a learner holds every shard, else pipelined)"
    )
    assert launch_line(max_staleness=-1, runtime="local").endswith(
        "(no gradient dropped as stale; synchronous theta+ refresh)"
    )
    assert launch_line(runtime="ray").endswith("; synchronous theta+ refresh)")
    assert launch_line(runtime="ray", shard_placement="apart").endswith("; pipelined theta+ refresh)")


@contextlib.contextmanager
def many_learners(**overrides):
    """(shard, learners): one actor feeding a local replay sampled by LEARNERS learners, all real, on
    the local runtime with Ray's pipelined refresh of theta+, released afterwards."""
    config = build_config(
        "cartpole",
        overrides=dict(
            runtime="local",
            actors=1,
            learners=LEARNERS,
            bundled=False,
            envs_per_actor=1,
            hidden_sizes=(8,),
            batch_size=8,
            learning_starts=100,
            replay_capacity=2_000,
            learner_sync_every=1,
            push_every=1,
            outlier_k=0,
            learner_refresh="pipelined",
            **overrides,
        ),
    )
    runtime = LocalRuntime()
    system = build_system(config, plan_run(config, probe_env(config)), runtime)
    system.workers[WorkerId("actor", 0)].run(400)
    learners = [system.workers[WorkerId("learner", j)] for j in range(LEARNERS)]
    try:
        yield system.shards[0], learners
    finally:
        runtime.shutdown()


def take_turns(learners, rounds):
    """Each learner makes one update per round, in turn: every gradient waits for all the others'."""
    for _ in range(rounds):
        for learner in learners:
            assert learner.run(1).updates == 1


def test_learners_taking_turns_lose_nothing_under_the_auto_threshold():
    with many_learners(max_staleness=0) as (shard, learners):
        take_turns(learners, 5)
        stats = shard.stats()
        assert (stats["applied"], stats["discarded"]) == (5 * LEARNERS, 0)
        # after a learner's first (computed on the theta+ it read then), each gradient lands about
        # 2 * LEARNERS versions late (parameters are fetched one refresh ahead): on average beyond a
        # threshold of 100, within the auto one of 1,200
        assert stats["mean_staleness"] > 100


def test_a_constant_threshold_discards_on_schedule_gradients_of_many_learners():
    """What the auto threshold prevents: the earlier constant, 100, against the same 100 learners."""
    with many_learners(max_staleness=100) as (shard, learners):
        take_turns(learners, 5)
        assert shard.stats()["discarded"] >= 2 * (LEARNERS - 1)  # two rounds in five lost


def test_only_the_learner_that_fell_behind_loses_its_gradients():
    with many_learners(max_staleness=0) as (shard, learners):
        take_turns(learners, 2)
        laggard, others = learners[0], learners[1:]
        take_turns(others, 15)  # 15 * 99 updates while the laggard holds old parameters
        assert shard.stats()["discarded"] == 0
        laggard.run(1)  # computed on parameters ~1,500 versions old: discarded
        assert shard.stats()["discarded"] == 1
        laggard.run(1)  # its prefetched parameters were asked for before it fell
        assert shard.stats()["discarded"] == 2  # behind: as old, discarded too
        take_turns(learners, 3)  # fresh parameters from then on: back in step
        assert shard.stats()["discarded"] == 2
