"""PNG figures of runs and suites: learning curves against frames or wall time, the paper-style
per-game bar chart of human-normalised scores (Nair et al., 2015, figures 2-3), the performance profile
of a suite of several seeds (Agarwal et al. 2021): the fraction of its runs with a normalised score
above each threshold, and a sweep's curves. MinAtar's panels are in `minatar_plots`."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import numpy as np

from gorila.evaluation.aggregates import profile_with_band
from gorila.evaluation.protocols import LABELS
from gorila.evaluation.scores import HUMAN_LEVEL, at_human_level, normalise
from gorila.experiments.report.aggregates import SuiteScores
from gorila.experiments.suite.table import REFERENCE_MARK, column_key, footnotes, marks

X_AXES = {"env_frames": "environment frames", "wall_time": "wall time (s)"}


def pyplot():
    """matplotlib's pyplot on the Agg backend (files only, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def evaluations(records: list[dict]) -> list[dict]:
    """Greedy evaluations during training (confirmations of a solve included)."""
    return [r for r in records if "eval_return_mean" in r]


def training(records: list[dict]) -> list[dict]:
    return [r for r in records if r.get("kind") == "train" and r.get("return_mean") is not None]


def plot_returns(
    runs: list[tuple[str, list[dict]]], x: str, path: Path, title: str = "", finals: dict[str, dict] | None = None
) -> Path:
    """Episode return against `x` (env_frames or wall_time), several runs overlaid: each run's
    evaluations as markers with a line, its recent training return as a faint line of the same colour,
    and its evaluation of the saved parameters (`finals`, by label) as a star at their frames."""
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(8, 4.5))
    for index, (label, records) in enumerate(runs):
        colour = f"C{index % 10}"
        final = (finals or {}).get(label)
        if final and records:
            at = final["env_frames"] if x == "env_frames" else max(r["wall_time"] for r in records)
            axis.plot(
                [at],
                [final["return_mean"]],
                "*",
                color=colour,
                markersize=14,
                markeredgecolor="k",
                label=f"{label}: evaluation of the saved parameters",
            )
        train = training(records)
        if train:
            axis.plot(
                [r[x] for r in train],
                [r["return_mean"] for r in train],
                color=colour,
                alpha=0.35,
                linewidth=1,
                label=f"{label}: training return",
            )
        evals = evaluations(records)
        if evals:
            axis.errorbar(
                [r[x] for r in evals],
                [r["eval_return_mean"] for r in evals],
                yerr=[r.get("eval_return_std", 0.0) for r in evals],
                fmt="o-",
                color=colour,
                capsize=3,
                markersize=4,
                label=f"{label}: evaluation",
            )
    axis.set_xlabel(X_AXES[x])
    axis.set_ylabel("episode return")
    axis.set_title(title or f"return vs {X_AXES[x]}")
    axis.grid(alpha=0.3)
    if axis.get_legend_handles_labels()[0]:
        axis.legend(fontsize=8)
    return save_figure(plt, figure, path)


def plot_game_grid(games: list[tuple[str, list[dict]]], path: Path) -> Path:
    """One small return-vs-frames panel per game of a suite."""
    plt = pyplot()
    columns = min(7, max(1, len(games)))
    rows = max(1, math.ceil(len(games) / columns))
    figure, axes = plt.subplots(rows, columns, figsize=(2.6 * columns, 2.1 * rows), squeeze=False)
    for axis in axes.flat[len(games) :]:
        axis.set_visible(False)
    for axis, (game, records) in zip(axes.flat, games):
        train, evals = training(records), evaluations(records)
        if train:
            axis.plot([r["env_frames"] for r in train], [r["return_mean"] for r in train], alpha=0.5, linewidth=1)
        if evals:
            axis.plot([r["env_frames"] for r in evals], [r["eval_return_mean"] for r in evals], "o-", markersize=3)
        axis.set_title(game, fontsize=9)
        axis.tick_params(labelsize=7)
        axis.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    figure.suptitle("return vs environment frames (line: training, dots: evaluation)", fontsize=10)
    return save_figure(plt, figure, path)


