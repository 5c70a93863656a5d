"""A sweep's trials on Ray Tune: each a training run on the local runtime in one Ray process, in its
own run directory `OUT/trials/<point>`, reporting its records to Tune as it trains.

Tune crosses the grid axes with `samples` draws of the random ones and with the seeds. With
`early_stop`, ASHA (Li et al. 2020, "A System for Massively Parallel Hyperparameter Tuning") ends the
trials whose metric trails the others' at the same frames: after a quarter of the budget, then at
each doubling, half go on. A trial that fails is reported in the table with its error, not fatal.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from gorila.config import Config, ConfigError, build_config, validate
from gorila.config.parsing import field_types
from gorila.experiments.sweep.space import METRICS, Axis, check_axes, grid_size, point_name
from gorila.experiments.sweep.table import SweepResult, collect, write_results


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
    concurrent: int = 0  # trials at once; 0: as many as the cluster has CPUs for
    cpus_per_trial: float = 1.0
    address: str = ""  # a Ray cluster; empty: an embedded single-machine Ray

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
    if plan.metric not in METRICS:
        raise ConfigError(f"sweep: metric must be one of {', '.join(METRICS)}, got {plan.metric!r}")
    if plan.fields.get("runtime") == "ray":
        raise ConfigError(
            "sweep: each trial trains on the local runtime in one Ray process; a sweep "
            "spreads its trials over the cluster (--address) instead"
        )
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
    from gorila.runtime.ray.tuning import TuneMissing, run_trials

    config = check_plan(plan)
    try:
        space = param_space(plan)
    except TuneMissing as error:
        raise ConfigError(f"sweep: {error}") from None
    plan.out.mkdir(parents=True, exist_ok=True)
    say(
        f"sweep: {plan.trials} trials ({describe_axes(plan)}; seeds {', '.join(map(str, plan.seeds))}), "
        f"{config.total_frames:,} frames each, in {plan.out}"
    )
    gorila_ray.connect(plan.address, (plan.concurrent or os.cpu_count() or 1) * plan.cpus_per_trial)
    try:
        outcomes, ended = run_trials(
            run_trial,
            {"plan": plan},
            space,
            metric=plan.metric,
            samples=plan.samples,
            early_stop_frames=config.total_frames if plan.early_stop else None,
            concurrent=plan.concurrent,
            cpus_per_trial=plan.cpus_per_trial,
            storage=plan.out / "tune",
            name_of=lambda params: point_name(trial_params(params)),
            say=say,
        )
    finally:
        gorila_ray.disconnect()
    result = collect(plan, outcomes, config.total_frames, ended)
    write_results(result)
    if len(ended) < plan.trials:
        raise KeyboardInterrupt
    say(f"sweep: results in {plan.out / 'results.md'}; best: {result.best_line()}")
    return result


def describe_axes(plan: SweepPlan) -> str:
    return "; ".join(
        f"{a.field} in {list(a.values)}"
        if a.is_grid
        else f"{a.field} from {a.low}:{a.high}{' (log)' if a.log else ''} x{plan.samples}"
        for a in plan.axes
    )


def param_space(plan: SweepPlan) -> dict:
    """The search space: a grid per grid axis, a draw per random one, then a grid over the seeds."""
    from gorila.runtime.ray.tuning import search_space

    types = field_types()
    grid = {axis.field: list(axis.values) for axis in plan.axes if axis.is_grid}
    random = {
        axis.field: (axis.low, axis.high, axis.log, types[axis.field] is int) for axis in plan.axes if not axis.is_grid
    }
    return search_space({**grid, "seed": list(plan.seeds)}, random)


def trial_params(params: dict) -> dict:
    """A trial's params in the plan's order, its seed last (Tune hands them over in its own order)."""
    return {**{key: value for key, value in params.items() if key != "seed"}, "seed": params["seed"]}


def run_trial(params: dict, plan: SweepPlan) -> None:
    """One trial (in a Ray process of Tune's): train its config in `OUT/trials/<point>`, telling Tune
    each record's metric."""
    from gorila.records.run_dirs import claim_run_dir
    from gorila.system.training import run_in

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
        from gorila.runtime.ray.tuning import report

        values = [value for tag, value in tags.items() if tag.rpartition("/")[2] == self.metric]
        if values:
            report({"env_frames": int(env_frames), self.metric: float(values[0])})

    def finish(self, exit_code: int) -> None:
        pass
