"""Training a checked config in a claimed run directory (`run_in`), and what the run did
(`TrainResult`): what `gorila.train`, `gorila train` and each trial of a sweep share. The driver is
imported when a run starts, so that the callers' help and planning import no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gorila.config import Config


@dataclass(frozen=True)
class TrainResult:
    """What a run did and where it left its parameters."""

    run_dir: Path
    env_frames: int
    updates: int
    wall_time: float  # seconds, from launch
    stop_reason: str  # budget, solved, interrupted, ...
    interrupted: bool
    best_eval_return: float | None  # the best evaluation mean of the run
    final_eval_return: float | None  # the last evaluation mean
    solved_at_frames: int | None  # the first confirmed evaluation at or above stop_at_return
    solved_at_seconds: float | None
    checkpoint: Path  # the final checkpoint
    best_checkpoint: Path | None  # best.pt, what `evaluate(run_dir)` loads
    summary: dict = field(repr=False)  # everything the run's summary record holds


def run_in(
    config: Config,
    run_dir: Path,
    *,
    created: bool = False,
    payload: dict | None = None,
    live_progress: bool | None = None,
    start_time: float | None = None,
    trackers=(),
) -> TrainResult:
    """Train a checked config in a claimed run directory (or resume `payload` in it), holding the
    directory's lock; a directory this launch `created` that nothing was written to is removed.
    `trackers` hear every record's scalars (`gorila.records.metrics.MetricsWriter`)."""
    from gorila.records.run_dirs import RunLock, remove_if_empty
    from gorila.system.driver import Driver

    lock = RunLock(run_dir)
    try:
        summary = Driver(
            config, run_dir, live_progress=live_progress, start_time=start_time, resume=payload, trackers=trackers
        ).run()
    finally:
        lock.release()
        if created:
            remove_if_empty(run_dir)
    return train_result(run_dir, summary)


def train_result(run_dir: Path, summary: dict) -> TrainResult:
    """A `TrainResult` of the summary dict `Driver.run` returns."""
    checkpoint = Path(summary["checkpoint"])
    best = checkpoint.parent / "best.pt"
    return TrainResult(
        run_dir=Path(run_dir),
        env_frames=summary["env_frames"],
        updates=summary["updates"],
        wall_time=summary["wall_time"],
        stop_reason=summary["stop_reason"],
        interrupted=summary["interrupted"],
        best_eval_return=summary["best_eval_return_mean"],
        final_eval_return=summary.get("final_eval_return_mean"),
        solved_at_frames=summary.get("solved_at_frames"),
        solved_at_seconds=summary.get("solved_at_seconds"),
        checkpoint=checkpoint,
        best_checkpoint=best if best.is_file() else None,
        summary=summary,
    )
