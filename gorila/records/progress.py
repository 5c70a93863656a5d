"""What a person watching a run sees: a live line in a terminal, plain periodic lines in a log.

The live line fits the terminal's width, whatever it is: the frames done of the budget, frames/s, the
training return and the time left stay at any width from 80 columns; then, as the width allows, a bar,
the latest evaluation, updates/s, the time elapsed, the loss, the parameter server's version, the
stale gradients it discarded and the replay's size. A wider terminal shows more of them."""

from __future__ import annotations

import sys

from rich.cells import cell_len
from rich.console import Console
from rich.live import Live
from rich.text import Text

SEPARATOR = " | "
# The fields of the live line, most important first: a field is shown when it fits beside all those before it.
PRIORITY = ("frames", "fps", "return", "eta", "bar", "eval", "updates", "elapsed", "loss", "ps", "stale", "replay")
ORDER = ("frames", "bar", "fps", "updates", "return", "loss", "ps", "stale", "replay", "eval", "elapsed", "eta")
BAR_WIDTHS = (8, 40)  # the bar's narrowest and widest, in cells


def field_texts(stats: dict) -> dict[str, list[str]]:
    """Each number of `stats` that matters while training, as text: per field its spellings, the
    fullest first (the live line takes the fullest that fits)."""
    texts = {"fps": [f"{stats['fps']:,.0f} frames/s"]}
    updates = f"{stats['ups']:,.1f} updates/s"
    texts["updates"] = [updates]
    if stats.get("warmup"):  # no update yet: say what the learners wait for
        texts["updates"] = [
            f"{updates} (learning starts once each replay holds {stats['warmup']:,})",
            f"{updates} (warm-up)",
            updates,
        ]
    if stats.get("return_mean") is not None:
        texts["return"] = [f"return {stats['return_mean']:.1f}"]
    if stats.get("loss") is not None:
        texts["loss"] = [f"loss {stats['loss']:.4f}"]
    if stats.get("ps_version") is not None:  # absent when the shards did not answer in time
        texts["ps"] = [f"PS v{stats['ps_version']}"]
    if stats.get("ps_discarded"):
        texts["stale"] = [f"stale {stats['ps_discarded']}"]
    if stats.get("replay_size") is not None:
        texts["replay"] = [f"replay {stats['replay_size']:,}"]
    if stats.get("eval_return_mean") is not None:
        texts["eval"] = [f"eval {stats['eval_return_mean']:.1f}"]
    return texts


def describe(stats: dict) -> str:
    """One line of the numbers that matter while training (the plain line of a log)."""
    texts = field_texts(stats)
    return SEPARATOR.join(texts[name][0] for name in ORDER if name in texts)


def clock(seconds: float) -> str:
    """`h:mm:ss`, the hours unbounded (a budget of days reads `130:00:00`)."""
    minutes, second = divmod(int(max(seconds, 0)), 60)
    return f"{minutes // 60}:{minutes % 60:02d}:{second:02d}"


def live_fields(frames: int, total: int, stats: dict) -> dict[str, list[str]]:
    """`field_texts` with the frames done of the budget, the time elapsed and the time left at the
    latest frames/s (the budget's: a run that stops once solved ends sooner)."""
    texts = field_texts(stats) if stats else {}
    texts["frames"] = [f"{frames:,}/{total:,} frames"]
    if "wall_time" in stats:
        texts["elapsed"] = [f"elapsed {clock(stats['wall_time'])}"]
    if stats.get("fps"):
        texts["eta"] = [f"ETA {clock(max(total - frames, 0) / stats['fps'])}"]
    return texts


def fit(texts: dict[str, list[str]], width: int) -> tuple[dict[str, str], int]:
    """The fields shown in `width` cells and the cells left over: in `PRIORITY` order, each field in its
    fullest spelling that still fits beside those already taken, the bar at its narrowest (it widens
    into what is left). The first field is always taken (a terminal too narrow even for it cuts it)."""
    taken, used = {}, 0
    for name in PRIORITY:
        spellings = ["━" * BAR_WIDTHS[0] + " 100%"] if name == "bar" else texts.get(name, [])
        for text in spellings:
            cost = cell_len(text) + (0 if not taken else 1 if name == "bar" else len(SEPARATOR))
            if not taken or used + cost <= width:
                taken[name], used = text, used + cost
                break
    return taken, max(width - used, 0)


def bar(done: float, width: int) -> Text:
    """A bar of `width` cells, `done` (0 to 1) of it filled, and the percentage."""
    filled = round(done * width)
    return Text.assemble(("━" * filled, "bar.complete"), ("━" * (width - filled), "bar.back"), f" {done:.0%}")


def live_line(frames: int, total: int, stats: dict, width: int) -> Text:
    """The live line for a terminal `width` cells wide: the fields `fit` takes, in `ORDER`."""
    taken, spare = fit(live_fields(frames, total, stats), width)
    line = Text(no_wrap=True, overflow="ellipsis", end="")
    for name in ORDER:
        if name not in taken:
            continue
        if name == "bar":
            line.append(" ")
            line.append(bar(min(frames / total, 1.0) if total else 0.0, min(BAR_WIDTHS[1], BAR_WIDTHS[0] + spare)))
            continue
        if len(line):
            line.append(SEPARATOR, style="dim")
        line.append(taken[name], style="bold" if name == "frames" else "")
    return line


class LiveLine:
    """The latest frames and stats, rendered as `live_line` at the console's width each time the
    line is drawn (so a resized terminal gets a line that fits it)."""

    def __init__(self, total_frames: int):
        self.total, self.frames, self.stats = total_frames, 0, {}

    def __rich_console__(self, console, options):
        yield live_line(self.frames, self.total, self.stats, options.max_width)


class ProgressDisplay:
    """The live line (`LiveLine`) when `live` (default: stdout is a terminal), plain lines otherwise;
    messages print above the live line, which is drawn again below them."""

    def __init__(self, total_frames: int, live: bool | None = None, console: Console | None = None):
        self.live = sys.stdout.isatty() if live is None else live
        self.console = console or Console(highlight=False, soft_wrap=True)  # a log line stays one line
        self.view = None
        if self.live:
            self.line = LiveLine(total_frames)
            self.view = Live(self.line, console=self.console, auto_refresh=False)  # drawn at each update
            self.view.start(refresh=True)

    def update(self, frames: int, stats: dict) -> None:
        if self.view is not None:
            self.line.frames, self.line.stats = frames, stats
            self.view.refresh()
        else:
            print(f"[{stats['wall_time']:7.1f}s] {frames:,} frames | {describe(stats)}", flush=True)

    def message(self, text: str) -> None:
        self.console.print(text)

    def close(self) -> None:
        if self.view is not None:
            self.view.stop()
            self.view = None
