"""DQN (Mnih et al. 2015) as Gorila runs it (Nair et al. 2015): actors write transitions to replay
memories, learners sample minibatches of them and send the gradient of the TD error against theta-,
one update per `update_every` agent steps; in bundles, or any mix of actors, replays and learners.

Its presets are in `dqn_presets`; the Actor, replay memory and Learner are Gorila's components, built
from a worker's `Parts` (`gorila.system.builders`).
"""

from __future__ import annotations

from gorila.algorithms.dqn_presets import DQN_PRESETS, DQN_SHARES, DQN_SHARES_IN_ROUNDS, WHOLE_AGENT_PRESETS


class DQN:
    """The algorithm of Gorila's paper (an `ActorLearnerAlgorithm`): replay, theta-, the DQN gradient."""

    name = "dqn"
    presets = DQN_PRESETS
    learns_from_replay = True
    bundle_shape = ("bundle", "actor + local replay + learner")

    kept_in_rounds = ()

    def shared_by_actors(self, preset: str) -> tuple[str, ...]:
        return () if preset in WHOLE_AGENT_PRESETS else DQN_SHARES

    def shared_in_rounds(self, preset: str) -> tuple[str, ...]:
        return () if preset in WHOLE_AGENT_PRESETS else DQN_SHARES_IN_ROUNDS

    def check(self, config) -> str | None:
        return None  # every topology

    def gradients(self, config, steps: int) -> int:
        return steps // config.update_every

    def learning(self, config, updates: int) -> str:
        return (
            f"theta- every {config.target_update_every:,} server updates "
            f"(about {updates // config.target_update_every:,} times in the run)"
        )

    def network(self, config, info):
        from gorila.agent.networks import q_network_for

        return q_network_for(config, info)

    def actor(self, parts, index: int, writer):
        return parts.actor(index, writer)

    def learner(self, parts, index: int, replay):
        return parts.learner(index, replay)

    def bundle(self, parts, index: int, saved_replay: str | None = None):
        """actor_i --writes--> local replay_i --minibatches--> learner_i, one update per update_every steps."""
        from gorila.components.bundle import Bundle

        replay = parts.bundle_replay(index, saved_replay)
        actor = self.actor(parts, index, parts.writer_to(replay))
        return Bundle(actor, replay, self.learner(parts, index, replay), parts.config.update_every, parts.hosted)
