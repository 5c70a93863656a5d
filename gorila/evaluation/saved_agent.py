"""A saved agent: the config, the environment description and the Q-network with theta+ loaded, from a
checkpoint file or run directory, checked to fit its game. `gorila evaluate`, `gorila record-starts`
and the report's video all load checkpoints through `load_saved_agent`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from torch import nn

from gorila.agent.networks import load_flat_parameters
from gorila.algorithms import algorithm_of
from gorila.config import Config, ConfigError, apply_overrides
from gorila.envs import make_vector_env_for
from gorila.messages import EnvInfo
from gorila.plugins import reference_of
from gorila.records.checkpoints import CheckpointError, find_checkpoint, load_checkpoint


@dataclass
class SavedAgent:
    file: Path  # the checkpoint file loaded (a run directory's best.pt, else its latest)
    payload: dict  # everything the checkpoint holds
    config: Config
    info: EnvInfo
    network: nn.Module  # the Q-network with theta+ loaded, no gradients

    def action_names(self) -> list[str]:
        """What each output of the network means: ALE's action names for an Atari game (its minimal set,
        or all 18 with full_action_set), else the index of the Discrete action."""
        if not self.info.is_atari:
            return [str(index) for index in range(self.info.num_actions)]
        from ale_py import Action  # only for an Atari game

        from gorila.envs.ale_single import AtariGame

        if self.config.full_action_set:
            return [action.name for action in Action][: self.info.num_actions]
        game = AtariGame(self.config.env)
        try:
            return [Action(value).name for value in game.minimal_actions]
        finally:
            game.close()


def restore_config(payload: dict, objects: dict | None = None) -> Config:
    """The config a checkpoint was trained with; `objects` replace the references it holds (the user's
    env or network callables, given again where their names do not import)."""
    try:
        return apply_overrides(Config(), {**payload["config"], **(objects or {})})
    except (KeyError, ConfigError) as error:
        raise CheckpointError(f"checkpoint holds no valid config ({error})") from None


def restore_info(payload: dict) -> EnvInfo:
    try:
        data = dict(payload["env_info"])
        for key in ("obs_shape", "frame_shape"):
            data[key] = tuple(data[key])
        return EnvInfo(**data)
    except (KeyError, TypeError) as error:
        raise CheckpointError(f"checkpoint holds no valid environment description ({error})") from None


def check_fits_game(config: Config, info: EnvInfo, file) -> None:
    """The checkpoint's network must take the game's observations and choose among its actions."""

    with make_vector_env_for(config, 1, config.seed) as env:
        shape, actions = tuple(env.obs_shape), env.num_actions
    if tuple(info.obs_shape) != shape or info.num_actions != actions:
        raise CheckpointError(
            f"{file}: its network ({info.num_actions} actions, observations {info.obs_shape}) "
            f"does not fit {reference_of(config.env)} ({actions} actions, observations {shape})"
        )


def load_saved_agent(path, objects: dict | None = None) -> SavedAgent:
    """The agent of a checkpoint (a file, or a run directory: its best checkpoint, else its latest); a
    network that does not fit its game, or theta+ that does not fit its network, raises CheckpointError.
    `objects`: see `restore_config`."""
    file = find_checkpoint(path)
    payload = load_checkpoint(file)
    config, info = restore_config(payload, objects), restore_info(payload)
    check_fits_game(config, info, file)
    network = algorithm_of(config).network(config, info).requires_grad_(False)
    theta, expected = payload.get("theta"), sum(p.numel() for p in network.parameters())
    if not hasattr(theta, "numel") or theta.numel() != expected:
        size = f"{theta.numel():,}" if hasattr(theta, "numel") else "no"
        raise CheckpointError(f"{file}: theta+ has {size} parameters, its network {expected:,}")
    load_flat_parameters(network, theta.numpy())
    return SavedAgent(file, payload, config, info, network)
