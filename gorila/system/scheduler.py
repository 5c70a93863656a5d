"""The driver's budget policy: how much work each idle worker gets next, and when the run stops.

Pure bookkeeping, no Ray and no environment, so it is unit-tested on its own. Everything is counted
in agent steps. The rules:

- actors and bundles get `chunk_steps` agent steps at a time until the budget is handed out;
- a learner outside a bundle may not run ahead of DQN's ratio: its share of one update per
  `update_every` agent steps collected by all actors, and at most one actor chunk's worth of updates
  (`chunk_steps / update_every`) per call, so that it reports as often as an actor does (uncapped, a
  learner that had been waiting for its replay got every update the actors had run ahead by in one
  call: minutes without a report, the actors unchecked, and at `call_timeout_seconds` a restart);
- actors outside bundles wait when they have collected more than the learners asked for, counting
  the steps they are collecting now (uncounted, each actor's chunk in flight let the actors run one
  round further ahead than the slack says: with 3 actors on 2 cores a learner fell to 42% of DQN's
  ratio in a short run), plus a slack of one round of work and twice the replay warm-up (so every
  replay fills before anyone waits);
  while a learner's last call found no minibatch the slack grows by one warm-up and one round more:
  its replay needs the actors' data (a replay memory restarted empty would otherwise hold every
  actor and learner still for ever), but only that much (unbounded, the actors ran thousands of steps
  ahead of DQN's replay ratio while a learner's first call was slow to return);
- idle workers are served learners first, then actors and bundles fewest steps first: when the
  learners let one more actor chunk through, it goes to an actor that has been waiting, not to the one
  that happened to report first (served in a fixed order, one actor of 12 collected most of the
  frames, its epsilon annealed about 3x early and the other actors' replay streams stood still);
- a learner that got no minibatch (its replay is still warming up) is not asked again for `backoff_s`;
- the work of a call lost with its process (`failed`) is handed out again;
- the first stop reason wins: the budget is spent, the target return is reached, or the user stopped.
"""

from __future__ import annotations

import enum
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from gorila.messages import Report
from gorila.placement import Kind, WorkerId

CHUNK_STEPS = 256  # agent steps per actor/bundle work item (a fraction of a second)
BACKOFF_S = 0.05  # a learner whose replay is still warming up waits this long


@dataclass(frozen=True)
class Job:
    """A call in flight: who runs it, the budget it was given and when it was made."""

    worker: WorkerId
    budget: int = 0
    since: float = 0.0


class StopReason(enum.Enum):
    BUDGET = "budget"  # total_frames collected
    SOLVED = "solved"  # a confirmed evaluation reached stop_at_return
    REACHED = "reached"  # the training mean of the last 100 episodes reached stop_at_train_return
    INTERRUPTED = "interrupted"  # Ctrl-C or SIGTERM


@dataclass
class Counters:
    """What the scheduler knows: work reported, work handed out and not yet reported."""

    steps: int = 0  # agent steps reported by actors and bundles
    updates: int = 0  # learner updates reported
    inflight_steps: int = 0  # agent steps handed out, not yet reported
    requested: Counter = field(default_factory=Counter)  # learner index -> updates asked (done + in flight)
    backoff_until: dict = field(default_factory=dict)  # learner index -> clock time
    starved: set = field(default_factory=set)  # learners whose last call got no minibatch
    worker_steps: Counter = field(default_factory=Counter)  # actor/bundle WorkerId -> agent steps reported


