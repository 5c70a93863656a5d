"""Evaluation of theta+: `eval_episodes` episodes played epsilon-greedily at `eval_epsilon` (the Atari
preset's 0.05) on the copies its builder gives it (`gorila.system.agent_builders.make_evaluator`): on
Atari with null-op starts (up to 30 no-ops) and the config's sticky actions and action set, or the
copies another protocol plays on."""

from __future__ import annotations

import numpy as np
import torch

from gorila.agent.networks import load_flat_parameters
from gorila.agent.policy import EpsilonGreedyPolicy
from gorila.envs import VectorEnv, play_episodes
from gorila.messages import EnvInfo


class Evaluator:
    """Plays `episodes` episodes at a time on the copies of `env` with an epsilon-greedy copy of the given
    parameters (`epsilon`: the config's `eval_epsilon`); `seed` seeds its exploration and its first
    round's episodes."""

    def __init__(
        self, env: VectorEnv, network: torch.nn.Module, info: EnvInfo, *, episodes: int, epsilon: float, seed: int
    ):
        self.env, self.info, self.episodes, self.epsilon, self.seed = env, info, episodes, epsilon, seed
        self.network = network.eval().requires_grad_(False)  # evaluation mode: noisy layers play without noise
        self.policy = EpsilonGreedyPolicy(
            self.network, info.num_actions, np.random.default_rng(self.seed), whole_batch=True
        )
        self.next_seed = self.seed

    def act(self, obs: np.ndarray) -> np.ndarray:
        return self.policy.act(obs, self.epsilon)

    def evaluate(self, flat_parameters: np.ndarray, episodes: int | None = None) -> dict:
        """Mean, standard deviation and all returns of one evaluation round of `episodes` episodes
        (default: eval_episodes).

        Each round resets its environment with a seed no earlier round used, so two rounds on the
        same parameters play different episodes: a round takes max(copies, episodes) seeds after the
        last round's, from `round_seed` on. What each copy or episode starts from is the environment's
        `episode_seeds(round_seed, episodes)`: copy i from round_seed + i on ale-py and on Gymnasium
        copies stepped in a loop, episode e of a `ProtocolEnv` from round_seed + e, the whole batch
        from round_seed on Gymnasium's batched CartPole.
        """
        load_flat_parameters(self.network, flat_parameters)
        episodes = episodes or self.episodes
        self.round_seed = self.next_seed
        self.next_seed += max(self.env.num_envs, episodes)
        returns = play_episodes(self.env, self.act, episodes, seed=self.round_seed)
        return {
            "eval_return_mean": float(np.mean(returns)),
            "eval_return_std": float(np.std(returns)),
            "eval_episodes": len(returns),
            "eval_returns": [float(r) for r in returns],
        }

    def close(self) -> None:
        self.env.close()