def plot_normalised_bars(rows: list[dict], path: Path, protocol: str = "noop") -> Path | None:
    """Sorted horizontal bars of our human-normalised scores under `protocol`, the published DQN and
    Gorila scores of each game as markers, on a symmetric-log axis (scores span -100% to several
    1000%), with the paper's 75% human-level line. A game whose published human score is at or below
    random play's keeps its (inverted) normalised score, hatched, its table mark beside its name and the
    table's footnote below; its colour says whether the paper's count takes it as at human level."""
    key = column_key(protocol)
    rows = [r for r in rows if r.get(f"human_normalised_{key}") is not None]
    if not rows:
        return None
    rows = sorted(rows, key=lambda r: r[f"human_normalised_{key}"])
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(8, 2.2 + 0.28 * len(rows)))
    positions = range(len(rows))
    ours = [r[f"human_normalised_{key}"] for r in rows]
    _ours_bars(axis, positions, rows, key)
    shown = ours + _published_markers(axis, rows, positions, key)
    axis.axvline(HUMAN_LEVEL, color="grey", linestyle="--", linewidth=1, label=f"{HUMAN_LEVEL:g}% of human")
    axis.set_xscale("symlog", linthresh=10)
    names = [r["game"] + "".join(marks(r, key).values()) for r in rows]
    axis.set_yticks(list(positions), names, fontsize=8)
    axis.set_ylim(-0.7, len(rows) - 0.3)
    axis.set_xlabel("human-normalised score (%)")
    axis.set_title(f"human-normalised score per game, {LABELS[protocol]}, final evaluation")
    axis.grid(axis="x", alpha=0.3)
    axis.set_xlim(min(min(shown) * 2, -1.0), max(max(shown) * 2, 200.0))  # room for every marker
    return save_figure(plt, figure, path, bottom=_legend_and_notes(figure, axis, footnotes(rows, (protocol,))))


def _legend_and_notes(figure, axis, notes: list[str]) -> float:
    """The legend below the axes and the table's footnotes below it; the figure's share they take."""
    lines = [part for note in notes for part in textwrap.wrap(note, 150)]
    inch = 1.0 / figure.get_figheight()
    for index, line in enumerate(reversed(lines)):
        figure.text(0.01, (0.05 + 0.13 * index) * inch, line, fontsize=6)
    above_notes = (0.1 + 0.13 * len(lines)) * inch if lines else 0.0
    figure.legend(
        *axis.get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=3, bbox_to_anchor=(0.5, above_notes)
    )
    return above_notes + 0.5 * inch


def _ours_bars(axis, positions, rows: list[dict], key: str) -> None:
    """Our scores as bars, coloured by whether the paper's count takes them as at human level; hatched
    where the published human score is at or below random play's (the bar's sign is then inverted)."""
    bars = [
        (
            p,
            r[f"human_normalised_{key}"],
            at_human_level(r[f"ours_{key}"], r[f"random_{key}"], r[f"human_{key}"]),
            bool(marks(r, key)["human_normalised"]),
        )
        for p, r in zip(positions, rows)
    ]
    for level, colour, label in (
        (False, "C0", f"ours, below {HUMAN_LEVEL:g}% of human"),
        (True, "C2", f"ours, at >= {HUMAN_LEVEL:g}% of human"),
    ):
        for inverted, hatch in ((False, None), (True, "//")):
            chosen = [(p, v) for p, v, a, i in bars if a == level and i == inverted]
            if chosen:
                axis.barh(
                    [p for p, _ in chosen],
                    [v for _, v in chosen],
                    color=colour,
                    hatch=hatch,
                    label=f"{label}{', ' + REFERENCE_MARK + ' sign inverted' if inverted else ''}",
                )


