"""The driver's budget policy (`gorila.system.scheduler.Scheduler`), without Ray or an environment."""

from gorila.messages import Report
from gorila.placement import WorkerId
from gorila.system.scheduler import Scheduler, StopReason

BUNDLE, ACTOR, LEARNER0, LEARNER1 = (
    WorkerId("bundle", 0),
    WorkerId("actor", 0),
    WorkerId("learner", 0),
    WorkerId("learner", 1),
)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def scheduler(**overrides):
    settings = dict(
        total_steps=10_000,
        update_every=4,
        actors=1,
        learners=1,
        warmup_steps=100,
        chunk_steps=256,
        backoff_s=0.05,
        clock=Clock(),
    )
    settings.update(overrides)
    return Scheduler(**settings)


def act(s: Scheduler, worker=ACTOR, steps=None) -> int:
    budget = s.budget(worker)
    s.started(worker, budget)
    s.finished(worker, budget, Report(steps=budget if steps is None else steps))
    return budget


def learn(s: Scheduler, worker=LEARNER0, done=None) -> int:
    budget = s.budget(worker)
    s.started(worker, budget)
    s.finished(worker, budget, Report(updates=budget if done is None else done))
    return budget


def test_learners_get_their_share_of_one_update_per_update_every_steps():
    s = scheduler(learners=2, actors=1)
    assert s.budget(LEARNER0) == 0  # nothing collected yet
    act(s)  # 256 steps -> 64 updates in all, 32 each
    assert s.budget(LEARNER0) == 32 and s.budget(LEARNER1) == 32
    s.started(LEARNER0, 32)
    assert s.budget(LEARNER0) == 0  # its share is in flight
    s.finished(LEARNER0, 32, Report(updates=20))  # 12 not done: they become budget again
    assert s.budget(LEARNER0) == 12
    assert s.counters.updates == 20


def test_a_learner_without_a_minibatch_backs_off():
    clock = Clock()
    s = scheduler(clock=clock)
    act(s)
    assert learn(s, done=0) == 64  # the replay is still warming up
    assert s.budget(LEARNER0) == 0  # backing off
    clock.now += 0.06
    assert s.budget(LEARNER0) == 64


def test_actors_wait_when_learners_fall_behind_and_resume_when_they_catch_up():
    s = scheduler(warmup_steps=100)  # slack: 256 * 1 actor + 2 * 100 = 456 steps
    assert act(s) == 256 and act(s) == 256  # 512 steps, nothing asked by the learner
    assert s.actors_ahead() and s.budget(ACTOR) == 0
    learn(s)  # 128 updates asked: 512 steps are covered
    assert not s.actors_ahead() and s.budget(ACTOR) == 256


def test_steps_in_flight_count_towards_how_far_the_actors_are_ahead():
    """Chunks handed out and not yet reported are collected all the same: counted only once reported,
    three actors ran a round further ahead than the slack allows."""
    s = scheduler(actors=3, warmup_steps=100)  # slack: 256 * 3 actors + 2 * 100 = 968 steps
    actors = [WorkerId("actor", i) for i in range(3)]
    for actor in actors:
        act(s, actor)  # 768 steps reported, nothing asked
    assert s.budget(actors[0]) == 256
    s.started(actors[0], 256)  # 256 more in flight: 1,024 ahead
    assert s.actors_ahead() and s.budget(actors[1]) == 0
    learn(s)  # 64 updates asked cover 256 steps: 768 ahead
    assert not s.actors_ahead() and s.budget(actors[1]) == 256


def test_bundles_never_wait_for_learners():
    s = scheduler()
    for _ in range(5):
        assert act(s, BUNDLE) == 256


def test_the_budget_is_handed_out_once_and_spending_it_stops_the_run():
    s = scheduler(total_steps=600, actors=2, warmup_steps=10_000)
    first, second = WorkerId("actor", 0), WorkerId("actor", 1)
    for worker in (first, second):
        assert s.budget(worker) == 256
        s.started(worker, 256)
    s.finished(first, 256, Report(steps=256))
    assert s.budget(first) == 256  # 256 done + 256 in flight < 600
    s.started(first, 256)
    s.finished(second, 256, Report(steps=256))
    assert s.budget(second) == 0  # 512 done + 256 in flight >= 600: handed out
    assert s.stop_reason is None  # but not yet spent
    s.finished(first, 256, Report(steps=256))
    assert s.counters.steps == 768 and s.stop_reason is StopReason.BUDGET
    assert s.budget(first) == 0 and s.budget(LEARNER0) == 0


def test_the_first_stop_reason_wins_and_stops_every_worker():
    s = scheduler()
    act(s)
    s.stop(StopReason.SOLVED)
    s.stop(StopReason.INTERRUPTED)
    assert s.stop_reason is StopReason.SOLVED
    assert s.budget(ACTOR) == 0 and s.budget(BUNDLE) == 0 and s.budget(LEARNER0) == 0


