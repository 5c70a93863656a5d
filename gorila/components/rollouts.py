"""PQN's actor: steps its environment copies for a whole rollout with the current theta+, and hands the
rollout on instead of writing it to a replay memory (Gallici et al. 2025).

A rollout keeps every observation acted on and, for each step, max_a Q(s_{t+1}, a) under the
parameters that acted: the Q-values an actor computes to choose its next action are the bootstraps
of the Q(lambda) targets (`gorila.agent.q_lambda`), so the learner needs no second pass for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gorila.agent import dqn
from gorila.agent.networks import load_flat_parameters
from gorila.components.actor import ActorBase
from gorila.core import ParameterSource
from gorila.messages import EnvInfo


@dataclass
class Rollout:
    """T steps of N environment copies; every array is [T, N, ...], step t of copy n."""

    obs: np.ndarray  # the observation acted on
    actions: np.ndarray  # int64
    rewards: np.ndarray  # float32, clipped where the config clips
    terminals: np.ndarray  # bool: the step ended with no bootstrap (a real terminal, or a life loss)
    lasts: np.ndarray  # bool: the observation after the step was its episode's last
    acted: np.ndarray  # bool: an agent step (False: the copy's episode had ended and it only reset)
    next_max_q: np.ndarray  # float32: max_a Q(s_{t+1}, a) under the parameters that acted
    last_obs: np.ndarray  # [N, ...]: the observation after the last step (s_T)
    versions: np.ndarray  # the theta+ versions (one per shard) that acted

    @property
    def steps(self) -> int:
        """Agent steps in the rollout."""
        return int(self.acted.sum())


class RolloutActor(ActorBase):
    """An actor whose steps go into a `Rollout` of `rollout_steps` vector steps; it reads theta+
    afresh (waiting for it) before each rollout, so that every rollout starts with the newest, and
    again every `read_every` vector steps within it without waiting (the answer to the request sent at
    the previous read): where other bundles move theta+ while this one acts, it acts on their updates
    too, as one PQN agent always acts on its current parameters. Alone, it finds theta+ unmoved and
    loads nothing."""

    def __init__(
        self,
        env,
        network,
        info: EnvInfo,
        params: ParameterSource,
        *,
        rollout_steps: int,
        read_every: int = 0,
        **settings,
    ):
        super().__init__(env, network, info, params, **settings)
        self.rollout_steps, self.read_every = rollout_steps, read_every

    def read(self) -> bool:
        """theta+ as the server answered the previous read (asking for the next); loaded only where
        it moved since the parameters this actor acts on. Whether it moved."""
        acting = self.params.versions.copy()
        flat, _ = self.params.pull(prefetch=True)
        if np.array_equal(self.params.versions, acting):
            return False
        load_flat_parameters(self.parameters, flat)
        return True

    def rollout(self) -> Rollout:
        """`rollout_steps` steps of every copy, epsilon-greedy on the current theta+."""
        self.refresh()  # waits for the newest, and asks for the next read at once
        steps, num_envs = self.rollout_steps, self.env.num_envs
        rollout = Rollout(
            obs=np.empty((steps, *self.obs.shape), self.obs.dtype),
            actions=np.empty((steps, num_envs), np.int64),
            rewards=np.empty((steps, num_envs), np.float32),
            terminals=np.empty((steps, num_envs), bool),
            lasts=np.empty((steps, num_envs), bool),
            acted=np.empty((steps, num_envs), bool),
            next_max_q=np.empty((steps, num_envs), np.float32),
            last_obs=self.obs,  # replaced at the end
            versions=self.params.versions.copy(),
        )
        q = self.policy.q_values(self.obs)
        for t in range(steps):
            if t and self.read_every and t % self.read_every == 0 and self.read():
                q = self.policy.q_values(self.obs)
            epsilon = self.epsilon
            actions = dqn.greedy_with_epsilon(q, epsilon, self.policy.rng, self.policy.tie_rng)
            result = self.env.step(actions)
            ended = self.episode_ended  # these copies only reset in this step: no agent step
            reward = self.rewards(result.reward)
            rollout.obs[t], rollout.actions[t] = self.obs, actions
            rollout.rewards[t] = np.where(ended, 0.0, reward)
            rollout.terminals[t] = result.terminal & ~ended
            rollout.lasts[t] = result.episode_end & ~ended
            rollout.acted[t] = ~ended
            self._track_episodes(result, ended)
            self.obs, self.episode_ended = result.obs, result.episode_end.copy()
            q = self.policy.q_values(self.obs)
            rollout.next_max_q[t] = q.max(axis=1)
            self.steps += len(ended) - int(ended.sum())
            self.count_epsilon(epsilon, ~ended)
        rollout.last_obs = np.array(self.obs)
        return rollout
