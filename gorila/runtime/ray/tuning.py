"""Ray Tune for sweeps (`gorila.experiments.sweep`): a search space of plain values, ASHA on the trials'
frames, one trial per point on the connected Ray, a line per trial, and reports from inside a trial.

ASHA (Li et al. 2020, "A System for Massively Parallel Hyperparameter Tuning") ends the trials whose
metric trails the others' at the same frames: after a quarter of the budget, then at each doubling,
half go on.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Callable

EARLY_STOP_REDUCTION = 2  # ASHA: half of the trials at a rung go on to the next
EARLY_STOP_FIRST_RUNG = 4  # ASHA's first decision at 1/4 of the budget


class TuneMissing(ImportError):
    """Ray Tune's extra dependencies are not installed."""


def _tune():
    # Tune's own console output (a banner, a table every few seconds) gives way to one line per trial
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")
    try:
        from ray import tune
    except ImportError:
        raise TuneMissing("Ray Tune is not installed; pip install 'gorila[sweep]'") from None
    logging.getLogger("ray.tune").setLevel(logging.ERROR)  # its "resume with Tuner.restore" is not ours
    return tune


def search_space(grid: dict[str, list], random: dict[str, tuple]) -> dict:
    """Tune's space: a grid search per `grid` field (in order), and per `random` field
    `(low, high, log, whole)` a uniform (log-uniform) draw, of whole numbers where `whole`."""
    tune, space = _tune(), {}
    for name, (low, high, log, whole) in random.items():
        if whole:
            space[name] = (tune.lograndint if log else tune.randint)(low, high + 1)
        else:
            space[name] = (tune.loguniform if log else tune.uniform)(low, high)
    space.update({name: tune.grid_search(list(values)) for name, values in grid.items()})
    return space


def early_stopping(total_frames: int):
    """ASHA over the trials' `env_frames`, up to `total_frames`."""
    from ray.tune.schedulers import ASHAScheduler

    return ASHAScheduler(
        time_attr="env_frames",
        max_t=total_frames,
        reduction_factor=EARLY_STOP_REDUCTION,
        grace_period=max(1, total_frames // EARLY_STOP_FIRST_RUNG),
    )


def run_trials(
    trainable: Callable,
    arguments: dict,
    space: dict,
    *,
    metric: str,
    samples: int,
    early_stop_frames: int | None,
    concurrent: int,
    cpus_per_trial: float,
    storage: Path,
    name_of: Callable[[dict], str],
    say: Callable[[str], None],
) -> tuple[list[tuple[dict, object]], set[str]]:
    """`trainable(params, **arguments)` once per point of `space` (`samples` draws of its random fields)
    on the connected Ray, `cpus_per_trial` each, at most `concurrent` at once (0: as the CPUs allow),
    ranked by `metric` (higher better), with ASHA when `early_stop_frames`. Returns each trial's params
    and error (None when it ran), and the names (`name_of(params)`) of the trials that ended: those
    missing were cut by Ctrl-C, which Tune takes itself (it ends the trials and returns)."""
    tune = _tune()
    lines = trial_lines(say, name_of, metric)
    tuner = tune.Tuner(
        tune.with_resources(tune.with_parameters(trainable, **arguments), {"cpu": cpus_per_trial}),
        param_space=space,
        tune_config=tune.TuneConfig(
            metric=metric,
            mode="max",
            num_samples=samples,
            scheduler=early_stopping(early_stop_frames) if early_stop_frames else None,
            max_concurrent_trials=concurrent or None,
            trial_dirname_creator=lambda trial: trial.trial_id,
        ),
        run_config=tune.RunConfig(
            name="tune",
            storage_path=str(Path(storage).resolve()),
            verbose=0,
            callbacks=[lines],
            failure_config=tune.FailureConfig(max_failures=0),
        ),
    )
    try:
        outcomes = [(dict(result.config), result.error) for result in tuner.fit()]
    except KeyboardInterrupt:
        outcomes = []
    return outcomes, lines.ended


def report(metrics: dict) -> None:
    """From inside a trial: tell Tune a result."""
    _tune().report(metrics)


def trial_lines(say: Callable[[str], None], name_of: Callable[[dict], str], metric: str):
    """A Tune callback with one line per trial started, ended (with its last `metric`) or failed;
    `.ended` names the trials that ended (ran their budget, were stopped early, or failed)."""
    from ray.tune import Callback

    class TrialLines(Callback):
        def on_trial_start(self, iteration, trials, trial, **info):
            say(f"sweep: {name_of(trial.config)} started")

        def on_trial_complete(self, iteration, trials, trial, **info):
            self.ended.add(name_of(trial.config))
            result = trial.last_result or {}
            reached = (
                f"{metric} {result[metric]:.2f} at {result.get('env_frames', 0):,} frames"
                if metric in result
                else f"no record of {metric}"
            )
            say(f"sweep: {name_of(trial.config)} ended: {reached}")

        def on_trial_error(self, iteration, trials, trial, **info):
            self.ended.add(name_of(trial.config))
            say(f"sweep: {name_of(trial.config)} failed (results.md says why)")

    lines = TrialLines()
    lines.ended = set()
    return lines
