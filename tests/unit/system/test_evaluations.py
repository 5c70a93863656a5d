"""The evaluations of theta+ while a run trains (`gorila.system.evaluations`), with a real CartPole
evaluator and run records: when one is due, a pass confirmed on more, fresh episodes before the run
is solved, the best parameters kept in best.pt, and the run summary's figures."""

import time

import numpy as np
import torch

from gorila.config import build_config
from gorila.records.checkpoints import load_checkpoint
from gorila.records.metrics import read_metrics
from gorila.runtime.calls import DirectCalls
from gorila.system.agent_builders import make_evaluator
from gorila.system.builders import initial_parameters
from gorila.system.evaluations import Evaluations
from gorila.system.planning import plan_run
from gorila.system.run_records import RunRecords
from gorila.system.stop_rule import Candidate, Verdict
from tests.helpers import CARTPOLE_INFO


def evaluating(run_dir, **settings) -> tuple[Evaluations, np.ndarray]:
    """Evaluations every 1,000 frames of 2 episodes, and theta_0."""
    config = build_config(
        overrides=dict(env="CartPole-v1", hidden_sizes="8", eval_every_frames=1_000, eval_episodes=2, **settings)
    )
    records = RunRecords(config, plan_run(config, CARTPOLE_INFO), run_dir, time.time(), live_progress=False)
    evaluator, theta = make_evaluator(config, CARTPOLE_INFO), initial_parameters(config, CARTPOLE_INFO)
    return Evaluations(config, CARTPOLE_INFO, DirectCalls(), evaluator, records, run_dir), theta


def run(evaluations: Evaluations, call) -> dict:
    [result] = evaluations.calls.get([call])
    return result


def test_a_pass_is_confirmed_on_more_episodes_before_the_run_is_solved_and_kept_as_best(tmp_path):
    evaluations, theta = evaluating(tmp_path, stop_at_return=5.0, confirm_episodes=3)  # any CartPole episode
    assert not evaluations.due(999) and evaluations.due(1_000)
    first = run(evaluations, evaluations.start(Candidate(theta, 1_000)))
    assert not evaluations.due(1_999)  # one evaluation at a time, the next due 1,000 frames after this one
    assert evaluations.finished(first, updates=7) is Verdict.CONFIRM and first["eval_episodes"] == 2
    assert not (tmp_path / "checkpoints" / "best.pt").exists()  # not kept before its confirmation
    confirmation = run(evaluations, evaluations.confirm())
    assert evaluations.finished(confirmation, updates=9) is Verdict.SOLVED and confirmation["eval_episodes"] == 3
    best = load_checkpoint(tmp_path / "checkpoints" / "best.pt")
    np.testing.assert_array_equal(best["theta"].numpy(), theta)
    assert best["evaluations"] == [first, confirmation] and best["updates"] == 9
    summary = evaluations.summary()
    assert summary["best_eval_return_mean"] == summary["final_eval_return_mean"] == confirmation["eval_return_mean"]
    assert summary["solved_at_frames"] == 1_000 and summary["solved_at_seconds"] >= 0
    evaluations.records.metrics.close()
    assert [(r["kind"], r["confirmation"], r["updates"]) for r in read_metrics(tmp_path)] == [
        ("eval", False, 7),
        ("eval", True, 9),
    ]


def test_best_pt_keeps_the_best_scoring_parameters_and_a_run_without_a_target_is_never_solved(tmp_path):
    evaluations, theta = evaluating(tmp_path)
    scores = []
    for steps, parameters in ((1_000, theta), (2_000, np.zeros_like(theta)), (3_000, theta + 0.3)):
        assert evaluations.due(steps)
        result = run(evaluations, evaluations.start(Candidate(parameters, steps)))
        assert evaluations.finished(result, updates=steps) is Verdict.DONE
        scores.append((result["eval_return_mean"], steps, parameters))
    score, steps, parameters = max(scores, key=lambda s: s[0])
    best = load_checkpoint(tmp_path / "checkpoints" / "best.pt")
    np.testing.assert_array_equal(best["theta"].numpy(), parameters)
    assert best["evaluations"][-1]["eval_return_mean"] == score and best["updates"] == steps
    summary = evaluations.summary()
    assert summary["best_eval_return_mean"] == score and "solved_at_frames" not in summary
    assert summary["final_eval_return_mean"] == scores[-1][0]
    evaluations.records.metrics.close()


def test_a_resumed_run_stays_solved_at_the_frames_it_was_solved_at(tmp_path):
    evaluations, theta = evaluating(tmp_path / "first", stop_at_return=5.0, confirm_episodes=3)
    evaluations.finished(run(evaluations, evaluations.start(Candidate(theta, 1_000))), updates=7)
    assert evaluations.finished(run(evaluations, evaluations.confirm()), updates=9) is Verdict.SOLVED
    solved = evaluations.summary()
    evaluations.records.metrics.close()
    torch.save(evaluations.state(), tmp_path / "state.pt")  # as a checkpoint keeps it
    state = torch.load(tmp_path / "state.pt", weights_only=True)

    resumed, _ = evaluating(tmp_path / "resumed", stop_at_return=5.0, confirm_episodes=3)
    resumed.restore(state)
    assert not resumed.due(1_999) and resumed.due(2_000)  # the stop rule's state came back too
    # solved again later: the run was solved at its first confirmed pass, before the stop
    resumed.finished(run(resumed, resumed.start(Candidate(theta, 2_000))), updates=20)
    assert resumed.finished(run(resumed, resumed.confirm()), updates=22) is Verdict.SOLVED
    summary = resumed.summary()
    assert (summary["solved_at_frames"], summary["solved_at_seconds"]) == (1_000, solved["solved_at_seconds"])
    resumed.records.metrics.close()

    old = {key: value for key, value in state.items() if key != "solved_at"}  # a checkpoint from before
    unsolved, _ = evaluating(tmp_path / "old", stop_at_return=5.0)
    unsolved.restore(old)
    assert unsolved.due(2_000) and "solved_at_frames" not in unsolved.summary()
    unsolved.records.metrics.close()
