"""A bundle (the paper's experiments): one actor, its local replay and one learner, in one place.

Bundles share nothing but the parameter server. Inside a bundle the learner makes one update every
`update_every` agent steps, DQN's ratio, once the local replay holds enough entries to sample from.
A PQN bundle (`RolloutBundle`) has no replay: its actor's rollouts go straight to its learner, and it
holds nothing to save but what the parameter server holds. Each algorithm builds and connects its
bundle's parts (`gorila.algorithms`).
"""

from __future__ import annotations

from dataclasses import replace

from gorila.components.actor import Actor
from gorila.components.learner import Learner
from gorila.components.replay import ReplayMemory
from gorila.components.rollout_learner import RolloutLearner
from gorila.components.rollouts import RolloutActor
from gorila.messages import Report


class Bundle:
    """An `Actor`, its own `ReplayMemory` and a `Learner`, stepped in lockstep in one process."""

    def __init__(
        self, actor: Actor, replay: ReplayMemory, learner: Learner, update_every: int, hosted_shards: dict | None = None
    ):
        self.actor, self.replay, self.learner = actor, replay, learner
        self.hosted_shards = hosted_shards or {}  # index -> ParameterShard held in this process
        self.update_every = update_every
        self.update_credit = 0  # agent steps not yet matched by an update

    def run(self, budget: int) -> Report:
        """At least `budget` agent steps, with one learner update every `update_every` of them."""
        steps = updates = 0
        while steps < budget:
            taken = self.actor.step()
            steps += taken
            self.update_credit += taken
            while self.update_credit >= self.update_every:
                self.update_credit -= self.update_every
                updates += self.learner.update()
        self.learner.send(refresh=False)
        self.learner.params.drain()
        report = self.actor.report(steps).merge(self.learner.report(updates))
        return replace(report, replay_size=len(self.replay))

    def refresh(self) -> None:
        """Actor and learner read theta+ afresh (the shards in this process were just restored)."""
        self.actor.refresh()
        self.learner.refresh()

    def continue_from(self, steps: int) -> None:
        self.actor.continue_from(steps)

    def save_replay(self, path: str) -> int:
        return self.replay.save_replay(path)

    def replay_size(self) -> int:
        return self.replay.sampleable()

    def close(self) -> None:
        self.actor.close()


class RolloutBundle:
    """PQN in a bundle: a `RolloutActor` and a `RolloutLearner` taking turns in one process, a rollout
    of the one then passes over it by the other (Gallici et al. 2025); N of them share theta+ through
    the parameter server. Called as an actor (`ActorWorker`): it holds no replay memory to save."""

    def __init__(self, actor: RolloutActor, learner: RolloutLearner, hosted_shards: dict | None = None):
        self.actor, self.learner = actor, learner
        self.hosted_shards = hosted_shards or {}  # index -> ParameterShard held in this process

    def run(self, budget: int) -> Report:
        """Whole rollouts until at least `budget` agent steps, each learnt from before the next."""
        steps = updates = 0
        while steps < budget:
            rollout = self.actor.rollout()
            steps += rollout.steps
            updates += self.learner.learn(rollout)
        self.learner.params.drain()
        return self.actor.report(steps).merge(self.learner.report(updates))

    def refresh(self) -> None:
        """Actor and learner read theta+ afresh (the shards in this process were just restored)."""
        self.actor.refresh()
        self.learner.refresh()

    def continue_from(self, steps: int) -> None:
        self.actor.continue_from(steps)

    def close(self) -> None:
        self.actor.close()
