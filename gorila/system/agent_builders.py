"""Where the actors, learners and evaluator are built from a config: each reads the config here, once,
and is handed its environment copies, its network and every setting as an argument of its own.

The seeds come from `gorila.seeds`, the network from the config's algorithm (`network_for`), the
copies from `make_vector_env_for`; `gorila.system.builders` adds the parameter clients, replay memories
and bundles around them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from gorila.agent import dqn
from gorila.algorithms import algorithm_of
from gorila.components.actor import Actor, EpsilonSchedule, RewardRule
from gorila.components.evaluator import Evaluator
from gorila.components.learner import Learner
from gorila.config import Config, ConfigError
from gorila.config.sections import DQNConfig, ParameterServerConfig
from gorila.core import MinibatchSource, ParameterSource, TransitionSink
from gorila.envs import VectorEnv, make_vector_env_for
from gorila.messages import EnvInfo
from gorila.seeds import actor_seed, evaluation_seed, learner_seed

MAX_PARALLEL_EPISODES = 32  # an evaluation's copies stepped at once


def network_for(config: Config, info: EnvInfo) -> torch.nn.Module:
    """The Q-network of the config's algorithm, shaped for its environment (an `EnvInfo`)."""
    return algorithm_of(config).network(config, info)


def learner_device(config: Config) -> str:
    """`cpu` or `cuda`: where this process's learners compute, as `config.device` asks."""
    return resolve_device(config.device)


def resolve_device(asked: str) -> str:
    """`cpu` or `cuda` for a device asked as `auto`, `cpu` or `cuda`, in this process: a learner on a
    cluster's node may see a GPU that the driver's machine lacks."""
    if asked == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda was asked for, but torch sees no CUDA device here (use --device auto or cpu)")
    return "cuda" if asked != "cpu" and torch.cuda.is_available() else "cpu"


def on_ladder(config: Config) -> bool:
    """Whether the actors settle on the rungs of an epsilon ladder rather than all on epsilon_end."""
    return config.epsilon_ladder and (config.actors > 1 or config.ladder_over == "copies")


def final_epsilon(config: Config, index: int) -> float | np.ndarray:
    """Where actor `index`'s epsilon settles: epsilon_end for all, or its Ape-X ladder rung, or with
    `ladder_over` copies one rung per environment copy (an array, one entry per copy)."""
    if not on_ladder(config):
        return config.epsilon_end
    actor = index % config.actors  # a bundle that joined a growing run (max_bundles) takes the rung of a first one
    if config.ladder_over == "copies":
        copies, rungs = config.envs_per_actor, config.actors * config.envs_per_actor
        first = actor * copies
        return np.array(
            [dqn.epsilon_ladder(first + j, rungs, config.ladder_base, config.ladder_alpha) for j in range(copies)]
        )
    return dqn.epsilon_ladder(actor, config.actors, config.ladder_base, config.ladder_alpha)


def epsilon_hold_steps(config: Config) -> int:
    """Agent steps an actor holds epsilon at its start (`epsilon_hold`): its share of the experience
    gathered before learning starts (a bundle's replay fills from its own actor only)."""
    if not config.epsilon_hold:
        return 0
    return config.learning_starts if config.bundled else -(-config.learning_starts // config.actors)


def epsilon_schedule(config: Config, index: int) -> EpsilonSchedule:
    """Actor `index`'s exploration schedule."""
    return EpsilonSchedule(
        config.epsilon_start, final_epsilon(config, index), config.epsilon_decay_steps, epsilon_hold_steps(config)
    )


def reward_rule(config: Config) -> RewardRule:
    """The reward as learners see it (`clip_rewards`, `reward_scale`)."""
    return RewardRule(config.clip_rewards, config.reward_scale)


def actor_settings(
    config: Config, info: EnvInfo, index: int, epsilon: EpsilonSchedule | None = None
) -> tuple[VectorEnv, torch.nn.Module, dict]:
    """Actor `index`'s environment copies, network and keyword settings, in this process's threads;
    its exploration is the run plan's `epsilon` (an actor built by hand: `epsilon_schedule`'s)."""
    torch.set_num_threads(config.torch_threads)
    seed = actor_seed(config.seed, index)
    env = make_vector_env_for(config, config.envs_per_actor, seed)
    settings = dict(
        seed=seed,
        epsilon=epsilon or epsilon_schedule(config, index),
        sync_every=config.actor_sync_every,
        rewards=reward_rule(config),
    )
    return env, network_for(config, info), settings


def actor_for(
    config: Config,
    info: EnvInfo,
    index: int,
    params: ParameterSource,
    writer: TransitionSink,
    epsilon: EpsilonSchedule | None = None,
) -> Actor:
    """Actor `index`, reading theta+ from `params` and writing its steps to `writer`, exploring as
    `epsilon` says (`actor_settings`)."""
    env, network, settings = actor_settings(config, info, index, epsilon)
    return Actor(env, network, info, params, writer, **settings)


def learner_network(config: Config, info: EnvInfo, index: int) -> torch.nn.Module:
    """Learner `index`'s network, built after seeding torch with the learner's seed, in its threads."""
    torch.set_num_threads(config.torch_threads)
    torch.manual_seed(learner_seed(config.seed, index))
    return network_for(config, info)


def learner_for(
    config: Config,
    info: EnvInfo,
    index: int,
    params: ParameterSource,
    replay: MinibatchSource,
    hosted_shards: dict | None = None,
    kind: type[Learner] = Learner,
    device: str | None = None,
) -> Learner:
    """Learner `index` (Gorila's `Learner`, or the subclass `kind` with another loss), sampling `replay`
    and pushing its gradients through `params`, on `device` (by default the config's, resolved here);
    `hosted_shards` are the parameter shards held in its process."""
    return kind(
        learner_network(config, info, index),
        params,
        replay,
        dqn_config=config.section(DQNConfig),
        server_config=config.section(ParameterServerConfig),
        device=device or learner_device(config),
        hosted_shards=hosted_shards,
        precision=config.learner_precision,
    )


def make_evaluator(
    config: Config,
    info: EnvInfo,
    independent: bool = False,
    make_env: Callable[[int, int], VectorEnv] | None = None,
) -> Evaluator:
    """The evaluator of `eval_episodes` episodes at `eval_epsilon`, on the config's evaluation copies or
    on those `make_env(copies, seed)` builds (another protocol's); `independent` (`gorila evaluate`)
    plays episodes training never saw."""
    torch.set_num_threads(config.torch_threads)
    seed = evaluation_seed(config.seed, independent)
    copies = min(config.eval_episodes, MAX_PARALLEL_EPISODES)
    env = make_vector_env_for(config, copies, seed, evaluation=True) if make_env is None else make_env(copies, seed)
    network = network_for(config, info)
    return Evaluator(env, network, info, episodes=config.eval_episodes, epsilon=config.eval_epsilon, seed=seed)
