"""Read MinAtar's published DQN learning curves off the figure of its repository.

Young & Tian (2019) publish their curves only as a picture, img/learning_curves.gif of
github.com/kenjyoung/MinAtar: one panel per game of the moving average of training returns over 100
episodes (mean of 30 runs) against training frames, 0-5M. This script reads the DQN curve of each
panel into gorila/evaluation/minatar/dqn_<game>.tsv, which `gorila.evaluation.minatar_reference`
interpolates. How:

- axes: a panel's box is found from its black spines; its tick marks are located to a fraction of a
  pixel (the darkness-weighted centre of each mark) and a straight line through them maps pixels to
  frames (0-5M) and returns (the tick labels, read by eye, are in `PANELS`);
- the DQN line: in each pixel column, its blue pixels (the DQN colour and its anti-aliased edge) and
  the middle row between the topmost and the bottommost. The mean of 30 runs wiggles, so in one
  column the line spans 5 rows where it is flat and smooth and up to 20 where it is noisy or steep;
- other curves are drawn over the DQN line. Where one lies against one side of the blue (a pixel of
  another colour comes before the pale ground), the hidden part is taken as small as the line's
  5-row stroke allows: the middle of what shows, but at least half a stroke in from the edge that
  shows. Where curves cover both sides, or in a sliver of fewer than 3 readable columns between
  hidden ones, the line is not read;
- every readable column up to 500k frames is written, after that one in ten, and the last.

Taking the median of the blue rows instead, in every column where blue shows, gives back the first
reading of Breakout (within 0.014 in return on all its 120 columns). The rules on covered sides change
two of them, by 0.25 and 0.29 at 93k and 100k frames, where AC(0.8) hides the lower part of the
climbing line and the median leaned up; the other 118 move by less than 0.05. The frames of a column
differ from that reading's by up to 2k (tick centres to a fraction of a pixel, not whole pixels).

Usage: python benchmarks/read_minatar_curves.py LEARNING_CURVES_GIF [--out DIR] [--plots DIR]
(the GIF: `git show 4241f24:img/learning_curves.gif` in a clone of kenjyoung/MinAtar; --plots draws
the points read over each panel, to check them by eye).
"""

from __future__ import annotations

import argparse
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

OUT = Path(__file__).resolve().parent.parent / "gorila" / "evaluation" / "minatar"

DQN_BLUE = np.array([1, 115, 178])  # the DQN line's colour (seaborn's colourblind blue)
WHITE = np.array([255, 255, 255])
BLUE_DISTANCE = 50  # RGB distance from DQN_BLUE of the line's pixels: its core and darkest edge pixels
STROKE_ROWS = 5  # the line's thickness in a column where it is flat and free of other curves
EDGE_ROWS = 6  # pixels looked at beyond the line's edge: its anti-aliased edge fades over up to 5
MIN_RUN = 3  # fewest neighbouring readable columns kept (a shorter run is a sliver of the line)
PALE = 170  # smallest channel of a pale pixel: the white ground and the curves' pale bands
OFF_THE_LINE = 25  # RGB distance from the line's own blue-to-white blends of another colour's pixel
DARK = 200  # sum of R, G, B below which a pixel belongs to a spine or a tick mark
X_TICKS = (0, 1e6, 2e6, 3e6, 4e6, 5e6)  # every panel: "frames (in millions)", 0 to 5
EVERY_COLUMN_UNTIL = 500_000  # frames; one readable column in ten after that
PRECISION_ROWS = 2  # the middle found lies within about 2 rows of the line's centre where it shows whole


@dataclass(frozen=True)
class Panel:
    """One panel: where to look for it (a left, top, right, bottom window of pixels holding its box and
    tick marks), its y tick labels bottom to top, and the actions of its MinAtar game's minimal set."""

    game: str
    title: str
    env_name: str
    window: tuple[int, int, int, int]
    y_ticks: tuple[float, ...]
    minimal_actions: str


