"""PNG figures of runs and suites: learning curves against frames or wall time, the paper-style
per-game bar chart of human-normalised scores (Nair et al., 2015, figures 2-3), and MinAtar runs against
MinAtar's published DQN (Young & Tian 2019): one panel per run, the run's training return (the mean of
its last 100 training episodes, each train record's `return_mean`) against frames, over the published
DQN curve (the same measure, mean of 30 runs) drawn dashed up to the run's frames, with the published
value at the run's last frames marked; and the performance profile of a suite of several seeds
(Agarwal et al. 2021): the fraction of its runs with a normalised score above each threshold."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gorila.evaluation.aggregates import profile_with_band
from gorila.evaluation.minatar_reference import published_dqn_curve, published_dqn_return
from gorila.evaluation.protocols import LABELS
from gorila.evaluation.scores import HUMAN_LEVEL, at_human_level
from gorila.experiments.report.aggregates import SuiteScores
from gorila.experiments.suite.minatar_table import WINDOW, published_gap
from gorila.experiments.suite.plan import is_minatar
from gorila.experiments.suite.table import REFERENCE_MARK, column_key, footnotes, marks

X_AXES = {"env_frames": "environment frames", "wall_time": "wall time (s)"}


def _pyplot():
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
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(8, 4.5))
    for index, (label, records) in enumerate(runs):
        colour = f"C{index % 10}"
        final = (finals or {}).get(label)
        if final and records:
            at = final["env_frames"] if x == "env_frames" else max(r["wall_time"] for r in records)
            axis.plot(
                [at],
                [final["eval_return_mean"]],
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
    return _save(plt, figure, path)


def plot_game_grid(games: list[tuple[str, list[dict]]], path: Path) -> Path:
    """One small return-vs-frames panel per game of a suite."""
    plt = _pyplot()
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
    return _save(plt, figure, path)


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
    plt = _pyplot()
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
    return _save(plt, figure, path, bottom=_legend_and_notes(figure, axis, footnotes(rows, (protocol,))))


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
    random, human = row[f"random_{key}"], row[f"human_{key}"]
    if row[f"{source}_{key}"] is None:
        return None
    return 100.0 * (row[f"{source}_{key}"] - random) / (human - random)


# ---- MinAtar against its published DQN ------------------------------------------------------------
OURS_LABEL = f"ours: mean return of the last {WINDOW} training episodes"
PARTIAL_LABEL = f"ours, over fewer than {WINDOW} episodes"
SEED_LABEL = "ours, each seed (the thick line: their mean)"
PUBLISHED_LABEL = "MinAtar's DQN (Young & Tian 2019, 30 runs; read off its figure)"
END_LABEL = "published DQN at our last frames"
MINATAR_LEGEND = (OURS_LABEL, PUBLISHED_LABEL, PARTIAL_LABEL, END_LABEL, SEED_LABEL)  # the legend's order, two columns


@dataclass
class MinAtarPanel:
    """What one panel draws: our (frames, return) points, split where 100 episodes had ended, the
    published curve up to our last frames, and the published value there (None outside its frames)."""

    title: str
    ours: list[tuple[int, float, int]]  # frames, return_mean, episodes it averages
    published: np.ndarray  # [frames, return] rows up to `end`
    end: int
    published_at_end: float | None
    gap: str = ""  # why the published curve has no value at `end`
    seeds: list = field(default_factory=list)  # each seed's (frames, return) points, where `ours` is their mean


def minatar_panel(title: str, env: str, records: list[dict]) -> MinAtarPanel:
    """The panel of one run of MinAtar `env`, from its metrics records."""
    end = max((r["env_frames"] for r in records if r.get("kind") == "train"), default=0)
    return _panel(title, env, _our_points(records), end)


def _our_points(records: list[dict]) -> list[tuple[int, float, int]]:
    """(frames, return_mean, episodes it averages) of a run's train records."""
    return [(r["env_frames"], r["return_mean"], r.get("episodes_recent", WINDOW)) for r in training(records)]


def _panel(title: str, env: str, ours: list, end: int) -> MinAtarPanel:
    """A panel of `ours` over the published curve of `env` up to `end` frames."""
    curve = published_dqn_curve(env)
    at_end = published_dqn_return(env, end)
    shown = curve[curve[:, 0] <= end]
    if at_end is not None and (not len(shown) or shown[-1, 0] < end):
        shown = np.vstack([shown, [end, at_end]])  # the dashed line reaches our last frames
    return MinAtarPanel(title, ours, shown, end, at_end, "" if at_end is not None else published_gap(env, end))


def minatar_panels(runs: list[tuple[str, str, list[dict]]]) -> list[MinAtarPanel]:
    """Panels of the MinAtar runs among (title, env, records); other runs are left out."""
    return [minatar_panel(title, env, records) for title, env, records in runs if is_minatar(str(env))]


def plot_minatar_curves(panels: list[MinAtarPanel], path: Path) -> Path | None:
    """One panel per run, ours against the published DQN, as a PNG; nothing without a panel."""
    if not panels:
        return None
    figure = minatar_figure(panels)
    legend_rows = math.ceil(len(figure.legends[0].get_texts()) / 2)
    return _save(_pyplot(), figure, path, bottom=(0.15 + 0.2 * legend_rows) / figure.get_figheight())


