"""The Gorila actor: steps its environment copies with an epsilon-greedy copy of the Q-network.

Each step writes one entry per environment copy to replay (the newest frame of s_t, a_t, r_t, and the
terminal / episode-end flags), refreshing the network from theta+ every `actor_sync_every` steps.
"""

from __future__ import annotations

import numpy as np
import torch

from gorila.agent import dqn
from gorila.agent.networks import load_flat_parameters, q_network_for
from gorila.agent.policy import EpsilonGreedyPolicy
from gorila.config import Config
from gorila.core import ParameterSource, TransitionSink
from gorila.envs import make_vector_env_for
from gorila.messages import EnvInfo, Report
from gorila.seeds import actor_seed


def final_epsilon(config: Config, index: int) -> float:
    """Where this actor's epsilon settles: the Ape-X ladder rung, or epsilon_end for all."""
    if config.epsilon_ladder and config.actors > 1:
        return dqn.epsilon_ladder(index, config.actors, config.ladder_base, config.ladder_alpha)
    return config.epsilon_end


def learning_reward(config: Config, reward: np.ndarray) -> np.ndarray:
    """The reward as learners see it: clipped to [-1, 1] (`clip_rewards`), then scaled (`reward_scale`)."""
    if config.clip_rewards:
        reward = np.clip(reward, -1.0, 1.0)
    return reward * config.reward_scale if config.reward_scale != 1.0 else reward


def epsilon_hold_steps(config: Config) -> int:
    """Agent steps an actor holds epsilon at its start (`epsilon_hold`): its share of the experience
    gathered before learning starts (a bundle's replay fills from its own actor only)."""
    if not config.epsilon_hold:
        return 0
    return config.learning_starts if config.bundled else -(-config.learning_starts // config.actors)


def epsilon_end_step(config: Config) -> int:
    """Agent steps of an actor after which its epsilon is final: the hold, then the anneal."""
    return epsilon_hold_steps(config) + config.epsilon_decay_steps


class Actor:
    """Acts in `envs_per_actor` environment copies with one batched forward pass per step."""

    def __init__(self, config: Config, info: EnvInfo, index: int, params: ParameterSource, writer: TransitionSink):
        torch.set_num_threads(config.torch_threads)
        self.config, self.info, self.index = config, info, index
        self.params, self.writer = params, writer
        seed = actor_seed(config.seed, index)
        self.env = make_vector_env_for(config, config.envs_per_actor, seed)
        self.network = q_network_for(config, info).requires_grad_(False)
        self.parameters = list(self.network.parameters())  # walking the module at every sync costs more
        self.policy = EpsilonGreedyPolicy(self.network, info.num_actions, np.random.default_rng(seed))
        self.epsilon_end = final_epsilon(config, index)
        self.epsilon_decay_steps = config.epsilon_decay_steps
        self.epsilon_hold = epsilon_hold_steps(config)
        self.obs = self.env.reset(seed=seed)
        num_envs = self.env.num_envs
        self.episode_ended = np.zeros(num_envs, bool)  # the current obs is the last of its episode
        self.episode_return = np.zeros(num_envs, np.float64)
        self.episode_length = np.zeros(num_envs, np.int64)
        self.steps = 0
        # theta+ is first read at the first step, not here: no actor waits for a learner's constructor
        # (shards may live in learners' processes).
        self.steps_since_sync = config.actor_sync_every
        self.completed: list[float] = []
        self.completed_lengths: list[int] = []
        self.epsilon_sum = 0.0  # epsilon summed over the agent steps taken since the last report

    def sync(self) -> None:
        flat, _ = self.params.pull(prefetch=True)  # never waits: takes the previous request's answer
        load_flat_parameters(self.parameters, flat)
        self.steps_since_sync = 0

    def refresh(self) -> None:
        """Read theta+ afresh, forgetting any refresh asked for earlier."""
        self.params.forget()
        self.sync()

    @property
    def epsilon(self) -> float:
        return dqn.linear_epsilon(
            self.steps - self.epsilon_hold, self.config.epsilon_start, self.epsilon_end, self.epsilon_decay_steps
        )

    def step(self) -> int:
        """One step of every environment copy, one replay entry per copy; the agent steps taken.

        A copy whose last observation ended an episode only resets in this step (its action is
        ignored): that is no agent step, for epsilon, the budget and the learner's update ratio alike.
        """
        if self.steps_since_sync >= self.config.actor_sync_every:
            self.sync()
        epsilon = self.epsilon
        actions = self.policy.act(self.obs, epsilon)
        result = self.env.step(actions)
        reward = learning_reward(self.config, result.reward)
        newest_frame = self.obs[:, -1] if self.info.stack > 1 else self.obs
        # A slot whose obs ended an episode takes no action: its entry only marks the episode end.
        ended = self.episode_ended
        self.writer.add(
            newest_frame,
            actions,
            np.where(ended, 0.0, reward).astype(np.float32),
            result.terminal & ~ended,
            ended.copy(),
        )
        self._track_episodes(result, ended)
        self.obs = result.obs
        self.episode_ended = result.episode_end.copy()
        taken = len(ended) - int(ended.sum())
        self.steps += taken
        self.steps_since_sync += taken
        self.epsilon_sum += epsilon * taken
        return taken

    def _track_episodes(self, result, ended: np.ndarray) -> None:
        """Raw return and length in agent steps of each copy's episode; those that ended are kept."""
        live = ~ended
        self.episode_return[live] += result.reward[live]
        self.episode_length += live
        for slot in np.flatnonzero(result.episode_end & live):
            self.completed.append(float(self.episode_return[slot]))
            self.completed_lengths.append(int(self.episode_length[slot]))
            self.episode_return[slot], self.episode_length[slot] = 0.0, 0

    def run(self, budget: int) -> Report:
        """At least `budget` agent steps (a whole number of vector steps); a report for the driver."""
        start = self.steps
        while self.steps - start < budget:
            self.step()
        self.writer.flush()
        return self.report(self.steps - start)

    def continue_from(self, steps: int) -> None:
        """Carry on from `steps` agent steps already taken (a resumed run, a restarted process):
        epsilon continues its schedule instead of starting again at epsilon_start."""
        self.steps = steps

    def report(self, steps: int) -> Report:
        report = Report(
            steps=steps,
            episode_returns=tuple(self.completed),
            episode_lengths=tuple(self.completed_lengths),
            epsilon_sum=self.epsilon_sum,
        )
        self.completed, self.completed_lengths, self.epsilon_sum = [], [], 0.0
        return report

    def close(self) -> None:
        self.env.close()