def test_work_lost_with_a_process_is_handed_out_again():
    scheduler = Scheduler(total_steps=1_000, update_every=4, actors=1, learners=1, warmup_steps=0, chunk_steps=100)
    actor, learner = WorkerId("actor", 0), WorkerId("learner", 0)
    scheduler.started(actor, 100)
    scheduler.failed(actor, 100)
    assert scheduler.counters.inflight_steps == 0 and scheduler.budget(actor) == 100
    scheduler.started(actor, 100)
    scheduler.finished(actor, 100, Report(steps=100))
    budget = scheduler.budget(learner)
    scheduler.started(learner, budget)
    scheduler.failed(learner, budget)
    assert scheduler.budget(learner) == budget == 25


def test_a_restored_scheduler_continues_the_counters():
    first = Scheduler(total_steps=1_000, update_every=4, actors=2, learners=1, warmup_steps=0, chunk_steps=100)
    for index in (0, 1, 0):
        worker = WorkerId("actor", index)
        first.started(worker, 100)
        first.finished(worker, 100, Report(steps=100, updates=5))
    second = Scheduler(total_steps=2_000, update_every=4, actors=2, learners=1, warmup_steps=0, chunk_steps=100)
    second.restore(first.state())
    assert second.counters.steps == 300 and second.counters.updates == 15
    assert second.counters.worker_steps == {WorkerId("actor", 0): 200, WorkerId("actor", 1): 100}
    assert second.stop_reason is None
    third = Scheduler(total_steps=300, update_every=4, actors=2, learners=1, warmup_steps=0)
    third.restore(first.state())
    assert third.stop_reason is StopReason.BUDGET


def test_actors_ahead_still_run_while_a_learner_finds_no_minibatch():
    """A replay memory restarted empty (its process was killed) gives its learner nothing until the actors
    refill it: holding the actors back then would stall the run for ever."""
    s = scheduler(warmup_steps=100)  # slack: 256 * 1 actor + 2 * 100 = 456 steps
    act(s), act(s)
    learn(s)  # 64 updates (one chunk's worth): 256 steps covered
    act(s)  # 768 steps: 512 ahead of the learner
    assert s.actors_ahead() and s.budget(ACTOR) == 0
    assert learn(s, done=0) == 64  # the replay lost its contents: no minibatch
    assert act(s) == 256 and act(s) == 256  # the actors refill it: slack 456 + 100 + 256
    assert s.actors_ahead() and s.budget(ACTOR) == 0  # but only by one warm-up and one round more
    s.clock.now += 0.06
    learn(s)  # minibatches again: the usual rule is back
    assert not s.counters.starved and s.actors_ahead() and s.budget(ACTOR) == 0


def test_a_learner_that_waited_for_its_replay_gets_at_most_one_chunk_of_updates_per_call():
    """The cause of a global-replay run that collected frames for minutes without one update reported:
    the actors had run ahead while the learner waited for its replay, and its next call asked for all
    the updates they had run ahead by."""
    clock = Clock()
    s = scheduler(clock=clock, total_steps=100_000, warmup_steps=100, chunk_steps=256, update_every=4)
    assert learn(s, done=0) == 0 and s.counters.starved  # no minibatch yet
    for _ in range(40):
        s.counters.steps += 256  # 10,240 steps: 2,560 updates owed
    clock.now += 1.0
    assert s.budget(LEARNER0) == 64  # one actor chunk's worth: 256 / 4
    learn(s)
    assert not s.counters.starved and s.actors_ahead() and s.budget(ACTOR) == 0
    while s.budget(LEARNER0):
        learn(s)  # it catches up 64 updates at a time
    assert s.counters.updates == 2_560 and s.budget(ACTOR) == 256


def test_a_chunk_the_learners_let_through_goes_to_the_actor_that_collected_least():
    """Actors that wait for the learners are served fewest steps first, so that each collects its share
    (served in a fixed order, the first actor took nearly every chunk)."""
    s = scheduler(actors=3, warmup_steps=0)  # slack: one round, 768 steps
    actors = [WorkerId("actor", i) for i in range(3)]
    for actor in (actors[0], actors[0], actors[1], actors[0]):
        act(s, actor)  # 1,024 steps: actor 0 768, actor 1 256
    assert s.actors_ahead()
    learn(s)  # 64 updates: room for one chunk more
    order = s.dispatch_order([*actors, LEARNER0])
    assert order == [LEARNER0, actors[2], actors[1], actors[0]]
    served = [actor for actor in order[1:] if act(s, actor)]
    assert served == [actors[2]]
