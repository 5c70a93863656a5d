"""The run's allowance of failures (`gorila.system.faults.FaultBudget`): each failure is counted and
shown as `fault n/max`, and the first one beyond `max_failures` ends the run with a WorkerError that
says how many there were and which was the last; a resumed run's budget counts those before it."""

import pytest

from gorila.runtime.calls import WorkerError
from gorila.system.faults import FaultBudget


def test_each_failure_is_counted_and_shown_until_the_first_beyond_the_allowance_ends_the_run():
    budget = FaultBudget(max_failures=2)
    assert budget.spend("actor 0 died (ConnectionError)") == "fault 1/2: actor 0 died (ConnectionError)"
    assert budget.spend("replay shard 0 was restarted") == "fault 2/2: replay shard 0 was restarted"
    with pytest.raises(WorkerError) as raised:
        budget.spend("learner 1 died (RayActorError)")
    assert str(raised.value) == (
        "giving up after 3 component failures (max_failures=2); the last: learner 1 died (RayActorError)"
    )
    assert budget.count == 3


def test_a_resumed_budget_counts_the_failures_before_the_resume():
    budget = FaultBudget(max_failures=3, already=2)
    assert budget.spend("evaluator died") == "fault 3/3: evaluator died"
    with pytest.raises(WorkerError, match=r"^giving up after 4 component failures \(max_failures=3\); the last: x$"):
        budget.spend("x")


def test_no_allowance_gives_up_at_the_first_failure():
    with pytest.raises(WorkerError, match=r"giving up after 1 component failures \(max_failures=0\)"):
        FaultBudget(max_failures=0).spend("run stalled")
