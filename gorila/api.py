"""Gorila from Python: a config, `train`, `resume`, `evaluate`, `load_q_network` and `sweep`.

    import gorila
    config = gorila.make_config("cartpole", runtime="local", total_frames=50_000)
    result = gorila.train(config)                    # a TrainResult: frames, evaluations, checkpoints
    print(gorila.evaluate(result.run_dir, episodes=100).return_mean)
    q = gorila.load_q_network(result.run_dir)        # a torch.nn.Module with its action mapping

Everything `gorila train` checks is checked here too, and a bad value raises the same one-line error
(`gorila.ConfigError`, `EnvError`, ...). A run works from a script, a notebook or a thread other than
the main one: Ctrl-C stops it cleanly with a final checkpoint where Python lets it install the
handler (the main thread). Your own environment and network are config values like any other:
`env="package.module:Env-v0"`, or the callable itself, `env=make_env, env_kwargs={...}`,
`network=make_network`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from gorila.agent.dqn import greedy_actions
from gorila.config import Config, build_config, validate
from gorila.plugins import reference_of
from gorila.system.training import TrainResult, run_in


def make_config(
    preset: str | None = None, file: str | Path | None = None, *, scale: float | None = None, **fields
) -> Config:
    """The config of a preset (`gorila.PRESETS`), then a YAML file, then keyword fields, as `gorila
    train --preset P --config FILE --FIELD VALUE` builds it; `scale` as `--scale`."""
    return build_config(preset, None if file is None else str(file), fields, scale)


def train(config: Config, run_dir: str | Path | None = None, *, live_progress: bool | None = None) -> TrainResult:
    """Train `config` in `run_dir` (default: `config.run_dir`, else `runs/<env>-<date>-<time>`), which is
    created and must be empty. `live_progress`: a progress bar (default: when stdout is a terminal)."""
    from gorila.records.run_dirs import claim_run_dir
    from gorila.system.preflight import preflight

    if not isinstance(config, Config):
        raise TypeError(f"train takes a gorila.Config (see gorila.make_config), not a {type(config).__name__}")
    config = validate(dataclasses.replace(config, run_dir=str(run_dir)) if run_dir is not None else config)
    preflight(config)
    directory, created = claim_run_dir(config)
    return run_in(config, directory, created=created, live_progress=live_progress)


def resume(run_dir: str | Path, *, live_progress: bool | None = None, **changes) -> TrainResult:
    """Continue the run in `run_dir` from its latest good checkpoint, with `changes` to its config
    (e.g. a larger total_frames), as `gorila train --resume RUN_DIR` does."""
    from gorila.system.preflight import preflight

    run_dir = Path(run_dir)
    payload = latest_payload(run_dir, "resume")
    config = build_config(None, None, {**payload["config"], **changes, "run_dir": str(run_dir)})
    preflight(config)
    return run_in(config, run_dir, payload=payload, live_progress=live_progress)


def latest_payload(run_dir: Path, what: str, warn=print) -> dict:
    """The latest good checkpoint of a run to resume, once `run_dir` is known to be a run directory
    that no live run holds; `what` names the caller in the error (`--resume`), `warn` hears of each
    checkpoint skipped."""
    from gorila.records.checkpoints import CheckpointError, load_latest_good
    from gorila.records.run_dirs import RunLock

    if not (run_dir / "checkpoints").is_dir():
        raise CheckpointError(f"{what}: {run_dir} is not a run directory (no checkpoints/ in it)")
    RunLock.refuse_if_held(run_dir)  # before reading checkpoints a live run is writing
    return load_latest_good(run_dir, warn=warn)


@dataclass(frozen=True)
class Evaluation:
    """A checkpoint's score under an evaluation protocol."""

    checkpoint: Path
    env: str
    protocol: str
    episodes: int
    return_mean: float
    return_std: float
    returns: list[float]
    details: dict = field(repr=False)  # what `gorila evaluate --json` writes: seeds, settings, normalised scores


def evaluate(
    run_or_checkpoint: str | Path,
    *,
    protocol: str | None = None,
    episodes: int | None = None,
    epsilon: float | None = None,
    seed: int | None = None,
    starts: str | Path | None = None,
    max_frames: int | None = None,
    env=None,
    network=None,
) -> Evaluation:
    """Evaluate a run's best checkpoint (or a checkpoint file) on fresh episodes, as `gorila evaluate`
    does. `protocol` (noop, human-starts, machado; default: the one it was trained for), `episodes`
    (default: the run's eval_episodes). `env`, `network`: the callables a run was trained with, when
    they have no importable name (a lambda, a function of a notebook)."""
    from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint

    result = evaluate_checkpoint(
        run_or_checkpoint,
        episodes=episodes,
        epsilon=epsilon,
        seed=seed,
        protocol=protocol,
        starts=None if starts is None else str(starts),
        max_frames=max_frames,
        objects=_objects(env, network),
    )
    return Evaluation(
        checkpoint=Path(result["checkpoint"]),
        env=result["env"],
        protocol=result["protocol"],
        episodes=result["episodes"],
        return_mean=result["return_mean"],
        return_std=result["return_std"],
        returns=result["returns"],
        details=result,
    )


