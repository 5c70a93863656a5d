"""Helpers the tests share, importable as `tests.helpers`.

`fresh_checkpoint`: an untrained agent's checkpoint, written in a second: what evaluation tests need from a run."""
from dataclasses import asdict
from pathlib import Path

import torch

from gorila.records.checkpoints import save_checkpoint
from gorila.config import build_config
from gorila.contracts import env_info
from gorila.envs import make_vector_env_for
from gorila.agent.networks import flat_parameters, q_network_for


def fresh_checkpoint(run_dir: Path, env: str = "Pong", preset: str = "atari", seed: int = 0) -> Path:
    """A run directory holding one checkpoint of a freshly initialised Q-network for `env`."""
    config = build_config(preset, overrides={"env": env, "seed": seed})
    with make_vector_env_for(config, 1, config.seed) as vector_env:
        info = env_info(vector_env)
    torch.manual_seed(seed)
    theta = flat_parameters(q_network_for(config, info))
    payload = {"config": config.to_dict(), "env_info": asdict(info), "theta": torch.as_tensor(theta)}
    save_checkpoint(run_dir, payload, 0)
    return run_dir