def minatar_figure(panels: list[MinAtarPanel]):
    """The matplotlib Figure of `panels`: a grid of up to three columns, one legend below."""
    plt = _pyplot()
    columns = min(3, len(panels))
    rows = math.ceil(len(panels) / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(max(4.2 * columns, 6.4), 3.2 * rows + 0.9), squeeze=False)
    for axis in axes.flat[len(panels) :]:
        axis.set_visible(False)
    for axis, panel in zip(axes.flat, panels):
        _draw_minatar_panel(axis, panel)
    for axis in axes[:, 0]:
        axis.set_ylabel(f"mean return, last {WINDOW}\ntraining episodes", fontsize=8)
    handles = {label: handle for axis in axes.flat for handle, label in zip(*axis.get_legend_handles_labels())}
    labels = sorted(handles, key=MINATAR_LEGEND.index)
    figure.legend([handles[label] for label in labels], labels, fontsize=8, loc="lower center", ncol=2)
    return figure


def _ratio_line(panel: MinAtarPanel) -> str:
    """'ours 7.24 / published 8.32 = 0.87 at 500,000 frames' below the title, where both exist."""
    if not panel.ours or not panel.published_at_end:
        return ""
    ours = panel.ours[-1][1]
    return (
        f"\nours {ours:.2f} / published {panel.published_at_end:.2f} = {ours / panel.published_at_end:.2f} "
        f"at {panel.end:,} frames"
    )


def minatar_seeds_panel(title: str, env: str, seeds: list[list[dict]]) -> MinAtarPanel:
    """The panel of one MinAtar game trained with several seeds (their runs' records): each seed's curve,
    and as `ours` their mean, taken where every seed has a point (each interpolated onto the first one's
    frames) and ending at the mean of their last points, as the suite's table takes it."""
    curves = [np.array(_our_points(records), float).reshape(-1, 3) for records in seeds]
    curves = [c for c in curves if len(c)]
    if not curves:
        return minatar_panel(title, env, [])
    end = min(c[-1, 0] for c in curves)
    grid = curves[0][curves[0][:, 0] < end]
    mean = [
        (
            int(f),
            float(np.mean([np.interp(f, c[:, 0], c[:, 1]) for c in curves])),
            int(min(np.interp(f, c[:, 0], c[:, 2]) for c in curves)),
        )
        for f in grid[:, 0]
    ]
    last = (
        round(np.mean([c[-1, 0] for c in curves])),
        float(np.mean([c[-1, 1] for c in curves])),
        int(min(c[-1, 2] for c in curves)),
    )
    panel = _panel(title, env, mean + [last], last[0])
    panel.seeds = [[(f, r) for f, r, _ in c] for c in curves]
    return panel


def _draw_minatar_panel(axis, panel: MinAtarPanel) -> None:
    for index, seed in enumerate(panel.seeds):
        axis.plot(*zip(*seed), color="C3", alpha=0.35, linewidth=0.8, label=SEED_LABEL if index == 0 else None)
    full = [(f, r) for f, r, n in panel.ours if n >= WINDOW]
    partial = [(f, r) for f, r, n in panel.ours if n < WINDOW]
    if partial:  # before 100 episodes ended: a mean over fewer, which MinAtar's curves do not show
        axis.plot(*zip(*(partial + full[:1])), ":", color="C3", linewidth=1.2, label=PARTIAL_LABEL)
    if full:
        axis.plot(*zip(*full), color="C3", linewidth=1.6, label=OURS_LABEL)
    if len(panel.published):
        axis.plot(panel.published[:, 0], panel.published[:, 1], "--", color="C0", linewidth=1.4, label=PUBLISHED_LABEL)
    if panel.published_at_end is not None:
        axis.plot(
            [panel.end], [panel.published_at_end], "o", color="C0", markeredgecolor="k", markersize=6, label=END_LABEL
        )
        axis.annotate(
            f"{panel.published_at_end:.2f}",
            (panel.end, panel.published_at_end),
            textcoords="offset points",
            xytext=(-6, 5),
            ha="right",
            fontsize=8,
            color="C0",
        )
    else:
        axis.text(
            0.03,
            0.95,
            f"no published value at {panel.end:,} frames:\n{panel.gap}",
            transform=axis.transAxes,
            va="top",
            fontsize=7,
            color="C0",
        )
    axis.margins(x=0.03, y=0.12)  # room for the end marker and its value
    axis.set_xlim(left=0)
    axis.set_title(panel.title + _ratio_line(panel), fontsize=9)
    axis.set_xlabel("training frames", fontsize=8)
    axis.tick_params(labelsize=7)
    axis.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    axis.grid(alpha=0.3)


PROFILE_POINTS = 201  # thresholds tau the profile is measured at


def plot_performance_profile(scores: SuiteScores, path: Path) -> Path | None:
    """The fraction of a suite's runs (seeds x games) whose normalised score is above tau, against tau,
    with its 95% stratified bootstrap band and the reference's score marked; nothing without a matrix."""
    if scores.matrix is None:
        return None
    low, high = min(0.0, scores.matrix.min()), max(scores.measure.reference, scores.matrix.max())
    profile = profile_with_band(scores.matrix, np.linspace(low, high + 0.05 * (high - low), PROFILE_POINTS))
    plt = _pyplot()
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
    return _save(plt, figure, path)


def plot_sweep_curves(points: list[tuple[str, list[list[dict]]]], metric: str, path: Path) -> Path:
    """A sweep's `metric` against frames: one colour per point (best first, as labelled), one line per
    trial (seed) of it, the legend naming the points only."""
    plt = _pyplot()
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
    return _save(plt, figure, path)


def _save(plt, figure, path: Path, bottom: float = 0.0) -> Path:
    figure.tight_layout(rect=(0, bottom, 1, 1))  # `bottom`: the figure's share kept for its legend
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
