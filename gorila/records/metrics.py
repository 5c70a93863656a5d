"""Run metrics: one JSON object per line in metrics.jsonl, the same scalars in TensorBoard (and in
Weights & Biases with --track, `gorila.records.tracking`).

Every record carries `wall_time` (seconds since launch) and `env_frames`; evaluation records also
carry `eval_return_mean` and `eval_return_std`. A record is written whole or not at all: one that a
full disk cuts short is cut back off the file, and the write raises a WriteError naming the file.
"""

from __future__ import annotations

import collections
import json
import os
import time
from pathlib import Path

import numpy as np

from gorila.messages import Report
from gorila.records.durable import WriteError, reason, write_text_atomically


class MetricsWriter:
    """Appends records; a resumed run passes `purge_after` (the checkpoint's frames) so that TensorBoard
    drops what the lost part of the run had logged past it, as `truncate_metrics` does for the file.
    Each of `trackers` (a `WandbRun`, a sweep's trial reporter) is given every scalar TensorBoard is:
    `log(tags, env_frames)` with tags `kind/name`, and `finish(exit_code)` at the end."""

    def __init__(
        self,
        run_dir: str | Path,
        start_time: float | None = None,
        tensorboard: bool = True,
        purge_after: int | None = None,
        trackers=(),
    ):
        self.run_dir = Path(run_dir)
        self.start = time.time() if start_time is None else start_time
        self.path = self.run_dir / "metrics.jsonl"
        self.file = open(self.path, "ab", buffering=0)  # unbuffered: nothing is left to fail at close
        self.failed = False  # a write failed (and was reported)
        self.trackers = [tracker for tracker in trackers if tracker is not None]
        self.tb = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            purge = None if purge_after is None else purge_after + 1
            self.tb = SummaryWriter(str(self.run_dir / "tensorboard"), purge_step=purge)

    def elapsed(self) -> float:
        return time.time() - self.start

    def write(self, kind: str, env_frames: int, values: dict) -> dict:
        record = {"kind": kind, "wall_time": round(self.elapsed(), 3), "env_frames": int(env_frames), **values}
        self._append((json.dumps(record) + "\n").encode())
        tags = {
            f"{kind}/{key}": value
            for key, value in values.items()
            if isinstance(value, (int, float)) and not isinstance(value, bool)
        }
        self._tensorboard(lambda tb: [tb.add_scalar(tag, value, env_frames) for tag, value in tags.items()])
        for tracker in self.trackers:
            tracker.log(tags, env_frames)
        return record

    def _append(self, line: bytes) -> None:
        """Append one whole line; a write cut short is cut back off, so every line before stays whole."""
        start = os.fstat(self.file.fileno()).st_size
        try:
            view = memoryview(line)
            while view:
                view = view[self.file.write(view) :]
        except OSError as error:
            self.file.truncate(start)  # giving space back needs none
            self.failed = True
            raise WriteError(self.path, reason(error)) from error

    def _tensorboard(self, call) -> None:
        """`call(writer)` on the TensorBoard writer, whose failures (its thread's too) name its events file."""
        if self.tb is None:
            return
        try:
            call(self.tb)
        except Exception as error:
            self.failed = True
            events = sorted((self.run_dir / "tensorboard").glob("events.out.tfevents.*"), key=os.path.getmtime)
            raise WriteError(events[-1] if events else self.run_dir / "tensorboard", reason(error)) from error

    def hparams(self, config: dict, final: dict) -> None:
        flat = {k: (v if isinstance(v, (int, float, str, bool)) else str(v)) for k, v in config.items()}
        self._tensorboard(lambda tb: tb.add_hparams(flat, {f"hparam/{k}": v for k, v in final.items()}, run_name="."))

    def close(self, exit_code: int = 0) -> None:
        """Close the file and TensorBoard, and finish the tracked run with the process's `exit_code`.
        After a write failed (and was reported), a second failure on the way out is not raised: it
        would hide the first."""
        self.file.close()
        failed_before = self.failed
        try:
            self._tensorboard(lambda tb: tb.close())
        except WriteError:
            if not failed_before:
                raise
        finally:
            for tracker in self.trackers:
                tracker.finish(exit_code)


