"""The evaluations of theta+ while a run trains: when they are due (`StopRule`), each on the
evaluator beside the workers, a pass confirmed on fresh episodes, the best parameters kept in
best.pt, and when the run was solved.

The driver tracks the evaluator's calls beside the workers' (`start` returns the call) and hands each
result to `finished`, which says what follows (`Verdict`).
"""

from __future__ import annotations

from pathlib import Path

from gorila.config import Config
from gorila.core import EvaluatorServer
from gorila.messages import EnvInfo
from gorila.records.checkpoints import save_best
from gorila.system.run_records import RunRecords
from gorila.system.signals import held
from gorila.system.stop_rule import Candidate, StopRule, Verdict


class Evaluations:
    def __init__(self, config: Config, info: EnvInfo, calls, evaluator, records: RunRecords, run_dir: Path):
        self.config, self.info, self.calls, self.evaluator = config, info, calls, evaluator
        self.records, self.run_dir = records, run_dir
        self.rule = StopRule(info.steps(config.eval_every_frames), config.stop_at_return)
        self.solved_at: tuple[int, float] | None = None  # (frames, wall seconds) of the first confirmed pass
        self.finished_last: Candidate | None = None

    def due(self, steps: int) -> bool:
        return self.rule.due(steps)

    def start(self, candidate: Candidate):
        """Evaluate `candidate` (a second time: confirm it); the evaluator's call."""
        self.rule.started(candidate)
        episodes = self.config.confirm_episodes if candidate.results else self.config.eval_episodes
        return self.calls.call(self.evaluator, EvaluatorServer.evaluate, candidate.theta, episodes)

    def retry(self):
        """The evaluation in flight once more (its evaluator was lost and restarted)."""
        return self.start(self.rule.pending)

    def confirm(self):
        """The confirmation of the parameters whose evaluation just passed (`Verdict.CONFIRM`)."""
        return self.start(self.finished_last)

    def finished(self, result: dict, updates: int) -> Verdict:
        """Record the result (`updates`: the server's so far), keep the parameters in best.pt when they
        are the best so far, and say what follows."""
        candidate = self.finished_last = self.rule.pending
        verdict = self.rule.finished(result)
        frames = self.info.frames(candidate.steps)
        self.records.evaluation(candidate.steps, result, updates, confirming=len(candidate.results) > 1)
        if self.rule.improved:
            payload = self.records.payload(candidate.theta, updates, evaluations=candidate.results)
            with held():
                save_best(self.run_dir, payload, frames)
        if verdict is Verdict.SOLVED:
            self.solved_at = self.solved_at or (frames, self.records.metrics.elapsed())
        return verdict

    def state(self) -> dict:
        """What a resumed run continues from: the stop rule's state and when the run was solved (a
        resumed run that was solved before stays solved at those frames)."""
        return {**self.rule.state(), "solved_at": list(self.solved_at) if self.solved_at else None}

    def restore(self, state: dict) -> None:
        """Continue from `state()` (a checkpoint written before `solved_at` was kept has none)."""
        self.rule.restore(state)
        solved_at = state.get("solved_at")
        self.solved_at = (int(solved_at[0]), float(solved_at[1])) if solved_at else None

    def summary(self) -> dict:
        """The best and last evaluations' means and when the run was solved, for the run's summary."""
        best, last = self.rule.best, self.rule.last
        result = {"best_eval_return_mean": best.score if best else None}
        if last:
            result["final_eval_return_mean"] = last["eval_return_mean"]
        if self.solved_at:
            result["solved_at_frames"], result["solved_at_seconds"] = self.solved_at
        return result
