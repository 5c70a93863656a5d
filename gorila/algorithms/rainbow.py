"""Rainbow (Hessel et al. 2018, "Rainbow: Combining Improvements in Deep Reinforcement Learning") as
Gorila runs it: DQN's actors, replay memories, parameter server and topologies, with a distributional
learner (C51's categorical return distributions and cross-entropy loss) and, where `noisy` is on, noisy
layers that explore in place of epsilon-greedy. The other parts of Rainbow are DQN's own settings:
double Q-learning (`double_dqn`), the dueling head (`dueling`, over atoms here), n-step returns
(`n_step`) and prioritised replay (`prioritised`, on each transition's cross-entropy).

Its presets are in `rainbow_presets`; its network is `gorila.agent.heads.DistributionalQNetwork`, its
learner `gorila.components.distributional_learner.DistributionalLearner`.
"""

from __future__ import annotations

from gorila.algorithms.dqn import DQN
from gorila.algorithms.rainbow_presets import RAINBOW_PRESETS


class Rainbow(DQN):
    """DQN's algorithm with a distributional head and loss: every topology DQN runs in."""

    name = "rainbow"
    presets = RAINBOW_PRESETS

    def check(self, config) -> str | None:
        from gorila.agent.networks import is_users_network

        if not config.v_min < config.v_max:
            return f"v_min must be below v_max (the atoms' support), got [{config.v_min:g}, {config.v_max:g}]"
        if is_users_network(config.network):
            return "algorithm rainbow puts its distributional head on a built-in network; a network of your own brings its own head"
        if config.weight_init != "default":
            return "weight_init he_normal is PQN's initialisation of a Q-value head; rainbow's distributional head takes the default"
        return None

    def learning(self, config, updates: int) -> str:
        noise = f", noisy layers (sigma_0 {config.noisy_sigma0:g})" if config.noisy else ""
        return (
            f"return distributions on {config.num_atoms} atoms in [{config.v_min:g}, {config.v_max:g}]{noise}; "
            + super().learning(config, updates)
        )

    def network(self, config, info):
        from gorila.agent.heads import distributional_q_network

        return distributional_q_network(config, info)

    def learner(self, parts, index: int, replay):
        from gorila.components.distributional_learner import DistributionalLearner

        return parts.learner(index, replay, DistributionalLearner)
