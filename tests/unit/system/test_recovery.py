"""The driver's policy on failures (`gorila.system.recovery`), with the local runtime standing in for
Ray where a test sets the restart counts Ray's actor table would give: what is recorded, once, for
a restarted parameter shard and for a worker that dies with the shards it serves."""

import time
from dataclasses import replace

import pytest

from gorila.placement import WorkerId
from gorila.runtime.calls import WorkerError
from gorila.runtime.local import LocalRuntime
from gorila.system.planning import plan_run
from gorila.system.recovery import Recovery
from gorila.system.scheduler import Job
from gorila.system.topology import System, build_system
from tests.helpers import CARTPOLE_INFO
from tests.unit.system.test_shard_states import CONFIG, shards_and_states


def recovery_restoring(index: int, states: list[dict], env_frames: int) -> tuple[Recovery, list]:
    """A Recovery whose driver keeps `states` and has just given shard `index` its own (in process 9)."""
    shards, _, bounds = shards_and_states()
    records = []
    recovery = Recovery(
        CONFIG,
        LocalRuntime(),
        System(shards, bounds),
        lambda *r: records.append(r),
        print,
        shard_states=(states, env_frames),
    )
    recovery.shard_states.give_back(index, ("node", 9))
    return recovery, records


def test_each_restore_is_one_fault_saying_what_the_shard_was_restored_to():
    _, states, _ = shards_and_states()
    states[1] = {**states[1], "version": 1_345}  # the shard goes on from the copy's version
    recovery, records = recovery_restoring(1, states, 12_800)
    recovery.record_restores({})
    line = "parameter shard 1 was restarted (restored from the driver's state at 12,800 frames, version 1,345)"
    assert records == [("parameter shard 1", line, 1)]
    recovery.record_restores({})
    assert len(records) == 1  # recorded once


class CountedRestarts(LocalRuntime):
    """The local runtime, with the restart counts that Ray's actor table would give set by the test."""

    restarts_components = True

    def __init__(self):
        super().__init__()
        self.counted, self.ended = {}, []

    def restarts(self, handles) -> list:
        return [self.counted.get(id(handle), 0) for handle in handles]

    def restart(self, handle) -> None:
        self.ended.append(handle)


LEARNER = WorkerId("learner", 0)


def recovery_with_a_learner_serving_both_shards(states, config=CONFIG, already_failed=0):
    """A Recovery whose learner 0 serves both shards in its own process (placement `learners`), with
    `already_failed` failures counted before a resume."""
    shards, _, bounds = shards_and_states()
    runtime, learner, records, lines = CountedRestarts(), object(), [], []
    system = System(shards, bounds, workers={LEARNER: learner}, held={LEARNER: (0, 1)})
    recovery = Recovery(
        config, runtime, system, lambda *r: records.append(r), lines.append, already_failed, (states, 6_400)
    )
    return recovery, runtime, learner, records, lines


def test_a_worker_and_the_shards_it_serves_die_as_one_event_whichever_is_seen_first():
    _, states, _ = shards_and_states()
    # the learner's lost call first: it and both shards at once; their restores then record nothing more
    recovery, runtime, learner, records, lines = recovery_with_a_learner_serving_both_shards(states)
    runtime.counted[id(learner)] = 1
    recovery.lost(LEARNER, ConnectionError("lost"), 0)
    assert [r[0] for r in records] == ["learner 0", "parameter shard 0", "parameter shard 1"]
    assert "died with learner 0's process" in records[1][1]
    recovery.shard_states.give_back(0, ("node", 9))
    recovery.shard_states.give_back(1, ("node", 9))
    recovery.record_restores({})
    assert (
        len(records) == 3
        and lines[-1] == "parameter shard 1 restored from the driver's state at 6,400 frames, version 1"
    )
    # a shard's restore first: the learner's death (and both shards) now; its lost call then adds nothing
    recovery, runtime, learner, records, _ = recovery_with_a_learner_serving_both_shards(states)
    runtime.counted[id(learner)] = 1
    recovery.shard_states.give_back(1, ("node", 9))
    recovery.record_restores({})
    assert [r[0] for r in records] == ["learner 0", "parameter shard 0", "parameter shard 1"]
    assert "seen when parameter shard 1, which it serves, asked for its state" in records[0][1]
    recovery.lost(LEARNER, ConnectionError("lost"), 0)
    recovery.shard_states.give_back(0, ("node", 9))
    recovery.record_restores({})
    assert len(records) == 3
    # a second death is a second event
    runtime.counted[id(learner)] = 2
    recovery.answered(LEARNER, 10, 0)
    recovery.settle({})
    assert [r[0] for r in records[3:]] == ["learner 0", "parameter shard 0", "parameter shard 1"]


