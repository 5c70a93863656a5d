"""`gorila evaluate`: a saved checkpoint evaluated under one of the protocols of `gorila.evaluation.protocols`,
with the paper's human- and DQN-normalised scores for its 49 games."""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from gorila.records.checkpoints import CheckpointError, find_checkpoint, load_checkpoint
from gorila.config import Config, ConfigError, apply_overrides
from gorila.contracts import EnvInfo
from gorila.envs import EnvError, resolve_env
from gorila.components.evaluator import INDEPENDENT_SEED_OFFSET, Evaluator
from gorila.agent.networks import load_flat_parameters, q_network_for
from gorila.evaluation.protocol_env import ProtocolEnv
from gorila.evaluation.protocols import get_protocol


def restore_config(payload: dict) -> Config:
    try:
        return apply_overrides(Config(), payload["config"])
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


def load_checked(path) -> tuple:
    """(file, payload, config, `EnvInfo`, Q-network with theta+ loaded) of a checkpoint; a network that
    does not fit its game, or theta+ that does not fit its network, raises CheckpointError."""
    file = find_checkpoint(path)
    payload = load_checkpoint(file)
    config, info = restore_config(payload), restore_info(payload)
    check_fits_game(config, info, file)
    network = q_network_for(config, info).requires_grad_(False)
    theta, expected = payload.get("theta"), sum(p.numel() for p in network.parameters())
    if not hasattr(theta, "numel") or theta.numel() != expected:
        size = f"{theta.numel():,}" if hasattr(theta, "numel") else "no"
        raise CheckpointError(f"{file}: theta+ has {size} parameters, its network {expected:,}")
    load_flat_parameters(network, theta.numpy())
    return file, payload, config, info, network


def load_network(path) -> tuple:
    """The Q-network of a checkpoint with theta+ loaded, its config, `EnvInfo` and file."""
    file, _, config, info, network = load_checked(path)
    return network, config, info, file


def check_fits_game(config: Config, info: EnvInfo, file) -> None:
    """The checkpoint's network must take the game's observations and choose among its actions."""
    from gorila.envs import make_vector_env
    with make_vector_env(config.env, 1) as env:
        shape, actions = tuple(env.obs_shape), env.num_actions
    if tuple(info.obs_shape) != shape or info.num_actions != actions:
        raise CheckpointError(f"{file}: its network ({info.num_actions} actions, observations {info.obs_shape}) "
                              f"does not fit {config.env} ({actions} actions, observations {shape})")


def evaluate_checkpoint(path, episodes: int | None = None, epsilon: float | None = None,
                        seed: int | None = None, protocol: str = "noop", starts: str | None = None,
                        max_frames: int | None = None, say: Callable[[str], None] | None = None) -> dict:
    """Evaluate theta+ of a checkpoint under `protocol` on episodes no training evaluation played;
    the returns, their mean and spread, the protocol's settings, the seeds and normalised scores.
    `say` receives a progress line every 30 s of a long evaluation."""
    rules = get_protocol(protocol)
    file, payload, config, info, _ = load_checked(path)
    spec = resolve_env(config.env)
    _check_protocol(spec, rules, starts)
    points, header = _start_points(starts, spec, rules)
    if episodes is None and points:
        episodes = len(points)                      # one episode per start point
    config = _evaluation_config(config, info, rules, episodes, epsilon, seed, max_frames)
    if points and max(point.frames for point in points) >= config.eval_max_frames:
        raise ConfigError(f"a start point in {starts} is {max(p.frames for p in points):,} frames in, not "
                          f"before the cap of {config.eval_max_frames:,} frames")
    started = time.time()
    evaluator = Evaluator(config, info, seed_offset=INDEPENDENT_SEED_OFFSET,
                          make_env=_protocol_env(spec, rules, config, info, points))
    if say is not None:
        evaluator.act = _ticking(evaluator.act, config.eval_episodes, say)
    try:
        result = evaluator.evaluate(payload["theta"].numpy())
        played = _episode_seeds(evaluator, config.eval_episodes)
    finally:
        evaluator.close()
    return {"checkpoint": str(file), "env": config.env, "atari": info.is_atari, "env_frames": payload["env_frames"],
            "epsilon": config.eval_epsilon, "protocol": protocol,
            "settings": _settings(rules, config, info, evaluator, header), "seeds": played,
            "wall_seconds": round(time.time() - started, 2), **result,
            **_normalised(spec, result["eval_return_mean"], protocol)}