# Tick labels read by eye from the figure (3038 x 1629 pixels, one frame). The curves were made with
# MinAtar's own Environment, which always has the 6 actions: Gymnasium's v0 ids; the v1 ids have the
# game's minimal set.
PANELS = (
    Panel(
        "asterix", "Asterix", "Asterix", (40, 900, 830, 1480), (0, 5, 10, 15, 20), "no-op, left, up, right, down (5)"
    ),
    Panel("breakout", "Breakout", "Breakout", (1500, 120, 2300, 700), (0, 5, 10, 15), "no-op, left, right (3)"),
    Panel("freeway", "Freeway", "Freeway", (1150, 900, 1930, 1480), (0, 10, 20, 30, 40, 50), "no-op, up, down (3)"),
    Panel(
        "seaquest",
        "Seaquest",
        "Seaquest",
        (560, 120, 1340, 700),
        (0, 5, 10, 15, 20),
        "all 6, so -v0 and -v1 are the same game",
    ),
    Panel(
        "space_invaders",
        "Space Invaders",
        "SpaceInvaders",
        (2230, 900, 3020, 1480),
        (0, 50, 100, 150, 200),
        "no-op, left, right, fire (4)",
    ),
)
VERSION = "MinAtar 1.0.x (the figure was committed in February 2020, with 1.0.5)"
SEAQUEST_VERSION = (
    "MinAtar 1.0.10 or older (the figure predates 1.0.11's fix of the oxygen bar, which "
    "flashed to full one step before the oxygen ran out; MinAtar's README warns that results "
    "with the fixed game may differ)"
)


@dataclass(frozen=True)
class Axes:
    """A panel's box (inside its spines) and its maps value = slope * pixel + intercept."""

    left: int
    top: int
    right: int
    bottom: int
    x_map: tuple[float, float]
    y_map: tuple[float, float]

    def frames(self, column: float) -> float:
        return self.x_map[0] * column + self.x_map[1]

    def value(self, row: float) -> float:
        return self.y_map[0] * row + self.y_map[1]

    def column(self, frames: float) -> float:
        return (frames - self.x_map[1]) / self.x_map[0]

    def row(self, value: float) -> float:
        return (value - self.y_map[1]) / self.y_map[0]


def load_figure(path: Path) -> np.ndarray:
    """The figure as an (H, W, 3) int array; the GIF has a single frame, holding every curve."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=int)


def runs(indices: np.ndarray) -> list[np.ndarray]:
    """Runs of consecutive indices."""
    return np.split(indices, np.flatnonzero(np.diff(indices) > 1) + 1)


def spines(dark: np.ndarray) -> tuple[int, int, int, int]:
    """Outer and inner edge of the first spine across axis 0 of a window, then inner and outer edge of
    the last: a spine is a run of a few rows dark over most of the window's width, a tick or a label is not."""
    first, *_, last = runs(np.flatnonzero(dark.mean(axis=1) > 0.5))
    return int(first[0]), int(first[-1]) + 1, int(last[0]) - 1, int(last[-1])


def tick_centres(darkness: np.ndarray) -> list[float]:
    """The darkness-weighted centre of each tick mark along a strip (darkness summed across it)."""
    return [float((run * darkness[run]).sum() / darkness[run].sum()) for run in runs(np.flatnonzero(darkness))]


def fit(pixels: list[float], values: tuple[float, ...], what: str) -> tuple[float, float]:
    """The least-squares line through the tick marks, as (slope, intercept)."""
    if len(pixels) != len(values):
        raise SystemExit(f"read_minatar_curves: found {len(pixels)} {what} tick marks, expected {len(values)}")
    slope, intercept = np.polyfit(pixels, values, 1)
    return float(slope), float(intercept)


def find_axes(figure: np.ndarray, panel: Panel) -> Axes:
    """The panel's box, and its calibration on the tick marks outside its bottom and left spines."""
    x0, y0, x1, y1 = panel.window
    dark = figure[y0:y1, x0:x1].sum(axis=2) < DARK
    _, top, bottom, outer_bottom = (y0 + i for i in spines(dark))
    outer_left, left, right, _ = (x0 + i for i in spines(dark.T))
    darkness = np.clip(765 - figure.sum(axis=2), 0, None)
    # Tick marks point outwards, about 12 pixels long: the strips skip the spine's anti-aliased edge
    # and stop short of the tick labels.
    below = darkness[outer_bottom + 2 : outer_bottom + 11, left - 10 : right + 10].sum(axis=0)
    beside = darkness[top - 10 : bottom + 10, outer_left - 11 : outer_left - 1].sum(axis=1)
    x_ticks = [left - 10 + c for c in tick_centres(below)]
    y_ticks = sorted((top - 10 + r for r in tick_centres(beside)), reverse=True)  # the bottom one first
    return Axes(left, top, right, bottom, fit(x_ticks, X_TICKS, "x"), fit(y_ticks, panel.y_ticks, "y"))