def test_a_shard_that_could_not_be_restored_ends_the_run_naming_it():
    _, states, _ = shards_and_states()
    recovery, _ = recovery_restoring(0, [dict(states[0], theta=states[0]["theta"][:3]), states[1]], 0)
    with pytest.raises(
        WorkerError,
        match="parameter shard 0 was restarted but could not be given its last "
        "state: ValueError: shard 0: saved slice has 3 parameters",
    ):
        recovery.record_restores({})


def test_a_worker_back_from_a_restart_has_the_restart_deadline_for_its_first_call_then_the_call_timeout():
    _, states, _ = shards_and_states()
    recovery, runtime, learner, _, lines = recovery_with_a_learner_serving_both_shards(states)
    recovery.config = replace(CONFIG, call_timeout_seconds=10.0, restart_timeout_seconds=100.0)
    runtime.counted[id(learner)] = 1
    recovery.lost(LEARNER, ConnectionError("lost"), 0)  # now restarting
    pending = {"call": Job(LEARNER, 64, time.time() - 50)}  # past the call timeout only
    recovery.check(pending, evaluating=False, worker_steps={})
    assert runtime.ended == []
    pending = {"call": Job(LEARNER, 64, time.time() - 150)}  # past the restart deadline
    recovery.check(pending, evaluating=False, worker_steps={})
    assert runtime.ended == [learner] and "for 150 s since its restart: restarting it" in lines[-1]
    recovery.answered(LEARNER, 11, 0)  # back: the call timeout again
    pending = {"call": Job(LEARNER, 64, time.time() - 50)}
    recovery.check(pending, evaluating=False, worker_steps={})
    assert runtime.ended == [learner, learner] and lines[-1].endswith("for 50 s: restarting it")


def test_a_worker_that_does_not_come_back_after_two_restart_deadlines_ends_the_run_naming_it():
    _, states, _ = shards_and_states()
    recovery, runtime, learner, _, lines = recovery_with_a_learner_serving_both_shards(states)
    recovery.config = replace(CONFIG, call_timeout_seconds=10.0, restart_timeout_seconds=100.0, worker_cpus=1.0)
    runtime.counted[id(learner)] = 1
    recovery.lost(LEARNER, ConnectionError("lost"), 0)
    recovery.check({"call": Job(LEARNER, 64, time.time() - 150)}, evaluating=False, worker_steps={})
    assert runtime.ended == [learner]  # the first deadline: one more restart
    with pytest.raises(WorkerError, match=r"learner 0 has not answered for 1\d\d s after being restarted twice"):
        recovery.check({"call": Job(LEARNER, 64, time.time() - 150)}, evaluating=False, worker_steps={})
    # a worker that answered in between starts counting again
    recovery, runtime, learner, _, _ = recovery_with_a_learner_serving_both_shards(states)
    recovery.config = replace(CONFIG, restart_timeout_seconds=100.0)
    recovery.lost(LEARNER, ConnectionError("lost"), 0)
    recovery.check({"call": Job(LEARNER, 64, time.time() - 150)}, evaluating=False, worker_steps={})
    recovery.answered(LEARNER, 12, 0)
    recovery.lost(LEARNER, ConnectionError("lost"), 0)
    recovery.check({"call": Job(LEARNER, 64, time.time() - 150)}, evaluating=False, worker_steps={})
    assert len(runtime.ended) == 2