class TrainWindow:
    """Adds up the workers' reports between two train records; keeps the returns and lengths of the
    last 100 episodes."""

    def __init__(self, now: float = 0.0):
        self.returns: collections.deque = collections.deque(maxlen=100)
        self.lengths: collections.deque = collections.deque(maxlen=100)
        self.dropped_outliers = 0  # over the whole run
        self._reset(now)

    def _reset(self, now: float) -> None:
        self.since, self.steps, self.updates = now, 0, 0
        self.loss_sum, self.loss_count, self.dropped, self.replay_size = 0.0, 0, 0, None
        self.epsilon_sum, self.q_sum, self.q_count = 0.0, 0.0, 0

    def add(self, report: Report) -> None:
        self.steps += report.steps
        self.updates += report.updates
        self.loss_sum += report.loss_sum
        self.loss_count += report.loss_count
        self.dropped += report.dropped_outliers
        self.dropped_outliers += report.dropped_outliers
        self.returns.extend(report.episode_returns)
        self.lengths.extend(report.episode_lengths)
        self.epsilon_sum += report.epsilon_sum
        self.q_sum += report.q_sum
        self.q_count += report.q_count
        if report.replay_size is not None:
            self.replay_size = report.replay_size

    def reached(self, target: float) -> bool:
        """Has the mean return of the last 100 episodes reached `target` (0: no target)?"""
        return bool(target) and len(self.returns) == self.returns.maxlen and float(np.mean(self.returns)) >= target

    @property
    def empty(self) -> bool:
        return not (self.steps or self.updates)

    def state(self) -> dict:
        """What a resumed run's window continues from: the last 100 episodes and the run's outlier count
        (so that its first record averages 100 episodes, as the stopped run's last one did)."""
        return {"returns": list(self.returns), "lengths": list(self.lengths), "dropped_outliers": self.dropped_outliers}

    def restore(self, state: dict) -> None:
        self.returns.extend(state.get("returns", []))
        self.lengths.extend(state.get("lengths", []))
        self.dropped_outliers = state.get("dropped_outliers", 0)

    def close(self, now: float, frames_per_step: int) -> dict:
        """The window's rates and means (None where there is nothing to average); starts a new window.

        `epsilon` is the mean exploration rate of the window's agent steps (over all actors), `q_mean`
        the mean Q(s, a) of the actions taken in the window's sampled minibatches (what the loss fits
        to the targets), `episode_length` the mean agent steps of the episodes `return_mean` averages,
        `return_mean_10` the mean of the last 10 of them (a quick read of where training is now).
        """
        elapsed = max(now - self.since, 1e-6)
        mean = lambda total, count: total / count if count else None
        stats = {
            "fps": self.steps * frames_per_step / elapsed,
            "ups": self.updates / elapsed,
            "episodes_recent": len(self.returns),
            "return_mean": float(np.mean(self.returns)) if self.returns else None,
            "return_mean_10": float(np.mean(list(self.returns)[-10:])) if self.returns else None,
            "episode_length": float(np.mean(self.lengths)) if self.lengths else None,
            "epsilon": mean(self.epsilon_sum, self.steps),
            "q_mean": mean(self.q_sum, self.q_count),
            "loss": mean(self.loss_sum, self.loss_count),
            "dropped_outliers": self.dropped,
            "replay_size": self.replay_size,
        }
        self._reset(now)
        return stats


def parameter_server_stats(shards: list[dict], every_shard: bool = True) -> dict:
    """The metrics of the parameter server, from each shard's `stats()`. From only some of the shards
    (`every_shard` false: the others did not answer), only the versions, the newest among those that
    answered; no sum over part of the server is recorded as the server's."""
    if not shards:
        return {}
    versions = {
        "ps_version": max(s["version"] for s in shards),
        "ps_target_version": max(s["target_version"] for s in shards),
    }
    if not every_shard:
        return versions
    applied = sum(s["applied"] for s in shards)
    return {
        **versions,
        "ps_applied": applied,
        "ps_discarded": sum(s["discarded"] for s in shards),
        "ps_mean_staleness": sum(s["mean_staleness"] * s["applied"] for s in shards) / max(applied, 1),
        "ps_staleness_p95": staleness_quantile([s.get("staleness_counts") for s in shards], 0.95),
        **_mean_momentum(shards),
    }


def _mean_momentum(shards: list[dict]) -> dict:
    """{"ps_adam_beta1": the shards' mean first-moment decay} where their rule has one (it falls with
    their gradients' staleness, `staleness_momentum`), else {}."""
    values = [s["adam_beta1"] for s in shards if s.get("adam_beta1") is not None]
    return {"ps_adam_beta1": round(float(np.mean(values)), 4)} if values else {}


def staleness_quantile(histograms: list, q: float) -> int:
    """The `q` quantile of the applied gradients' staleness, in server versions, from the shards'
    histograms (entry k: gradients applied k versions late); 0 before any was applied."""
    counts = [np.asarray(h, np.int64) for h in histograms if h is not None]
    if not counts:
        return 0
    total = np.sum(counts, axis=0)
    if not total.sum():
        return 0
    return int(np.searchsorted(np.cumsum(total), q * total.sum()))


def truncate_metrics(run_dir: str | Path, env_frames: int, wall_time: float) -> int:
    """Drop the records a crashed run wrote after the checkpoint it resumes from (so that no counter
    goes back when the resumed run appends); how many were dropped."""
    path = Path(run_dir) / "metrics.jsonl"
    if not path.is_file():
        return 0
    records = read_metrics(run_dir)
    kept = [r for r in records if r["env_frames"] <= env_frames and r["wall_time"] <= wall_time + 1e-6]
    write_text_atomically(path, "".join(json.dumps(r) + "\n" for r in kept))
    return len(records) - len(kept)


def read_metrics(run_dir: str | Path) -> list[dict]:
    """The records of a run's metrics.jsonl (a half-written last line is skipped)."""
    path = Path(run_dir) / "metrics.jsonl"
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            continue
    return records
