"""`gorila evaluate`: a saved checkpoint evaluated under one of the protocols of `gorila.evaluation.protocols`,
with the paper's human- and DQN-normalised scores for its 49 games.

An evaluation of a run's checkpoint is kept in the run,
RUN/evaluations/<checkpoint>-<protocol>-<N>ep-epsilon<E>.json, with the checksum of the checkpoint it
played: `gorila report RUN` shows the newest one of the parameters it would evaluate, at the run's own
evaluation epsilon, instead of evaluating them again (`saved_evaluation`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path

from gorila.config import MAX_SEED, Config, ConfigError
from gorila.envs import EnvError, resolve_env
from gorila.envs import atari_constants as atari
from gorila.evaluation.protocol_env import ProtocolEnv
from gorila.evaluation.protocols import get_protocol, trained_protocol
from gorila.evaluation.saved_agent import load_saved_agent
from gorila.plugins import reference_of
from gorila.records.checkpoints import version_note
from gorila.records.durable import write_text_atomically
from gorila.records.evaluation_files import as_evaluation, load_evaluation
from gorila.system.agent_builders import make_evaluator

EVALUATIONS = "evaluations"  # the folder of a run directory that keeps its evaluations


def evaluate_checkpoint(
    path,
    episodes: int | None = None,
    epsilon: float | None = None,
    seed: int | None = None,
    protocol: str | None = "noop",
    starts: str | None = None,
    max_frames: int | None = None,
    say: Callable[[str], None] | None = None,
    objects: dict | None = None,
) -> dict:
    """Evaluate theta+ of a checkpoint under `protocol` (None: the one it was trained for, see
    `trained_protocol`) on episodes no training evaluation played; the returns, their mean and
    spread, the protocol's settings, the seeds and normalised scores. `say` receives a progress line
    every 30 s of a long evaluation; `objects` as `saved_agent.restore_config` takes them."""
    rules = None if protocol is None else get_protocol(protocol)
    agent = load_saved_agent(path, objects)
    file, payload, config, info = agent.file, agent.payload, agent.config, agent.info
    if rules is None:
        protocol = trained_protocol(config.sticky_actions, info.is_atari)
        rules = get_protocol(protocol)
    spec = resolve_env(config.env, config.env_kwargs)
    _check_protocol(spec, rules, starts)
    points, header = _start_points(starts, spec, rules)
    if episodes is None and points:
        episodes = len(points)  # one episode per start point
    config = _evaluation_config(config, info, rules, episodes, epsilon, seed, max_frames)
    if points and max(point.frames for point in points) >= config.eval_max_frames:
        raise ConfigError(
            f"a start point in {starts} is {max(p.frames for p in points):,} frames in, not "
            f"before the cap of {config.eval_max_frames:,} frames"
        )
    started = time.time()
    evaluator = make_evaluator(
        config, info, independent=True, make_env=_protocol_env(spec, rules, config, info, points)
    )
    if say is not None:
        evaluator.act = _ticking(evaluator.act, config.eval_episodes, say)
    try:
        result = as_evaluation(evaluator.evaluate(payload["theta"].numpy()))
        played = evaluator.env.episode_seeds(evaluator.round_seed, config.eval_episodes)  # in the order of its returns
    finally:
        evaluator.close()
    source = _source(rules, header)
    return {
        "checkpoint": str(file),
        "checkpoint_sha256": checkpoint_digest(file),
        "env": reference_of(config.env),
        "atari": info.is_atari,
        "env_frames": payload["env_frames"],
        "epsilon": config.eval_epsilon,
        "protocol": protocol,
        "settings": _settings(rules, config, info, evaluator, header),
        "seeds": played,
        "wall_seconds": round(time.time() - started, 2),
        "versions": payload.get("versions"),
        "version_note": version_note(payload, file),
        **result,
        **source,
        **_normalised(spec, result["return_mean"], protocol, source.get("start_points_source")),
    }


def checkpoint_digest(path) -> str:
    """The SHA-256 of a checkpoint file's bytes: which parameters an evaluation played."""
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def run_of(path) -> Path | None:
    """The run directory of a checkpoint: the path itself, or RUN of RUN/checkpoints/FILE; None for a
    checkpoint file kept anywhere else."""
    path = Path(path)
    if path.is_dir():
        return path
    return path.parent.parent if path.parent.name == "checkpoints" else None


def save_evaluation(result: dict, run_dir) -> Path:
    """Keep `result` in RUN/evaluations, named by the checkpoint file it played, its protocol, episodes and
    epsilon (a later evaluation of the same name replaces it); the file written."""
    stem = Path(result["checkpoint"]).resolve().stem
    name = f"{stem}-{result['protocol']}-{result['episodes']}ep-epsilon{result['epsilon']:g}.json"
    folder = Path(run_dir) / EVALUATIONS
    folder.mkdir(exist_ok=True)
    return write_text_atomically(folder / name, json.dumps(result, indent=2) + "\n")


