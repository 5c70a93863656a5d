"""MinAtar runs against MinAtar's published DQN (Young & Tian 2019): one panel per run (or per game,
over its seeds), the run's training return (the mean of its last 100 training episodes, each train
record's `return_mean`) against frames, over the published DQN curve (the same measure, mean of 30
runs) drawn dashed up to the run's frames, with the published value at the run's last frames marked."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gorila.evaluation.minatar_reference import published_dqn_curve, published_dqn_return
from gorila.experiments.report.plots import pyplot, save_figure, training
from gorila.experiments.suite.minatar_table import WINDOW, published_gap
from gorila.experiments.suite.plan import is_minatar

# ---- ------------------------------------------------------------
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
    return save_figure(pyplot(), figure, path, bottom=(0.15 + 0.2 * legend_rows) / figure.get_figheight())


def minatar_figure(panels: list[MinAtarPanel]):
    """The matplotlib Figure of `panels`: a grid of up to three columns, one legend below."""
    plt = pyplot()
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