def off_the_line(pixel: np.ndarray) -> float:
    """RGB distance of a pixel from the blends of the DQN blue with white (the line's own soft edge and
    pale band): another curve's colour, or its blend with the blue, lies far from them."""
    towards_white = WHITE - DQN_BLUE
    share = np.clip((pixel - DQN_BLUE) @ towards_white / (towards_white @ towards_white), 0, 1)
    return float(np.sqrt(((pixel - DQN_BLUE - share * towards_white) ** 2).sum()))


def covered(outward: np.ndarray) -> bool:
    """Whether another curve lies against the DQN line, from the pixels beyond one of its edges (nearest
    first): not where the edge fades to a pale pixel, yes where a pixel of another colour comes first."""
    for pixel in outward[:EDGE_ROWS]:
        if pixel.min() >= PALE:
            return False
        if off_the_line(pixel) > OFF_THE_LINE:
            return True
    return False


@dataclass(frozen=True)
class Reading:
    row: float
    from_edge: bool  # another curve covers one side; the row is reckoned from the other edge


def read_column(figure: np.ndarray, axes: Axes, column: int) -> Reading | None:
    """The DQN line's centre row in one column, or None where it does not show or both its sides are covered."""
    pixels = figure[axes.top : axes.bottom + 1, column]
    blue = axes.top + np.flatnonzero(np.sqrt(((pixels - DQN_BLUE) ** 2).sum(axis=1)) <= BLUE_DISTANCE)
    if len(blue) == 0:
        return None
    top, bottom = int(blue.min()), int(blue.max())
    above, below = covered(figure[top - 1 :: -1, column]), covered(figure[bottom + 1 :, column])
    if above and below:
        return None
    half = max(bottom - top, STROKE_ROWS - 1 if above or below else 0) / 2
    return Reading(bottom - half if above else top + half, above or below)


def read_columns(figure: np.ndarray, axes: Axes) -> dict[int, Reading | None]:
    """The reading of every column from 0 to 5M frames. A run of fewer than `MIN_RUN` readable columns
    between hidden ones is a sliver of a line climbing under other curves, whose extent cannot be told:
    it is dropped."""
    # The last column inside the box touches the right spine's anti-aliased edge: not read.
    columns = range(int(np.ceil(axes.column(X_TICKS[0]))), min(axes.right - 1, int(axes.column(X_TICKS[-1]))) + 1)
    readings = {column: read_column(figure, axes, column) for column in columns}
    readable = np.array([column for column, reading in readings.items() if reading is not None])
    for run in runs(readable) if len(readable) else []:
        if len(run) < MIN_RUN:
            readings.update(dict.fromkeys(run.tolist()))
    return readings


def thin_out(readings: dict[int, Reading | None], axes: Axes) -> list[int]:
    """The columns written: every readable one up to 500k frames, then the first readable one at least
    ten columns after the last one kept, and the last readable one (the curve's end)."""
    readable = [column for column, reading in readings.items() if reading is not None]
    kept: list[int] = []
    for column in readable:
        if not kept or axes.frames(column) <= EVERY_COLUMN_UNTIL or column - kept[-1] >= 10:
            kept.append(column)
    return kept if kept[-1] == readable[-1] else [*kept, readable[-1]]


@dataclass(frozen=True)
class Curve:
    """One panel's DQN curve: its axes, the points written, and the columns hidden or read from one edge."""

    panel: Panel
    axes: Axes
    points: list[tuple[int, float]]
    hidden: list[int]
    from_edge: list[int]


def read_panel(figure: np.ndarray, panel: Panel) -> Curve:
    axes = find_axes(figure, panel)
    readings = read_columns(figure, axes)
    points = [(int(round(axes.frames(c), -2)), round(axes.value(readings[c].row), 2)) for c in thin_out(readings, axes)]
    return Curve(
        panel,
        axes,
        points,
        [c for c, r in readings.items() if r is None],
        [c for c, r in readings.items() if r is not None and r.from_edge],
    )


def spans(columns: list[int], axes: Axes, bridge: int = 5) -> str:
    """The frames these columns cover, as runs ('0-77k, 1,346k-1,396k'), joining runs less than `bridge`
    columns apart."""
    joined: list[list[int]] = []
    for column in columns:
        if joined and column - joined[-1][1] <= bridge:
            joined[-1][1] = column
        else:
            joined.append([column, column])
    start = int(np.ceil(axes.column(0)))
    return (
        ", ".join(
            f"{0 if a == start else axes.frames(a - 0.5) / 1e3:,.0f}-{axes.frames(b + 0.5) / 1e3:,.0f}k"
            for a, b in joined
        )
        or "none"
    )


