"""When the driver evaluates, and what makes a run solved (`gorila.system.stop_rule`)."""

import math

import numpy as np

from gorila.system.stop_rule import Candidate, StopRule, Verdict


def result(mean: float) -> dict:
    return {"eval_return_mean": mean}


def evaluate(plan: StopRule, steps: int, mean: float, theta=None) -> tuple[Candidate, Verdict]:
    candidate = Candidate(np.zeros(3) if theta is None else theta, steps)
    plan.started(candidate)
    return candidate, plan.finished(result(mean))


def test_evaluations_are_due_every_interval_one_at_a_time():
    plan = StopRule(every_steps=100)
    assert not plan.due(99) and plan.due(100)
    plan.started(Candidate(np.zeros(3), 120))
    assert not plan.due(10_000)  # one in flight
    plan.finished(result(1.0))
    assert not plan.due(219) and plan.due(220)  # counted from the evaluated parameters


def test_without_an_interval_only_explicit_evaluations_happen():
    assert not StopRule(every_steps=0).due(10**12)


def test_a_pass_must_be_confirmed_on_the_same_parameters():
    plan = StopRule(every_steps=100, target=475)
    theta = np.arange(3.0)
    candidate, verdict = evaluate(plan, 100, 500.0, theta)
    assert verdict is Verdict.CONFIRM and plan.best is None  # a candidate, not yet judged
    plan.started(candidate)  # the confirmation: same object, same theta
    assert not plan.due(10**6)
    assert plan.finished(result(480.0)) is Verdict.SOLVED
    assert plan.best is candidate and plan.improved
    assert candidate.score == 480.0 and [r["eval_return_mean"] for r in candidate.results] == [500.0, 480.0]


def test_a_lucky_round_that_is_not_confirmed_does_not_solve():
    plan = StopRule(every_steps=100, target=475)
    candidate, verdict = evaluate(plan, 100, 490.0)
    plan.started(candidate)
    assert plan.finished(result(160.0)) is Verdict.DONE  # not solved
    assert plan.best.score == 160.0  # judged by the unbiased confirmation
    assert plan.due(200)  # training goes on


def test_best_follows_the_score_and_says_when_it_improved():
    plan = StopRule(every_steps=100)
    first, _ = evaluate(plan, 100, 10.0)
    assert plan.improved and plan.best is first
    evaluate(plan, 200, 5.0)
    assert not plan.improved and plan.best is first
    third, verdict = evaluate(plan, 300, 30.0)
    assert verdict is Verdict.DONE and plan.improved and plan.best is third
    assert plan.last == result(30.0)


def test_no_target_means_no_confirmation():
    plan = StopRule(every_steps=100, target=0.0)
    _, verdict = evaluate(plan, 100, 1e9)
    assert verdict is Verdict.DONE  # not solved, nothing to confirm
    assert Candidate(np.zeros(1), 0).score == -math.inf
