"""When the driver evaluates theta+, and when an evaluation means the run is solved.

theta+ is evaluated every `every_steps` agent steps, one evaluation at a time. With a target return,
an evaluation that reaches it is only a candidate: the same parameters are evaluated a second time on
fresh episode seeds (and more episodes: `confirm_episodes`), and only if that independent
confirmation also reaches the target is the run solved. A lucky round therefore cannot stop a run. The parameters with the best score (the
confirmation's mean where there is one) are kept for the run's `best` checkpoint.
Pure bookkeeping: the driver does the calls.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Candidate:
    """Parameters taken from the server at `steps` agent steps, and the evaluations they got."""

    theta: np.ndarray
    steps: int
    results: list[dict] = field(default_factory=list)  # the evaluation, then its confirmation

    @property
    def score(self) -> float:
        """The last evaluation's mean: the confirmation's, which selection did not bias, when there is one."""
        return self.results[-1]["eval_return_mean"] if self.results else -math.inf


class Verdict(enum.Enum):
    DONE = "done"  # nothing more to do with these parameters
    CONFIRM = "confirm"  # evaluate the same parameters once more, on fresh seeds
    SOLVED = "solved"  # confirmed at or above the target


class StopRule:
    def __init__(self, every_steps: int, target: float = 0.0):
        self.every_steps = every_steps
        self.target = target
        self.next_at = every_steps if every_steps else math.inf
        self.pending: Candidate | None = None
        self.best: Candidate | None = None
        self.last: dict | None = None

    def due(self, steps: int) -> bool:
        return self.pending is None and steps >= self.next_at

    def started(self, candidate: Candidate) -> None:
        if not candidate.results:  # a first evaluation, not a confirmation
            self.next_at = candidate.steps + (self.every_steps or math.inf)
        self.pending = candidate

    def finished(self, result: dict) -> Verdict:
        """Record the pending evaluation's result and say what follows from it."""
        candidate, self.pending = self.pending, None
        candidate.results.append(result)
        self.last = result
        passed = bool(self.target) and result["eval_return_mean"] >= self.target
        if passed and len(candidate.results) == 1:
            return Verdict.CONFIRM  # the caller starts the confirmation at once
        if self.best is None or candidate.score > self.best.score:
            self.best = candidate
        if passed:
            return Verdict.SOLVED
        return Verdict.DONE

    def state(self) -> dict:
        """What a resumed run needs: when the next evaluation is due, and the best and last results."""
        best = self.best
        return {
            "next_at": self.next_at,
            "last": self.last,
            "best": {"steps": best.steps, "results": best.results} if best else None,
        }

    def restore(self, state: dict) -> None:
        self.next_at, self.last = state["next_at"], state["last"]
        if state["best"]:  # its parameters are in best.pt; only the score is needed here
            self.best = Candidate(None, state["best"]["steps"], list(state["best"]["results"]))

    @property
    def improved(self) -> bool:
        """Did the evaluation just finished make its parameters the best so far?"""
        return self.best is not None and self.best.results[-1] is self.last