def saved_evaluation(
    run_dir, checkpoint, episodes: int | None = None, epsilon: float | None = None
) -> tuple[Path, dict] | None:
    """The newest evaluation kept in the run of exactly the parameters in `checkpoint` (by checksum),
    of `episodes` episodes and at `epsilon` where given; its file and result, or None. An unreadable file
    is passed over."""
    digest, found = checkpoint_digest(checkpoint), []
    for path in Path(run_dir, EVALUATIONS).glob("*.json"):
        try:
            result = load_evaluation(path)
        except (OSError, ValueError, AttributeError):  # unreadable, or not an object
            continue
        if (
            result.get("checkpoint_sha256") == digest
            and episodes in (None, result.get("episodes"))
            and epsilon in (None, result.get("epsilon"))
        ):
            found.append((path.stat().st_mtime, path, result))
    return max(found, key=lambda entry: entry[0])[1:] if found else None


def _check_protocol(spec, rules, starts) -> None:
    """Refuse what a protocol cannot do with this environment."""
    if spec.kind != "atari" and rules.name != "noop":
        raise EnvError(
            f"--protocol {rules.name} is for Atari games; {spec.id} has only plain evaluation (--protocol noop)"
        )
    if starts and not rules.start_points:
        raise ConfigError(f"--starts belongs to --protocol human-starts, not {rules.name}")


def _protocol_env(spec, rules, config, info, points):
    """How the evaluator builds its copies: None (ale-py's vector env) for null-op starts."""
    if spec.kind != "atari" or rules.name == "noop":
        return None
    return lambda copies, base: ProtocolEnv(
        spec, copies, rules, info.num_actions, config.eval_max_frames, points, config.eval_episodes
    )


def _ticking(act, episodes: int, say, every: float = 30.0):
    """`act`, saying every `every` seconds how many agent steps the evaluation has played."""
    clock = {"start": time.time(), "last": time.time(), "steps": 0}

    def counted(obs):
        clock["steps"] += len(obs)
        if time.time() - clock["last"] >= every:
            clock["last"] = time.time()
            say(
                f"evaluating {episodes} episodes: {clock['steps']:,} agent steps in "
                f"{clock['last'] - clock['start']:.0f} s"
            )
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


def _source(rules, header) -> dict:
    """Who played to the start points, under a protocol that has them (`start_points_source`)."""
    if not rules.start_points:
        return {}
    from gorila.evaluation.start_points import start_points_source

    return {"start_points_source": start_points_source(header)}


def _evaluation_config(config, info, rules, episodes, epsilon, seed, max_frames) -> Config:
    """The checkpoint's config with the evaluation's episodes, epsilon, seed, frame cap and (Atari) the
    protocol's sticky actions; the network keeps the action set it was trained with."""
    episodes = config.eval_episodes if episodes is None else episodes
    if episodes < 1:
        raise ConfigError("--episodes must be >= 1")
    if epsilon is not None and not 0.0 <= epsilon <= 1.0:
        raise ConfigError(f"--epsilon must lie in [0, 1], got {epsilon:g}")
    if max_frames is not None and max_frames < 1:
        raise ConfigError("--max-frames must be >= 1")
    if seed is not None and not 0 <= seed <= MAX_SEED:  # the episodes' seeds add 10^9 to it (gorila.seeds)
        raise ConfigError(f"--seed must lie in [0, {MAX_SEED}], got {seed}")
    sticky = None
    if info.is_atari:
        epsilon = rules.epsilon if epsilon is None else epsilon
        max_frames = max_frames or rules.max_frames
        sticky = rules.sticky_actions  # the protocol's, whatever training used; the action set stays
    changes = {
        "eval_epsilon": epsilon,
        "seed": seed,
        "eval_episodes": episodes,
        "eval_max_frames": max_frames,
        "sticky_actions": sticky,
    }
    return dataclasses.replace(config, **{k: v for k, v in changes.items() if v is not None})


def _settings(rules, config, info, evaluator, header) -> dict:
    """What the episodes were played under."""
    if not info.is_atari:
        return {"epsilon": config.eval_epsilon, "plain": "Gymnasium episodes, no Atari protocol"}
    settings = {
        **rules.settings(),
        "epsilon": config.eval_epsilon,
        "epsilon_seed": evaluator.seed,
        "max_frames": config.eval_max_frames,
        "frameskip": atari.FRAMESKIP,
        "frame_max_pool": atari.FRAME_MAX_POOL,
        "stack": atari.STACK,
        "full_action_set": rules.full_action_set or config.full_action_set,
        "network_actions": info.num_actions,
    }
    if isinstance(evaluator.env, ProtocolEnv):
        settings["network_action_ale_ids"] = [int(a) for a in evaluator.env.action_ids]
    if header is not None:
        settings["start_points"] = header
    return settings


def _normalised(spec, mean: float, protocol: str, source: str | None) -> dict:
    """Human- and DQN-normalised mean, against the published columns of `protocol` (49 games only), with
    a warning where those are human-start columns and the start points were not human play."""
    from gorila.evaluation.scores import normalised_scores, paper_game, start_points_warning

    game = paper_game(spec)
    if game is None:
        return {"normalised": None}
    scores = {**normalised_scores(game, mean, protocol), "warning": start_points_warning(protocol, source)}
    return {
        "normalised": scores,
        "human_normalised": scores["human_normalised"],
        "dqn_normalised": scores["dqn_normalised"],
    }
