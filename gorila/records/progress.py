"""What a person watching a run sees: a live bar in a terminal, plain periodic lines in a log."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn


def describe(stats: dict) -> str:
    """One line of the numbers that matter while training."""
    parts = [f"{stats['fps']:,.0f} frames/s", f"{stats['ups']:,.1f} updates/s"]
    if stats.get("warmup"):                    # no update yet: say what the learners wait for
        parts[-1] += f" (learning starts once each replay holds {stats['warmup']:,})"
    if stats.get("return_mean") is not None:
        parts.append(f"return {stats['return_mean']:.1f}")
    if stats.get("loss") is not None:
        parts.append(f"loss {stats['loss']:.4f}")
    parts.append(f"PS v{stats['ps_version']}")
    if stats.get("ps_discarded"):
        parts.append(f"stale {stats['ps_discarded']}")
    if stats.get("replay_size") is not None:
        parts.append(f"replay {stats['replay_size']:,}")
    if stats.get("eval_return_mean") is not None:
        parts.append(f"eval {stats['eval_return_mean']:.1f}")
    return " | ".join(parts)


class ProgressDisplay:
    def __init__(self, total_frames: int, live: bool | None = None):
        self.live = sys.stdout.isatty() if live is None else live
        self.console = Console(highlight=False, soft_wrap=True)     # a log line stays one line
        self.bar = None
        if self.live:
            self.bar = Progress(TextColumn("[bold]frames"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TextColumn("{task.fields[info]}"), console=self.console)
            self.task = self.bar.add_task("train", total=total_frames, info="starting")
            self.bar.start()

    def update(self, frames: int, stats: dict) -> None:
        line = describe(stats)
        if self.bar is not None:
            self.bar.update(self.task, completed=frames, info=line)
        else:
            print(f"[{stats['wall_time']:7.1f}s] {frames:,} frames | {line}", flush=True)

    def message(self, text: str) -> None:
        (self.bar.console if self.bar is not None else self.console).print(text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
