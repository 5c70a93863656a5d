"""The Gorila actor: steps its environment copies with an epsilon-greedy copy of the Q-network.

`ActorBase` is what every actor shares (its copies, its policy, theta+, its episodes and reports);
`Actor`, Gorila's, writes one entry per environment copy to replay (the newest frame of s_t, a_t, r_t, and the
terminal / episode-end flags), refreshing the network from theta+ every `sync_every` agent steps (the
config's `actor_sync_every`). Its builder (`gorila.system.agent_builders`) reads the config and hands it
each setting.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from gorila.agent import dqn
from gorila.agent.networks import load_flat_parameters
from gorila.agent.policy import EpsilonGreedyPolicy
from gorila.core import ParameterSource, TransitionSink
from gorila.envs import VectorEnv
from gorila.messages import EnvInfo, Report


@dataclass(frozen=True)
class EpsilonSchedule:
    """An actor's exploration rate by the agent steps it has taken: `start` for its first `hold_steps`,
    then annealed linearly to `end` over `decay_steps` and held there (DQN's schedule; on an Ape-X
    ladder `end` is the actor's own rung, or an array of one rung per environment copy)."""

    start: float
    end: float | np.ndarray
    decay_steps: int
    hold_steps: int = 0

    def at(self, steps: int) -> float | np.ndarray:
        return dqn.linear_epsilon(steps - self.hold_steps, self.start, self.end, self.decay_steps)

    @property
    def end_step(self) -> int:
        """Agent steps after which epsilon is final: the hold, then the anneal."""
        return self.hold_steps + self.decay_steps


@dataclass(frozen=True)
class RewardRule:
    """The reward as learners see it: clipped to [-1, 1] where `clip` (DQN on Atari), then multiplied by
    `scale` (PQN's CartPole: 0.1). Logged returns stay raw."""

    clip: bool = False
    scale: float = 1.0

    def __call__(self, reward: np.ndarray) -> np.ndarray:
        if self.clip:
            reward = np.clip(reward, -1.0, 1.0)
        return reward * self.scale if self.scale != 1.0 else reward


class ActorBase:
    """What every actor is, whatever it hands its steps to: the copies of `env`, acted in with one
    batched forward pass of `network` per step, epsilon-greedily by `epsilon`, on theta+ read from
    `params`; the episodes it completes and the epsilon it acted with, for its reports. `seed` seeds its
    copies and its exploration. An `Actor` writes each step to replay; PQN's `RolloutActor` hands on
    whole rollouts."""

    def __init__(
        self,
        env: VectorEnv,
        network: torch.nn.Module,
        info: EnvInfo,
        params: ParameterSource,
        *,
        seed: int,
        epsilon: EpsilonSchedule,
        sync_every: int,
        rewards: RewardRule = RewardRule(),
    ):
        self.env, self.info, self.params = env, info, params
        self.network = network.requires_grad_(False)
        self.parameters = list(self.network.parameters())  # walking the module at every sync costs more
        self.policy = EpsilonGreedyPolicy(self.network, info.num_actions, np.random.default_rng(seed))
        self.schedule, self.sync_every, self.rewards = epsilon, sync_every, rewards
        self.obs = self.env.reset(seed=seed)
        num_envs = self.env.num_envs
        self.episode_ended = np.zeros(num_envs, bool)  # the current obs is the last of its episode
        self.episode_return = np.zeros(num_envs, np.float64)
        self.episode_length = np.zeros(num_envs, np.int64)
        self.steps = 0
        # theta+ is first read at the first step, not here: no actor waits for a learner's constructor
        # (shards may live in learners' processes).
        self.steps_since_sync = sync_every
        self.completed: list[float] = []
        self.completed_lengths: list[int] = []
        self.epsilon_sum = 0.0  # epsilon summed over the agent steps taken since the last report

    # Prefetched, a sync never waits: it takes the theta+ asked for at the previous one and asks for the next.
    prefetch = True

    def sync(self) -> None:
        flat, _ = self.params.pull(prefetch=self.prefetch)
        load_flat_parameters(self.parameters, flat)
        self.steps_since_sync = 0

    def refresh(self) -> None:
        """Read theta+ afresh, forgetting any refresh asked for earlier."""
        self.params.forget()
        self.sync()

    @property
    def epsilon(self) -> float | np.ndarray:
        return self.schedule.at(self.steps)

    def count_epsilon(self, epsilon: float | np.ndarray, acted: np.ndarray) -> None:
        """Add the epsilon of each copy that took an agent step (`acted`) to the report's sum."""
        self.epsilon_sum += float(epsilon[acted].sum()) if np.ndim(epsilon) else epsilon * int(acted.sum())

    def _track_episodes(self, result, ended: np.ndarray) -> None:
        """Raw return and length in agent steps of each copy's episode; those that ended are kept."""
        live = ~ended
        self.episode_return[live] += result.reward[live]
        self.episode_length += live
        for slot in np.flatnonzero(result.episode_end & live):
            self.completed.append(float(self.episode_return[slot]))
            self.completed_lengths.append(int(self.episode_length[slot]))
            self.episode_return[slot], self.episode_length[slot] = 0.0, 0

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


class Actor(ActorBase):
    """Gorila's actor: writes each step of its copies to `writer` (a replay memory), reading theta+
    every `sync_every` agent steps."""

    def __init__(self, env, network, info: EnvInfo, params: ParameterSource, writer: TransitionSink, **settings):
        super().__init__(env, network, info, params, **settings)
        self.writer = writer

    def step(self) -> int:
        """One step of every environment copy, one replay entry per copy; the agent steps taken.

        A copy whose last observation ended an episode only resets in this step (its action is
        ignored): that is no agent step, for epsilon, the budget and the learner's update ratio alike.
        """
        if self.steps_since_sync >= self.sync_every:
            self.sync()
        epsilon = self.epsilon
        actions = self.policy.act(self.obs, epsilon)
        result = self.env.step(actions)
        reward = self.rewards(result.reward)
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
        self.count_epsilon(epsilon, ~ended)
        return taken

    def run(self, budget: int) -> Report:
        """At least `budget` agent steps (a whole number of vector steps); a report for the driver."""
        start = self.steps
        while self.steps - start < budget:
            self.step()
        self.writer.flush()
        return self.report(self.steps - start)
