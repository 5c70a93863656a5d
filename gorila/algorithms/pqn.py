"""PQN (Gallici et al. 2025, "Simplifying Deep Temporal Difference Learning") in Gorila's bundles: each
bundle's actor steps its copies for a rollout, and its learner makes `rollout_epochs` passes of
`rollout_minibatches` minibatches over it on Q(lambda) targets; no replay memory and no theta-. N
bundles are N PQN agents sharing theta+ through the parameter server.

Its presets are in `pqn_presets`; its actor and learner (`gorila.components.rollouts`,
`rollout_learner`) are built from a worker's `Parts` (`gorila.system.builders`).
"""

from __future__ import annotations

from gorila.algorithms.pqn_presets import PQN_KEPT_IN_ROUNDS, PQN_PRESETS, PQN_SHARES


class PQN:
    """The `Algorithm` of rollouts and Q(lambda): in bundles only."""

    name = "pqn"
    presets = PQN_PRESETS
    learns_from_replay = False
    bundle_shape = ("PQN bundle", "actor --rollouts--> learner, no replay")

    kept_in_rounds = PQN_KEPT_IN_ROUNDS

    def shared_by_actors(self, preset: str) -> tuple[str, ...]:
        return PQN_SHARES

    def shared_in_rounds(self, preset: str) -> tuple[str, ...]:
        return ()

    def check(self, config) -> str | None:
        if not config.bundled:
            return "algorithm pqn runs in bundles only (each actor's rollouts go to its own learner); drop --no-bundled"
        return None

    def gradients(self, config, steps: int) -> int:
        rollouts = steps // (config.rollout_steps * config.envs_per_actor)
        return rollouts * config.rollout_epochs * config.rollout_minibatches

    def learning(self, config, updates: int) -> str:
        rollout = config.rollout_steps * config.envs_per_actor
        return (
            f"it learns from rollouts of {config.rollout_steps:,} steps of its {config.envs_per_actor:,} copies "
            f"({config.rollout_epochs} passes of {config.rollout_minibatches} minibatches of about "
            f"{rollout // config.rollout_minibatches:,}), with no replay memory and no theta-: about "
            f"{updates:,} server updates in the run"
        )

    def network(self, config, info):
        from gorila.agent.networks import q_network_for

        return q_network_for(config, info)

    def bundle(self, parts, index: int, saved_replay: str | None = None):
        """actor_i --rollouts--> learner_i, taking turns (`saved_replay`: none is kept)."""
        from gorila.components.bundle import RolloutBundle
        from gorila.components.rollout_learner import RolloutLearner
        from gorila.components.rollouts import RolloutActor
        from gorila.config.sections import DQNConfig, PQNConfig

        config = parts.config
        env, network, settings = parts.acting(index)
        actor = RolloutActor(
            env,
            network,
            parts.info,
            parts.client(),
            rollout_steps=config.rollout_steps,
            read_every=config.rollout_read_every,
            **settings,
        )
        learner = RolloutLearner(
            parts.learner_network(index),
            parts.client(parts.device),
            pqn_config=config.section(PQNConfig),
            dqn_config=config.section(DQNConfig),
            seed=parts.learner_seed(index),
            device=parts.device,
            precision=config.learner_precision,
        )
        return RolloutBundle(actor, learner, parts.hosted)
