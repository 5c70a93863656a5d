"""The progress line: what a person watching a run reads, in a log and live in a terminal of any width."""

import io
import re

import pytest
from rich.console import Console

from gorila.records.progress import ProgressDisplay, describe, live_line

STATS = {"fps": 4687.2, "ups": 0.0, "return_mean": 1.8, "ps_version": 0, "replay_size": 1_285}


def test_before_the_first_update_the_line_says_what_the_learners_wait_for():
    assert describe({**STATS, "warmup": 50_000}) == (
        "4,687 frames/s | 0.0 updates/s (learning starts once each replay holds 50,000) | return 1.8 | PS v0 | "
        "replay 1,285"
    )
    assert describe({**STATS, "ups": 12.5, "warmup": None}) == (
        "4,687 frames/s | 12.5 updates/s | return 1.8 | PS v0 | replay 1,285"
    )


RUNNING = {
    **STATS,
    "fps": 3338.2,
    "ups": 12.5,
    "return_mean": 21.3,
    "loss": 0.01234,
    "ps_version": 1234,
    "ps_discarded": 3,
    "replay_size": 12_345,
    "eval_return_mean": 150.0,
    "wall_time": 83.2,
    "warmup": None,
}


def terminal(width: int) -> Console:
    return Console(width=width, force_terminal=True, record=True, file=io.StringIO(), highlight=False)


def rendered(frames: int, total: int, stats: dict, width: int) -> str:
    """The live line as a terminal `width` columns wide shows it."""
    console = terminal(width)
    console.print(live_line(frames, total, stats, width))
    return console.export_text()


@pytest.mark.parametrize(
    "frames, total, eta", [(12_345, 30_000, "ETA 0:00:05"), (12_345_678, 50_000_000, "ETA 3:07:59")]
)
def test_at_80_columns_the_live_line_keeps_frames_rate_return_and_time_left(frames, total, eta):
    text = rendered(frames, total, RUNNING, 80)
    assert text.count("\n") == 1 and len(text.rstrip("\n")) <= 80, text
    for piece in (f"{frames:,}/{total:,} frames", "3,338 frames/s", "return 21.3", eta):
        assert piece in text, (piece, text)
    assert "loss" not in text and "PS v" not in text and "replay" not in text  # the first to go


def test_a_wider_terminal_shows_more_and_every_width_fits():
    shown = [rendered(12_345, 30_000, RUNNING, width) for width in range(80, 241, 8)]
    for width, text in zip(range(80, 241, 8), shown):
        assert text.count("\n") == 1 and len(text.rstrip("\n")) <= width, (width, text)
        assert "12,345/30,000 frames" in text and "ETA 0:00:05" in text
    assert "━" in shown[0]  # a bar at 80 columns already
    for piece in (
        "12.5 updates/s",
        "loss 0.0123",
        "PS v1234",
        "stale 3",
        "replay 12,345",
        "eval 150.0",
        "elapsed 0:01:23",
    ):
        assert piece not in shown[0] and piece in shown[-1], piece


def test_the_warmup_note_shortens_before_it_goes():
    warming = {**RUNNING, "ups": 0.0, "warmup": 50_000}
    assert "(learning starts once each replay holds 50,000)" in rendered(1_000, 30_000, warming, 240)
    assert "0.0 updates/s (warm-up)" in rendered(1_000, 30_000, warming, 130)


def shown_lines(raw: str) -> list[str]:
    """The lines a terminal shows once `raw` is written to it: of a line cleared and drawn again
    (`\\r` and erase-line), the last drawing."""
    plain = re.sub(r"\x1b\[(\?25[hl]|[0-9;]*m)", "", raw)
    return [line.split("\r\x1b[2K")[-1] for line in plain.split("\n") if line]


def test_a_live_display_redraws_its_line_below_messages():
    console = terminal(80)
    display = ProgressDisplay(30_000, live=True, console=console)
    display.update(12_345, RUNNING)
    display.message("eval at 10,000 frames: mean 150.0")
    display.update(15_000, RUNNING)
    display.close()
    message, line = shown_lines(console.file.getvalue())
    assert message == "eval at 10,000 frames: mean 150.0"
    assert re.fullmatch(r"15,000/30,000 frames ━+ 50% \| 3,338 frames/s \| return 21.3 \| ETA 0:00:04", line), line
    assert len(line) <= 80


def test_outside_a_terminal_each_update_is_one_plain_line(capsys):
    display = ProgressDisplay(30_000, live=False)
    display.update(12_345, RUNNING)
    display.close()
    assert capsys.readouterr().out == f"[   83.2s] 12,345 frames | {describe(RUNNING)}\n"