def test_a_call_refused_after_restarts_already_counted_records_no_further_death():
    """Killed twice while idle (two faults from Ray's count of restarts), then the next call is refused
    while Ray restarts it: that refusal is the second death's, not a third one; a real third death is
    recorded once Ray counts it."""
    _, states, _ = shards_and_states()
    recovery, runtime, learner, records, _ = recovery_with_a_learner_serving_both_shards(states)
    recovery.system.held.clear()
    runtime.counted[id(learner)] = 2
    recovery.record_unseen_restarts({}, {})
    assert [r[0] for r in records] == ["learner 0", "learner 0"]
    recovery.lost(LEARNER, ConnectionError("refused while it restarts"), 0)
    recovery.settle({})
    assert len(records) == 2
    runtime.counted[id(learner)] = 3
    recovery.lost(LEARNER, ConnectionError("lost again"), 0)
    assert [r[0] for r in records] == ["learner 0"] * 3


def test_a_resumed_run_counts_on_from_its_failures_and_gives_up_at_the_first_beyond_max_failures():
    """Two failures before the resume, max_failures 3: the learner's first death is fault 3/3, recorded
    with the count 3; its second ends the run, naming it, and is not recorded (the run stops)."""
    _, states, _ = shards_and_states()
    config = replace(CONFIG, max_failures=3)
    recovery, runtime, learner, records, lines = recovery_with_a_learner_serving_both_shards(states, config, 2)
    recovery.system.held.clear()
    runtime.counted[id(learner)] = 1
    recovery.lost(LEARNER, ConnectionError("lost"), 0)
    assert records == [("learner 0", "learner 0 died (ConnectionError)", 3)]
    assert lines == ["fault 3/3: learner 0 died (ConnectionError)"]
    runtime.counted[id(learner)] = 2
    with pytest.raises(WorkerError) as raised:
        recovery.lost(LEARNER, ConnectionError("lost again"), 0)
    assert str(raised.value) == (
        "giving up after 4 component failures (max_failures=3); the last: learner 0 died (ConnectionError)"
    )
    assert len(records) == 1


def test_a_stall_is_a_failure_of_its_own_counted_against_the_allowance():
    _, states, _ = shards_and_states()
    config = replace(CONFIG, max_failures=0, stall_seconds=10.0)
    recovery, _, _, records, _ = recovery_with_a_learner_serving_both_shards(states, config)
    recovery.watch((100, 5), {}, stopping=False)  # progress seen now
    recovery.moved_at -= 11  # and not since, for longer than stall_seconds
    with pytest.raises(WorkerError, match=r"max_failures=0\); the last: no frames or updates for 1\d s"):
        recovery.watch((100, 5), {}, stopping=False)
    assert records == []


def test_a_resumed_run_puts_each_actor_back_on_its_own_rung_at_its_own_step_count():
    """Three actors on an epsilon ladder (0.4 ** (1 + 7 i / 2)), annealed from 1.0 over 1,000 steps:
    each continues from the steps the checkpoint counted for it, on the rung of its own index."""
    ladder = dict(epsilon_ladder=True, epsilon_start=1.0, epsilon_decay_steps=1_000)
    config = replace(CONFIG, actors=3, envs_per_actor=1, learners=1, bundled=False, **ladder)
    runtime = LocalRuntime()
    system = build_system(config, plan_run(config, CARTPOLE_INFO), runtime)
    actors = [WorkerId("actor", i) for i in range(3)]
    Recovery(config, runtime, system, print, print).continue_run(
        {actors[0]: 500, actors[1]: 5_000, actors[2]: 250, LEARNER: 77}
    )
    rung = lambda i: 0.4 ** (1 + 7 * i / 2)
    epsilons = [system.workers[actor].epsilon for actor in actors]
    assert epsilons == pytest.approx([(1.0 + rung(0)) / 2, rung(1), 1.0 - (1.0 - rung(2)) / 4])
    assert [system.workers[actor].steps for actor in actors] == [500, 5_000, 250]
    runtime.shutdown()