def _check_protocol(spec, rules, starts) -> None:
    """Refuse what a protocol cannot do with this environment."""
    if spec.kind != "atari" and rules.name != "noop":
        raise EnvError(f"--protocol {rules.name} is for Atari games; {spec.id} has only plain evaluation "
                       "(--protocol noop)")
    if starts and not rules.start_points:
        raise ConfigError(f"--starts belongs to --protocol human-starts, not {rules.name}")


def _protocol_env(spec, rules, config, info, points):
    """How the evaluator builds its copies: None (ale-py's vector env) for null-op starts."""
    if spec.kind != "atari" or rules.name == "noop":
        return None
    return lambda copies, base: ProtocolEnv(spec, copies, rules, info.num_actions, config.eval_max_frames,
                                            points, config.eval_episodes)


def _ticking(act, episodes: int, say, every: float = 30.0):
    """`act`, saying every `every` seconds how many agent steps the evaluation has played."""
    clock = {"start": time.time(), "last": time.time(), "steps": 0}

    def counted(obs):
        clock["steps"] += len(obs)
        if time.time() - clock["last"] >= every:
            clock["last"] = time.time()
            say(f"evaluating {episodes} episodes: {clock['steps']:,} agent steps in "
                f"{clock['last'] - clock['start']:.0f} s")
        return act(obs)
    return counted


def _start_points(starts, spec, rules):
    if not rules.start_points:
        return None, None
    if not starts:
        raise ConfigError("--protocol human-starts needs --starts FILE (make one with `gorila record-starts`)")
    from gorila.evaluation.start_points import load_start_points
    points, header = load_start_points(starts, spec.id)
    return points, {**header, "file": str(starts), "count": len(points)}


def _evaluation_config(config, info, rules, episodes, epsilon, seed, max_frames) -> Config:
    """The checkpoint's config with the evaluation's episodes, epsilon, seed and frame cap."""
    episodes = config.eval_episodes if episodes is None else episodes
    if episodes < 1:
        raise ConfigError("--episodes must be >= 1")
    if epsilon is not None and not 0.0 <= epsilon <= 1.0:
        raise ConfigError(f"--epsilon must lie in [0, 1], got {epsilon:g}")
    if max_frames is not None and max_frames < 1:
        raise ConfigError("--max-frames must be >= 1")
    if info.is_atari:
        epsilon = rules.epsilon if epsilon is None else epsilon
        max_frames = max_frames or rules.max_frames
    changes = {"eval_epsilon": epsilon, "seed": seed, "eval_episodes": episodes, "eval_max_frames": max_frames}
    return dataclasses.replace(config, **{k: v for k, v in changes.items() if v is not None})


def _episode_seeds(evaluator: Evaluator, episodes: int) -> list[dict]:
    """Where each episode of the round began, in the order of `eval_returns`."""
    env, seed = evaluator.env, evaluator.round_seed
    if isinstance(env, ProtocolEnv):
        return env.episode_seeds(seed, episodes)
    note = "copy i reset with seed + i; its later episodes continue its random stream"
    return [{"copy": i, "seed": seed + i, "note": note} for i in range(env.num_envs)]


def _settings(rules, config, info, evaluator, header) -> dict:
    """What the episodes were played under."""
    if not info.is_atari:
        return {"epsilon": config.eval_epsilon, "plain": "Gymnasium episodes, no Atari protocol"}
    settings = {**rules.settings(), "epsilon": config.eval_epsilon, "epsilon_seed": evaluator.seed,
                "max_frames": config.eval_max_frames,
                "frameskip": 4, "frame_max_pool": 2, "stack": 4, "network_actions": info.num_actions}
    if isinstance(evaluator.env, ProtocolEnv):
        settings["network_action_ale_ids"] = [int(a) for a in evaluator.env.action_ids]
    if header is not None:
        settings["start_points"] = header
    return settings


def _normalised(spec, mean: float, protocol: str) -> dict:
    """Human- and DQN-normalised mean, against the published columns of `protocol` (49 games only)."""
    from gorila.evaluation.scores import normalised_scores, paper_game
    game = paper_game(spec)
    if game is None:
        return {"normalised": None}
    scores = normalised_scores(game, mean, protocol)
    return {"normalised": scores, "human_normalised": scores["human_normalised"],
            "dqn_normalised": scores["dqn_normalised"]}

