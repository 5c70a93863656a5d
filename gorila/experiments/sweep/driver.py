"""A sweep's trials on Ray Tune: each a training run on the local runtime in one Ray process, in its
own run directory `OUT/trials/<point>`, reporting its records to Tune as it trains.

Tune crosses the grid axes with `samples` draws of the random ones and with the seeds. With
`early_stop`, ASHA (Li et al. 2020, "A System for Massively Parallel Hyperparameter Tuning") ends the
trials whose metric trails the others' at the same frames: after a quarter of the budget, then at
each doubling, half go on. A trial that fails is reported in the table with its error, not fatal.
"""
from __future__ import annotations

import dataclasses
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from gorila.config import Config, ConfigError, build_config, validate
from gorila.experiments.sweep.space import Axis, check_axes, grid_size, point_name
from gorila.experiments.sweep.table import SweepResult, collect, write_results

EARLY_STOP_REDUCTION = 2        # ASHA: half of the trials at a rung go on to the next
EARLY_STOP_FIRST_RUNG = 4       # ASHA's first decision at 1/4 of the budget


@dataclass(frozen=True)
class SweepPlan:
    """What to sweep and how. `fields` are the config fields every trial gets (over the preset and the
    YAML `file`); `metric` is a train record's (`return_mean`: the last 100 training episodes) or
    an evaluation's (`eval_return_mean`), higher being better."""
    out: Path
    axes: tuple[Axis, ...]
    preset: str | None = None
    file: str | None = None
    fields: dict = field(default_factory=dict)
    seeds: tuple[int, ...] = (0,)
    samples: int = 1
    metric: str = "return_mean"
    early_stop: bool = False
    concurrent: int = 0                 # trials at once; 0: as many as the cluster has CPUs for
    cpus_per_trial: float = 1.0
    address: str = ""                   # a Ray cluster; empty: an embedded single-machine Ray

    def config(self, params: dict) -> Config:
        """The config of one trial's `params` (its point and seed), run on the local runtime with as
        many torch threads as it has CPUs, unless given (a preset's 2 threads in each of two trials on
        2 cores ran them at an eighth of their speed: each thread spins while it waits for a core)."""
        threads = {"torch_threads": max(1, int(self.cpus_per_trial))}
        return build_config(self.preset, self.file, {**threads, **self.fields, **params, "runtime": "local"})

    @property
    def trials(self) -> int:
        return grid_size(list(self.axes)) * self.samples * len(self.seeds)


def check_plan(plan: SweepPlan) -> Config:
    """Refuse, before anything starts, what would fail every trial or mix two sweeps: no axis, a value
    the config refuses (each grid value with the others' first), an output folder that holds trials.
    The config of the first point."""
    from gorila.system.preflight import preflight
    check_axes(list(plan.axes))
    if plan.samples < 1 or not plan.seeds or plan.concurrent < 0 or plan.cpus_per_trial <= 0:
        raise ConfigError("sweep: samples >= 1, at least one seed, concurrent >= 0 and cpus_per_trial > 0")
    if plan.metric not in ("return_mean", "return_mean_10", "eval_return_mean"):
        raise ConfigError(f"sweep: metric must be return_mean, return_mean_10 or eval_return_mean, got {plan.metric!r}")
    if plan.fields.get("runtime") == "ray":
        raise ConfigError("sweep: each trial trains on the local runtime in one Ray process; a sweep "
                          "spreads its trials over the cluster (--address) instead")
    first = {axis.field: axis.values[0] if axis.is_grid else axis.low for axis in plan.axes}
    for axis in plan.axes:
        for value in axis.values or (axis.low, axis.high):
            plan.config({**first, axis.field: value, "seed": plan.seeds[0]})
    trials = plan.out / "trials"
    if trials.is_dir() and any(trials.iterdir()):
        raise ConfigError(f"sweep: {plan.out} holds the trials of an earlier sweep; give another --out")
    config = plan.config({**first, "seed": plan.seeds[0]})
    if plan.metric == "eval_return_mean" and not config.eval_every_frames:
        raise ConfigError("sweep: metric eval_return_mean needs evaluations during training (eval_every_frames > 0)")
    preflight(config)
    return config