def header(curve: Curve) -> str:
    """The file's comment lines: what the curve is, where it comes from, how it was read and how well."""
    panel, axes = curve.panel, curve.axes
    per_row = abs(axes.y_map[0])
    paragraphs = [
        f"DQN on MinAtar {panel.title}: moving average of training returns over 100 episodes, mean of 30 runs, "
        f"against training frames; {SEAQUEST_VERSION if panel.game == 'seaquest' else VERSION}, with the full "
        f"action set of 6 actions (MinAtar/{panel.env_name}-v0; -v1 has the minimal set: {panel.minimal_actions}), "
        "sticky actions 0.1 and difficulty ramping (MinAtar's defaults), DQN settings of examples/dqn.py there "
        "(5M frames).",
        'Source: Young & Tian (2019), "MinAtar: An Atari-Inspired Testbed for Thorough and Reproducible '
        'Reinforcement Learning Experiments", arXiv:1903.03176; the plot img/learning_curves.gif of '
        f'github.com/kenjyoung/MinAtar (commit 4241f24), panel "{panel.game.replace("_", " ")}", curve "DQN". '
        "The repository publishes no numbers, so these were read off that image by "
        f"benchmarks/read_minatar_curves.py: in each pixel column (one column = {axes.x_map[0]:,.0f} frames) "
        "the middle of the DQN line's blue pixels, axes calibrated on the tick marks (0-5M frames, returns "
        f"{panel.y_ticks[0]:g}-{panel.y_ticks[-1]:g}). Every column up to 500k frames, every tenth readable one "
        "after, and the last.",
        "Where another curve covers one side of the line, its centre is taken at least half its "
        f"{STROKE_ROWS}-row stroke in from the edge that shows: frames {spans(curve.from_edge, axes)}. Where the "
        f"line lies under other curves it cannot be read: frames {spans(curve.hidden, axes)}. One pixel row = "
        f"{per_row:.3f} in return: about +/- {PRECISION_ROWS * per_row:.2g} where the line shows whole, more "
        "where one side is covered.",
    ]
    lines = [line for paragraph in paragraphs for line in textwrap.wrap(paragraph, 102)]
    return "".join(f"# {line}\n" for line in [*lines, "columns: frames, return"])


def write_tsv(path: Path, curve: Curve) -> None:
    path.write_text(header(curve) + "".join(f"{frames}\t{value:.2f}\n" for frames, value in curve.points))


def plot_check(figure: np.ndarray, curve: Curve, path: Path) -> None:
    """The panel with the points read drawn over it in red: whole, and its first 1M frames magnified."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = curve.axes
    columns = [axes.column(frames) for frames, _ in curve.points]
    rows = [axes.row(value) for _, value in curve.points]
    early = [row for column, row in zip(columns, rows) if column <= axes.column(1e6)] or [axes.bottom]
    plot, (whole, start) = plt.subplots(1, 2, figsize=(16, 6))
    for view in (whole, start):
        view.imshow(figure.astype(np.uint8), interpolation="nearest")
        view.plot(columns, rows, ".", color="red", markersize=3)
    whole.set(
        xlim=(axes.left - 15, axes.right + 15),
        ylim=(axes.bottom + 15, axes.top - 15),
        title=f"{curve.panel.game}: {len(curve.points)} points read",
    )
    start.set(
        xlim=(axes.column(0) - 3, axes.column(1e6)),
        ylim=(max(early) + 30, min(early) - 30),
        title="first 1M frames",
        aspect="auto",
    )
    plot.tight_layout()
    plot.savefig(path, dpi=110)
    plt.close(plot)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gif", type=Path, help="img/learning_curves.gif of kenjyoung/MinAtar")
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the TSVs (default: the package's)")
    parser.add_argument("--plots", type=Path, help="folder for a check PNG per panel")
    args = parser.parse_args()
    figure = load_figure(args.gif)
    for panel in PANELS:
        curve = read_panel(figure, panel)
        write_tsv(args.out / f"dqn_{panel.game}.tsv", curve)
        if args.plots:
            args.plots.mkdir(parents=True, exist_ok=True)
            plot_check(figure, curve, args.plots / f"{panel.game}.png")
        print(f"{panel.game}: {len(curve.points)} points, {curve.points[0][0]:,}-{curve.points[-1][0]:,} frames")


if __name__ == "__main__":
    main()