class Scheduler:
    def __init__(
        self,
        total_steps: int,
        update_every: int,
        actors: int,
        learners: int,
        warmup_steps: int,
        chunk_steps: int = CHUNK_STEPS,
        backoff_s: float = BACKOFF_S,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.total_steps, self.update_every = total_steps, update_every
        self.actors, self.learners = actors, learners
        self.warmup_steps, self.chunk_steps, self.backoff_s = warmup_steps, chunk_steps, backoff_s
        self.learner_chunk = max(1, chunk_steps // update_every)  # most updates per learner call
        self.clock = clock
        self.counters = Counters()
        self.stop_reason: StopReason | None = None

    def budget(self, worker: WorkerId) -> int:
        """Agent steps (actors, bundles) or updates (learners) for an idle worker; 0 means wait."""
        if self.stop_reason is not None:
            return 0
        if worker.role is Kind.LEARNER:
            return self._learner_budget(worker.index)
        counters = self.counters
        if counters.steps + counters.inflight_steps >= self.total_steps:
            return 0
        if worker.role is Kind.ACTOR and self.actors_ahead():
            return 0
        return self.chunk_steps

    def dispatch_order(self, workers) -> list[WorkerId]:
        """`workers` in the order their budgets are asked for: learners, then the rest by the agent
        steps each has reported (fewest first; ties by index)."""
        steps = self.counters.worker_steps
        return sorted(workers, key=lambda w: (w.role is not Kind.LEARNER, steps[w], w.index))

    def _learner_budget(self, index: int) -> int:
        if self.clock() < self.counters.backoff_until.get(index, 0.0):
            return 0
        share = self.counters.steps // self.update_every // self.learners
        return min(max(share - self.counters.requested[index], 0), self.learner_chunk)

    def actors_ahead(self) -> bool:
        """Have the actors collected (or are collecting) more than the learners asked for, plus the slack?"""
        asked = sum(self.counters.requested.values())
        collected = self.counters.steps + self.counters.inflight_steps
        return collected - asked * self.update_every > self.slack()

    def slack(self) -> int:
        """Agent steps the actors may collect beyond the learners' asked updates (times update_every):
        one round of work and twice the warm-up, and while a learner finds no minibatch, one warm-up and
        one round more."""
        slack = self.chunk_steps * self.actors + 2 * self.warmup_steps
        if self.counters.starved:  # a replay is refilling: room for one more warm-up of fresh data
            slack += self.warmup_steps + self.chunk_steps * self.actors
        return slack

    def started(self, worker: WorkerId, budget: int) -> None:
        if worker.role is Kind.LEARNER:
            self.counters.requested[worker.index] += budget
        else:
            self.counters.inflight_steps += budget

    def finished(self, worker: WorkerId, budget: int, report: Report) -> None:
        counters = self.counters
        if worker.role is Kind.LEARNER:
            counters.requested[worker.index] -= budget - report.updates
            if report.updates == 0:
                counters.backoff_until[worker.index] = self.clock() + self.backoff_s
                counters.starved.add(worker.index)
            else:
                counters.starved.discard(worker.index)
        else:
            counters.inflight_steps -= budget
        counters.steps += report.steps
        counters.updates += report.updates
        counters.worker_steps[worker] += report.steps
        if counters.steps >= self.total_steps:
            self.stop(StopReason.BUDGET)

    def failed(self, worker: WorkerId, budget: int) -> None:
        """A call was lost with its process: nothing of it is counted, its work is handed out again."""
        if worker.role is Kind.LEARNER:
            self.counters.requested[worker.index] -= budget
        else:
            self.counters.inflight_steps -= budget

    def state(self) -> dict:
        """The counters a resumed run continues from (plain data, for checkpoints)."""
        counters = self.counters
        return {
            "steps": counters.steps,
            "updates": counters.updates,
            "requested": {int(k): int(v) for k, v in counters.requested.items()},
            "worker_steps": {f"{w.role}:{w.index}": int(n) for w, n in counters.worker_steps.items()},
        }

    def restore(self, state: dict) -> None:
        counters = self.counters
        counters.steps, counters.updates = state["steps"], state["updates"]
        counters.requested = Counter({int(k): v for k, v in state["requested"].items()})
        counters.worker_steps = Counter({_worker_id(key): n for key, n in state["worker_steps"].items()})
        if counters.steps >= self.total_steps:
            self.stop(StopReason.BUDGET)

    def stop(self, reason: StopReason) -> None:
        """Hand out no more work; the first reason given is the run's."""
        if self.stop_reason is None:
            self.stop_reason = reason


def _worker_id(key: str) -> WorkerId:
    role, index = key.split(":")
    return WorkerId(role, int(index))
