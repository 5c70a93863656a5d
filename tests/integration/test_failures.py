"""A component whose code raises ends the run with the same one-line error on both runtimes, naming
the component by role and index, and leaves no Ray session behind; one that stops answering is
restarted on Ray and the run finishes."""

import os
import signal
import sys
import time

import pytest
import ray
import ray.cloudpickle

from gorila.components.bundle import Bundle
from gorila.config import build_config
from gorila.placement import WorkerId
from gorila.records.metrics import read_metrics
from gorila.runtime.calls import WorkerError
from gorila.runtime.session_guard import processes, raylet_pid
from gorila.system import builders, topology
from gorila.system.driver import Driver
from tests.helpers import from_the_driver, slowdown, steps_ahead_of_updates

# The bundle below is built inside Ray's worker processes, which cannot import this test module.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


def bundle_whose_learner_fails(config, plan, index, shards, bounds, calls, saved_replay=None, hosted=()) -> Bundle:
    """A real bundle; bundle 1's learner raises on its first update."""
    bundle = builders.make_bundle(config, plan, index, shards, bounds, calls, saved_replay, hosted)
    if index == 1:

        def update():
            raise FloatingPointError("loss became nan\nsecond line of detail")

        bundle.learner.update = update
    return bundle


@pytest.mark.parametrize("runtime", ["local", "ray"])
def test_a_failing_component_is_named_in_one_line(runtime, tmp_path, monkeypatch):
    monkeypatch.setattr(topology, "make_bundle", bundle_whose_learner_fails)
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime=runtime,
            actors=2,
            learners=2,
            total_frames=3000,
            learning_starts=100,
            batch_size=16,
            hidden_sizes="16",
            eval_every_frames=0,
            eval_episodes=2,
            checkpoint_every_frames=0,
        )
    )
    with pytest.raises(WorkerError) as caught:
        Driver(config, tmp_path / "run", live_progress=False).run()
    assert str(caught.value) == "bundle 1 failed: FloatingPointError: loss became nan"
    assert not ray.is_initialized()


def bundle_that_hangs_once(config, plan, index, shards, bounds, calls, saved_replay=None, hosted=()) -> Bundle:
    """A real bundle; the first process of bundle 0 stops answering after 500 steps of its actor."""
    bundle = builders.make_bundle(config, plan, index, shards, bounds, calls, saved_replay, hosted)
    marker = os.path.join(config.run_dir, "hung-once")
    if index == 0 and not os.path.exists(marker):
        step, steps = bundle.actor.step, []

        def step_then_hang():
            steps.append(1)
            if len(steps) == 500:
                open(marker, "w").close()
                time.sleep(3600)
            return step()

        bundle.actor.step = step_then_hang
    return bundle


def test_a_component_that_stops_answering_is_restarted_and_the_run_finishes(tmp_path, monkeypatch):
    monkeypatch.setattr(topology, "make_bundle", bundle_that_hangs_once)
    run_dir = tmp_path / "run"
    # far above a healthy call's time on a busy 2-core machine (with 5 s unscaled, a CPU-bound process
    # beside the test made bundle 1's healthy calls pass the limit: seven faults where one was due)
    call_timeout = 15 * slowdown()
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="ray",
            actors=2,
            learners=2,
            total_frames=6000,
            learning_starts=100,
            batch_size=16,
            hidden_sizes="16",
            eval_every_frames=0,
            eval_episodes=2,
            checkpoint_every_frames=0,
            call_timeout_seconds=call_timeout,
            # while bundle 0 hangs and bundle 1 is held (below), the run stands still until bundle 0's
            # call timeout: the stall watchdog must not come first and record the hang as a stall
            stall_seconds=4 * call_timeout,
            log_every_seconds=1,
            run_dir=str(run_dir),
            # the shard in a process of its own: bundle 1's calls then never wait on the hung bundle 0
            shard_placement="apart",
        )
    )
    trainer = Driver(config, run_dir, live_progress=False)
    hung, healthy, steps = WorkerId("bundle", 0), WorkerId("bundle", 1), trainer.scheduler.counters.worker_steps
    back = lambda: trainer.recovery.deaths[hung] >= 1 and hung not in trainer.recovery.restarting
    budget = trainer.scheduler.budget

    def held_until_bundle_0_is_back(worker: WorkerId) -> int:
        """Bundle 1 takes no work past half the budget before bundle 0 has answered a call after its
        restart: however fast bundle 1 runs, it cannot spend the budget alone before bundle 0 hangs (at
        its 500th step) and comes back, and the run ends only after both."""
        if worker == healthy and steps[healthy] >= trainer.info.steps(3000) and not back():
            return 0
        return budget(worker)

    trainer.scheduler.budget = held_until_bundle_0_is_back
    result = trainer.run()
    assert (run_dir / "hung-once").exists(), "bundle 0 never hung: the test tested nothing"
    assert back() and steps[hung] > 500, "bundle 0 took no work after its restart"
    assert result["env_frames"] >= 6000
    faults = [r for r in read_metrics(run_dir) if r["kind"] == "fault"]
    assert [r["component"] for r in faults] == ["bundle 0"]  # one hang, one restart: one fault
    assert not ray.is_initialized()