def _published_markers(axis, rows: list[dict], positions, key: str) -> list[float]:
    """The published DQN and Gorila scores of each game as markers; the values drawn."""
    shown = []
    for source, marker, colour in (("dqn", "|", "k"), ("gorila", "x", "C3")):
        points = [(_normalised(r, source, key), p) for r, p in zip(rows, positions)]
        points = [(v, p) for v, p in points if v is not None]
        shown += [v for v, _ in points]
        axis.scatter(
            [v for v, _ in points],
            [p for _, p in points],
            marker=marker,
            color=colour,
            s=60,
            zorder=3,
            label=f"{source.upper() if source == 'dqn' else 'Gorila'} (published)",
        )
    return shown


def _normalised(row: dict, source: str, key: str) -> float | None:
    """`source`'s published score human-normalised (None where it has none, or human scored as random)."""
    if row[f"{source}_{key}"] is None:
        return None
    return normalise(row[f"{source}_{key}"], row[f"random_{key}"], row[f"human_{key}"])


PROFILE_POINTS = 201  # thresholds tau the profile is measured at


def plot_performance_profile(scores: SuiteScores, path: Path) -> Path | None:
    """The fraction of a suite's runs (seeds x games) whose normalised score is above tau, against tau,
    with its 95% stratified bootstrap band and the reference's score marked; nothing without a matrix."""
    if scores.matrix is None:
        return None
    low, high = min(0.0, scores.matrix.min()), max(scores.measure.reference, scores.matrix.max())
    profile = profile_with_band(scores.matrix, np.linspace(low, high + 0.05 * (high - low), PROFILE_POINTS))
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(7, 4.2))
    runs, games = scores.matrix.shape
    axis.fill_between(
        profile["taus"],
        profile["low"],
        profile["high"],
        color="C0",
        alpha=0.25,
        step="post",
        label="95% stratified bootstrap band",
    )
    axis.step(
        profile["taus"],
        profile["profile"],
        where="post",
        color="C0",
        linewidth=1.6,
        label=f"ours: {runs} seeds x {games} games",
    )
    axis.axvline(
        scores.measure.reference,
        color="grey",
        linestyle="--",
        linewidth=1,
        label=f"{scores.measure.reference_name} ({scores.measure.reference:g})",
    )
    axis.set_ylim(-0.02, 1.02)
    axis.set_xlabel(f"tau: {scores.measure.name}", fontsize=9)
    axis.set_ylabel("fraction of runs with score > tau")
    axis.set_title("performance profile (Agarwal et al. 2021)")
    axis.grid(alpha=0.3)
    axis.legend(fontsize=8)
    return save_figure(plt, figure, path)


def plot_sweep_curves(points: list[tuple[str, list[list[dict]]]], metric: str, path: Path) -> Path:
    """A sweep's `metric` against frames: one colour per point (best first, as labelled), one line per
    trial (seed) of it, the legend naming the points only."""
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(9, 5))
    for index, (label, trials) in enumerate(points):
        colour = f"C{index % 10}"
        for seed, records in enumerate(trials):
            curve = [r for r in records if r.get(metric) is not None]
            axis.plot(
                [r["env_frames"] for r in curve],
                [r[metric] for r in curve],
                color=colour,
                linewidth=1.2,
                alpha=0.8,
                label=label if seed == 0 else None,
            )
    axis.set_xlabel(X_AXES["env_frames"])
    axis.set_ylabel(metric)
    axis.set_title(f"sweep: {metric} of each trial, one colour per point (best first)")
    axis.grid(alpha=0.3)
    if axis.get_legend_handles_labels()[0]:
        axis.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return save_figure(plt, figure, path)


def save_figure(plt, figure, path: Path, bottom: float = 0.0) -> Path:
    figure.tight_layout(rect=(0, bottom, 1, 1))  # `bottom`: the figure's share kept for its legend
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