def run_sweep(plan: SweepPlan, say=print) -> SweepResult:
    """Run every trial of `plan` on Ray Tune and write the results; the result (rows per trial)."""
    import gorila.runtime.ray as gorila_ray
    # Tune's own console output (a banner, a table every few seconds) gives way to one line per trial
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    logging.getLogger("ray.tune").setLevel(logging.ERROR)     # its "resume with Tuner.restore" is not ours
    try:
        from ray import tune
    except ImportError:
        raise ConfigError("sweep: Ray Tune is not installed; pip install 'gorila[sweep]'") from None
    config = check_plan(plan)
    plan.out.mkdir(parents=True, exist_ok=True)
    slots = (plan.concurrent or os.cpu_count() or 1) * plan.cpus_per_trial
    say(f"sweep: {plan.trials} trials ({describe_axes(plan)}; seeds {', '.join(map(str, plan.seeds))}), "
        f"{config.total_frames:,} frames each, in {plan.out}")
    gorila_ray.connect(plan.address, slots)
    lines = trial_lines(say)
    try:
        tuner = tune.Tuner(
            tune.with_resources(tune.with_parameters(run_trial, plan=plan), {"cpu": plan.cpus_per_trial}),
            param_space=param_space(plan),
            tune_config=tune.TuneConfig(metric=plan.metric, mode="max", num_samples=plan.samples,
                                        scheduler=early_stopping(plan, config.total_frames),
                                        max_concurrent_trials=plan.concurrent or None,
                                        trial_dirname_creator=lambda trial: trial.trial_id),
            run_config=tune.RunConfig(name="tune", storage_path=str((plan.out / "tune").resolve()), verbose=0,
                                      callbacks=[lines], failure_config=tune.FailureConfig(max_failures=0)))
        grid = tuner.fit()          # Tune takes Ctrl-C itself: it ends the trials and returns
        outcomes = [(dict(r.config), r.error) for r in grid]
    except KeyboardInterrupt:
        outcomes = []
    finally:
        gorila_ray.disconnect()
    result = collect(plan, outcomes, config.total_frames, lines.ended)
    write_results(result)
    if len(lines.ended) < plan.trials:
        raise KeyboardInterrupt
    say(f"sweep: results in {plan.out / 'results.md'}; best: {result.best_line()}")
    return result


def describe_axes(plan: SweepPlan) -> str:
    return "; ".join(f"{a.field} in {list(a.values)}" if a.is_grid else
                     f"{a.field} from {a.low}:{a.high}{' (log)' if a.log else ''} x{plan.samples}" for a in plan.axes)


def param_space(plan: SweepPlan) -> dict:
    """Tune's search space: a grid search per grid axis and over the seeds, a distribution per random one."""
    from ray import tune
    from gorila.config.parsing import field_types
    types, space = field_types(), {}
    for axis in plan.axes:
        if axis.is_grid:
            space[axis.field] = tune.grid_search(list(axis.values))
        elif types[axis.field] is int:
            space[axis.field] = (tune.lograndint if axis.log else tune.randint)(axis.low, axis.high + 1)
        else:
            space[axis.field] = (tune.loguniform if axis.log else tune.uniform)(axis.low, axis.high)
    space["seed"] = tune.grid_search(list(plan.seeds))
    return space


def early_stopping(plan: SweepPlan, total_frames: int):
    """ASHA over the trials' frames when `plan.early_stop`, else None (every trial runs its budget)."""
    if not plan.early_stop:
        return None
    from ray.tune.schedulers import ASHAScheduler
    return ASHAScheduler(time_attr="env_frames", max_t=total_frames, reduction_factor=EARLY_STOP_REDUCTION,
                         grace_period=max(1, total_frames // EARLY_STOP_FIRST_RUNG))


def trial_params(params: dict) -> dict:
    """A trial's params in the plan's order, its seed last (Tune hands them over in its own order)."""
    return {**{key: value for key, value in params.items() if key != "seed"}, "seed": params["seed"]}


def run_trial(params: dict, plan: SweepPlan) -> None:
    """One trial (in a Ray process of Tune's): train its config in `OUT/trials/<point>`, telling Tune
    each record's metric."""
    from gorila.api import run_in
    from gorila.records.run_dirs import claim_run_dir
    params = trial_params(params)
    run_dir = plan.out.resolve() / "trials" / point_name(params)
    config = validate(dataclasses.replace(plan.config(params), run_dir=str(run_dir)))
    directory, created = claim_run_dir(config)
    run_in(config, directory, created=created, live_progress=False, trackers=(TuneReport(plan.metric),))


class TuneReport:
    """A run's tracker (`MetricsWriter`) that tells Tune each record holding `metric`, with its frames."""

    def __init__(self, metric: str):
        self.metric = metric

    def log(self, tags: dict, env_frames: int) -> None:
        from ray import tune
        values = [value for tag, value in tags.items() if tag.rpartition("/")[2] == self.metric]
        if values:
            tune.report({"env_frames": int(env_frames), self.metric: float(values[0])})

    def finish(self, exit_code: int) -> None:
        pass


def trial_lines(say):
    """A Tune callback with one line per trial started, ended or failed; `.ended` names the trials that
    ended (ran their budget, were stopped early, or failed), which an interrupted sweep's others did not."""
    from ray.tune import Callback

    def name(trial) -> str:
        return point_name(trial_params(trial.config))

    class TrialLines(Callback):
        def on_trial_start(self, iteration, trials, trial, **info):
            say(f"sweep: {name(trial)} started")

        def on_trial_complete(self, iteration, trials, trial, **info):
            self.ended.add(name(trial))
            result = trial.last_result or {}
            metric = next((k for k in ("eval_return_mean", "return_mean_10", "return_mean") if k in result), None)
            reached = (f"{metric} {result[metric]:.2f} at {result.get('env_frames', 0):,} frames" if metric
                       else "no record of the metric")
            say(f"sweep: {name(trial)} ended: {reached}")

        def on_trial_error(self, iteration, trials, trial, **info):
            self.ended.add(name(trial))
            say(f"sweep: {name(trial)} failed (results.md says why)")
    lines = TrialLines()
    lines.ended = set()
    return lines