def test_a_run_that_stands_still_is_a_fault_and_the_workers_holding_it_up_are_restarted(tmp_path):
    """kill -STOP of the only learner: its call never returns, the actors are soon held back at DQN's
    replay ratio, and frames and updates stand still. The watchdog records one fault, ends the learner
    (Ray starts it again, with the parameter shard it holds) and the run goes on to its budget."""
    run_dir = tmp_path / "run"
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="ray",
            bundled=False,
            actors=1,
            learners=1,
            total_frames=8000,
            learning_starts=100,
            batch_size=16,
            hidden_sizes="16",
            eval_every_frames=0,
            eval_episodes=2,
            checkpoint_every_frames=0,
            stall_seconds=10 * slowdown(),  # far above a healthy run's pause; the stall itself is for ever
            # the stopped learner's call is ended by the watchdog, never by its call timeout (the
            # default 300 s, which 10 s times a load above 30 per core would pass: faults of learner 0
            # and its shard then, and none of the run)
            call_timeout_seconds=10 * 10 * slowdown(),
            log_every_seconds=0.5,
            run_dir=str(run_dir),
        )
    )
    trainer = Driver(config, run_dir, live_progress=False)

    learner = WorkerId("learner", 0)
    pid = trainer.runtime.processes([trainer.system.workers[learner]])[0][1]  # asked now: it answers no call mid-call

    def stopped_mid_call() -> bool:
        """Past 50 updates, with a call on the learner in flight: SIGSTOP it, and keep it stopped if that
        call is still unanswered half a second later (else let it go on, and try again at a later
        turn). A learner stopped between calls would hold up only the actor, through the shard it hosts."""
        calls = [future for future, job in trainer.pending.items() if job.worker == learner]
        if trainer.scheduler.counters.updates < 50 or not calls:
            return False
        os.kill(pid, signal.SIGSTOP)
        answered, _ = trainer.calls.wait(calls, timeout=0.5)
        if answered:
            os.kill(pid, signal.SIGCONT)
        return not answered

    stopped = from_the_driver(trainer, stopped_mid_call, lambda: True)
    result = trainer.run()
    assert stopped, "the learner was never stopped: the test tested nothing"
    assert result["env_frames"] >= 8000 and result["updates"] > 50
    faults = [r for r in read_metrics(run_dir) if r["kind"] == "fault"]
    # the stall (not also the restarts it caused), then the parameter shard the learner holds (shard
    # placement `learners`), back with the driver's state of it; the actor, whose refresh of theta+
    # waits for that shard, is held up too
    assert [r["component"] for r in faults] == ["run", "parameter shard 0"], faults
    assert faults[0]["reason"].startswith("no frames or updates for") and "learner 0" in faults[0]["reason"]
    assert "restored from the driver's state" in faults[1]["reason"]
    assert not ray.is_initialized()


