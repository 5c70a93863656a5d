"""Workers set aside while they wait for room (`gorila.system.waiting_room`, through the driver's
`Recovery`): a worker that has not come back from a restart by its deadline leaves the run, which
goes on smaller and says so; one that serves parameter shards cannot be done without; a run with no
worker of a kind left at work ends, naming the worker."""

import time
from dataclasses import replace

import pytest

from gorila.placement import WorkerId
from gorila.runtime.calls import Done, WorkerError
from gorila.system.recovery import Recovery
from gorila.system.scheduler import Job
from gorila.system.topology import System
from tests.unit.system.test_recovery import CountedRestarts
from tests.unit.system.test_shard_states import CONFIG, shards_and_states


class Worker:
    """A worker's handle on the local runtime: continues from a step count (its epsilon), as an actor does."""

    def continue_from(self, steps: int) -> None:
        self.steps = steps


ACTORS = [WorkerId("actor", i) for i in range(3)]
LEARNER = WorkerId("learner", 0)


def recovery_with_three_actors(held=None):
    """A Recovery over 3 actors and a learner (the learner serving the shards when `held`), whose
    restart deadline is 100 s; the lines it says."""
    shards, states, bounds = shards_and_states()
    runtime, lines = CountedRestarts(), []
    workers = {worker: Worker() for worker in [*ACTORS, LEARNER]}
    system = System(shards, bounds, workers=workers, held=held or {})
    recovery = Recovery(CONFIG, runtime, system, lambda *r: None, lines.append, shard_states=(states, 0))
    recovery.config = replace(CONFIG, restart_timeout_seconds=100.0, worker_cpus=1.0)
    return recovery, runtime, lines


def lose(recovery, runtime, worker):
    """`worker`'s process is lost (Ray counts one restart) and its next call is in flight since 150 s."""
    runtime.counted[id(recovery.system.workers[worker])] = 1
    recovery.lost(worker, ConnectionError("lost"), 0)
    return {Done(): Job(worker, 256, time.time() - 150)}


def test_a_worker_not_back_by_its_restart_deadline_is_set_aside_and_taken_back_when_it_answers():
    recovery, runtime, lines = recovery_with_three_actors()
    pending = lose(recovery, runtime, ACTORS[1])
    set_aside = recovery.check(pending, evaluating=False, worker_steps={})
    assert [job.worker for job in set_aside] == [ACTORS[1]] and pending == {}  # its work goes to the others
    assert ACTORS[1] in recovery.room and runtime.ended == []  # not restarted: Ray places it when it can
    assert "actor 1 has not come back 150 s after it was lost: most often no node has room for it (1 CPU)" in lines[-1]
    assert lines[-1].endswith("the run goes on with 2 of 3 actors and takes actor 1 back once Ray places it")
    # no stall while the others work on; once its call answers, it is back
    [(future, job)] = recovery.room.back()
    assert job == set_aside[0] and ACTORS[1] not in recovery.room  # the driver takes its call's report
    assert lines[-1] == "actor 1 is back: 3 of 3 actors at work"


def test_a_worker_serving_parameter_shards_is_restarted_not_set_aside():
    recovery, runtime, lines = recovery_with_three_actors(held={LEARNER: (0, 1)})
    pending = lose(recovery, runtime, LEARNER)
    assert recovery.check(pending, evaluating=False, worker_steps={}) == []
    assert LEARNER not in recovery.room and runtime.ended == [recovery.system.workers[LEARNER]]
    pending = {Done(): Job(LEARNER, 64, time.time() - 150)}  # not back after its second restart either
    with pytest.raises(WorkerError, match="learner 0 has not answered for 1\\d\\d s after being restarted twice"):
        recovery.check(pending, evaluating=False, worker_steps={})


def test_a_run_with_no_worker_of_a_kind_left_at_work_ends_naming_the_last():
    recovery, runtime, _ = recovery_with_three_actors()
    recovery.check(lose(recovery, runtime, ACTORS[0]), evaluating=False, worker_steps={})
    recovery.check(lose(recovery, runtime, ACTORS[2]), evaluating=False, worker_steps={})
    with pytest.raises(WorkerError, match="actor 1 has not answered for 1\\d\\d s after being restarted twice"):
        recovery.check(lose(recovery, runtime, ACTORS[1]), evaluating=False, worker_steps={})