class QNetwork(nn.Module):
    """A trained Q-network, ready to act: `q(obs)` gives one Q-value per action for a batch of
    observations (or one), `q.act(obs)` the greedy actions as the environment takes them, and
    `action_names` what each output means (Atari: ALE's action names, in the network's order)."""

    def __init__(
        self,
        network: nn.Module,
        obs_shape: tuple,
        obs_dtype: str,
        action_names: list[str],
        checkpoint: Path,
        env: str,
        env_frames: int,
    ):
        super().__init__()
        self.network = network.eval().requires_grad_(False)
        self.obs_shape, self.obs_dtype, self.action_names = tuple(obs_shape), obs_dtype, list(action_names)
        self.checkpoint, self.env, self.env_frames = checkpoint, env, env_frames

    @property
    def num_actions(self) -> int:
        return len(self.action_names)

    def forward(self, obs) -> torch.Tensor:
        batch = torch.as_tensor(np.asarray(obs, dtype=self.obs_dtype))
        single = tuple(batch.shape) == self.obs_shape
        values = self.network(batch[None] if single else batch)
        return values[0] if single else values

    def act(self, obs, rng: np.random.Generator | None = None) -> np.ndarray | int:
        """The greedy action(s): an int for one observation, an array for a batch. A tie is broken
        at random with `rng`'s draws, as the actors and evaluations do (`dqn.greedy_actions`); without
        `rng`, by the lowest index."""
        with torch.no_grad():
            values = self(obs).numpy()
        single = values.ndim == 1
        actions = greedy_actions(values[None] if single else values, rng)
        return int(actions[0]) if single else actions


def load_q_network(run_or_checkpoint: str | Path, *, env=None, network=None) -> QNetwork:
    """The Q-network of a run's best checkpoint (or of a checkpoint file) with theta+ loaded, checked to
    fit its environment. `env`, `network` as in `evaluate`."""
    from gorila.evaluation.saved_agent import load_saved_agent

    agent = load_saved_agent(run_or_checkpoint, _objects(env, network))
    return QNetwork(
        agent.network,
        agent.info.obs_shape,
        agent.info.obs_dtype,
        agent.action_names(),
        agent.file,
        reference_of(agent.config.env),
        agent.payload["env_frames"],
    )


def _objects(env, network) -> dict:
    """The config values a saved run's references are replaced with."""
    return {key: value for key, value in (("env", env), ("network", network)) if value is not None}


def sweep(
    grid: dict | None = None,
    random: dict | None = None,
    *,
    preset: str | None = None,
    file: str | Path | None = None,
    seeds=(0,),
    samples: int = 1,
    metric: str = "return_mean",
    early_stop: bool = False,
    concurrent: int = 0,
    cpus_per_trial: float = 1.0,
    out: str | Path = "runs/sweep",
    address: str = "",
    say=print,
    **fields,
):
    """A hyperparameter sweep with Ray Tune, as `gorila sweep` runs it: `grid` maps config fields to the
    values to try (their product), `random` maps number fields to a range `(low, high)` or
    `(low, high, "log")` drawn `samples` times; every point once per seed, each trial a run of
    `preset`, `file` and `fields` on the local runtime in `out/trials/<point>`. Returns a `SweepResult`
    (`.points` best first by `metric`, `.rows` per trial); results.md, .json and .png are in `out`.

        result = gorila.sweep({"learning_rate": [1e-3, 4e-3]}, preset="cartpole", seeds=(0, 1))
    """
    from gorila.experiments.sweep.driver import SweepPlan, run_sweep
    from gorila.experiments.sweep.space import range_axis, values_axis

    axes = tuple(values_axis(name, values) for name, values in (grid or {}).items()) + tuple(
        range_axis(name, spec[0], spec[1], tuple(spec[2:]) == ("log",)) for name, spec in (random or {}).items()
    )
    plan = SweepPlan(
        Path(out),
        axes,
        preset,
        None if file is None else str(file),
        fields,
        tuple(seeds),
        samples,
        metric,
        early_stop,
        concurrent,
        cpus_per_trial,
        address,
    )
    return run_sweep(plan, say=say)