def test_a_killed_global_replay_shard_costs_seconds_and_the_learner_keeps_dqns_ratio(tmp_path):
    """kill -9 of a global-replay shard: it comes back empty, its learner finds no minibatch until the
    actors refill it, and then learns again at one update per update_every agent steps. (This run
    once collected 600k frames with 2,854 updates: the actors ran unchecked while the learner waited,
    and its next call asked for every update they had run ahead by.)"""
    run_dir = tmp_path / "run"
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="ray",
            bundled=False,
            replay="global",
            replay_shards=2,
            actors=3,
            learners=1,
            param_shards=2,
            total_frames=16000,
            learning_starts=200,
            batch_size=16,
            hidden_sizes="16",
            eval_every_frames=0,
            eval_episodes=2,
            checkpoint_every_frames=0,
            log_every_seconds=0.5,
            # every worker waits on the replay shard while Ray starts it again: that pause is no stall
            # on a loaded machine either (the default 120 s, unscaled, would record one beside it)
            stall_seconds=120 * slowdown(),
            run_dir=str(run_dir),
        )
    )
    trainer = Driver(config, run_dir, live_progress=False)

    def kill_replay_shard_0():
        os.kill(trainer.runtime.processes([trainer.system.replays[0]])[0][1], signal.SIGKILL)

    killed = from_the_driver(trainer, lambda: trainer.scheduler.counters.updates >= 200, kill_replay_shard_0)
    result = trainer.run()
    assert killed, "the replay shard was never killed: the test tested nothing"
    faults = [r["component"] for r in read_metrics(run_dir) if r["kind"] == "fault"]
    assert faults == ["replay shard 0"]
    # DQN's ratio, as the scheduler holds it once the refilled replay serves minibatches again
    ahead, allowed = steps_ahead_of_updates(trainer, result)
    assert ahead <= allowed, (ahead, allowed, result)


def component_processes(kind: str, raylet: int) -> set[int]:
    """The pids of the `ray::<kind>` processes started by `raylet` (a component's Ray worker names
    itself so; another run's on this machine has another raylet)."""
    found = set()
    for pid in processes():
        try:
            named = open(f"/proc/{pid}/cmdline", "rb").read().startswith(f"ray::{kind}".encode())
        except OSError:
            continue
        if named and raylet_pid(pid) == raylet:
            found.add(pid)
    return found


def test_a_worker_killed_again_while_it_restarts_is_a_second_fault(tmp_path):
    """kill -9 of the only bundle, then of the process Ray starts in its place as soon as it appears,
    before it has answered any call: two deaths, two faults (Ray refuses the calls of a restarting
    worker with the same error either way; only its count of restarts tells them apart)."""
    run_dir = tmp_path / "run"
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="ray",
            actors=1,
            learners=1,
            total_frames=8000,
            learning_starts=100,
            batch_size=16,
            hidden_sizes="16",
            eval_every_frames=0,
            eval_episodes=2,
            checkpoint_every_frames=0,
            log_every_seconds=0.5,
            shard_placement="apart",
            run_dir=str(run_dir),
        )
    )
    trainer, killed = Driver(config, run_dir, live_progress=False), []
    first = trainer.runtime.processes([trainer.system.workers[WorkerId("bundle", 0)]])[0][1]  # before it is busy
    raylet = raylet_pid(first)

    def kill_twice():
        """The bundle, then its new process as soon as it appears (the driver waits meanwhile)."""
        os.kill(first, signal.SIGKILL)
        killed.append(first)
        deadline = time.monotonic() + 60 * slowdown()
        while time.monotonic() < deadline and len(killed) < 2:
            for pid in component_processes("Bundle", raylet) - {first}:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.01)

    from_the_driver(trainer, lambda: trainer.info.frames(trainer.steps) >= 1500, kill_twice)
    result = trainer.run()
    assert len(killed) == 2, "the bundle was not killed twice: the test tested nothing"
    assert result["env_frames"] >= 8000
    faults = [r["component"] for r in read_metrics(run_dir) if r["kind"] == "fault"]
    assert faults == ["bundle 0", "bundle 0"], faults
