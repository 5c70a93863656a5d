"""`gorila evaluate`: null-op-start evaluation of a saved checkpoint."""
from __future__ import annotations

import dataclasses

from gorila.checkpoint import CheckpointError, find_checkpoint, load_checkpoint
from gorila.config import Config, ConfigError, apply_overrides
from gorila.core import EnvInfo
from gorila.evaluator import INDEPENDENT_SEED_OFFSET, Evaluator


def restore_config(payload: dict) -> Config:
    try:
        return apply_overrides(Config(), payload["config"])
    except (KeyError, ConfigError) as error:
        raise CheckpointError(f"checkpoint holds no valid config ({error})") from None


def restore_info(payload: dict) -> EnvInfo:
    data = dict(payload["env_info"])
    for key in ("obs_shape", "frame_shape"):
        data[key] = tuple(data[key])
    return EnvInfo(**data)


def evaluate_checkpoint(path, episodes: int | None = None, epsilon: float | None = None,
                        seed: int | None = None) -> dict:
    """Evaluate theta+ of a checkpoint on episodes no training evaluation played; the result and
    where it came from."""
    file = find_checkpoint(path)
    payload = load_checkpoint(file)
    config = restore_config(payload)
    changes = {"eval_epsilon": epsilon, "seed": seed, "eval_episodes": episodes}
    config = dataclasses.replace(config, **{k: v for k, v in changes.items() if v is not None})
    if config.eval_episodes < 1:
        raise ConfigError("--episodes must be >= 1")
    if not 0.0 <= config.eval_epsilon <= 1.0:
        raise ConfigError(f"--epsilon must lie in [0, 1], got {config.eval_epsilon:g}")
    info = restore_info(payload)
    evaluator = Evaluator(config, info, seed_offset=INDEPENDENT_SEED_OFFSET)
    try:
        result = evaluator.evaluate(payload["theta"].numpy())
    finally:
        evaluator.close()
    return {"checkpoint": str(file), "env": config.env, "atari": info.is_atari, "env_frames": payload["env_frames"],
            "epsilon": config.eval_epsilon, **result}
