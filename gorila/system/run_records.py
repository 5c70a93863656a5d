"""What the driver writes while a run goes on: metrics.jsonl (and W&B and any other trackers), the
progress line, and the payload every checkpoint holds.

`RunRecords` is made once the system is placed (nothing is on disk before then): it writes the run's
config.yaml and opens the metrics. The driver hands it what it counted; it turns that into records.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import torch

from gorila.config import Config, save_yaml
from gorila.plugins import reference_of
from gorila.records.metrics import MetricsWriter, TrainWindow
from gorila.records.progress import ProgressDisplay
from gorila.records.tracking import WandbRun
from gorila.system.budget import describe_schedule, epsilon_warning
from gorila.system.plan import RunPlan
from gorila.system.signals import held
from gorila.system.topology import describe_topology


class RunRecords:
    """The metrics, the window of reports since the last train record, and the progress display."""

    def __init__(
        self,
        config: Config,
        plan: RunPlan,
        run_dir: Path,
        start: float,
        resumed_frames: int | None = None,
        trackers=(),
        live_progress: bool | None = None,
    ):
        self.config, self.plan, self.info = config, plan, plan.info
        run_dir.mkdir(parents=True, exist_ok=True)
        save_yaml(config, run_dir / "config.yaml")
        self.metrics = MetricsWriter(
            run_dir, start_time=start, purge_after=resumed_frames, trackers=(WandbRun.start(config, run_dir), *trackers)
        )
        self.window = TrainWindow(self.metrics.elapsed())
        self.display = ProgressDisplay(config.total_frames, live_progress)

    def say(self, line: str) -> None:
        self.display.message(line)

    def _write(self, kind: str, frames: int, stats: dict) -> dict:
        """A metrics record, written whole whatever stop signal comes (`held`: TensorBoard's queue and
        W&B's writes are not safe against a KeyboardInterrupt raised half-way)."""
        with held():
            return self.metrics.write(kind, frames, stats)

    def opening(self, runtime: str, run_dir: Path, resumed_frames: int | None) -> None:
        """The run's first lines: the game, runtime, topology and run directory; its schedule; a warning
        about its exploration where one is due."""
        resumed = f"; resumed at {resumed_frames:,} frames" if resumed_frames is not None else ""
        self.say(
            f"gorila: {reference_of(self.config.env)} on {runtime}, {describe_topology(self.config, self.plan)}; "
            f"run dir {run_dir}{resumed}"
        )
        for line in (describe_schedule(self.config, self.plan), epsilon_warning(self.config, self.plan)):
            if line:
                self.say(line)

    def resumed(self, frames: int, replay: str | None, files_restored: int) -> None:
        """A resume record: where the run went on from, what its replay held (the line said) and how many
        saved replay files refilled it (0: it started empty), so that whoever reads the metrics later
        knows the run was stopped and how it went on."""
        line = replay or "none kept (no replay memory)"
        self._write("resume", frames, {"replay": line, "replay_files_restored": files_restored})

    def fault(self, steps: int, component: str, what: str, failures: int) -> None:
        self._write("fault", self.info.frames(steps), {"component": component, "reason": what, "failures": failures})

    def train(self, steps: int, counted: dict, last_eval: dict | None, warmup) -> None:
        """A train record of the reports since the last one and what the driver `counted` (updates, the
        shards' counters, the replay's size), and the progress line."""
        stats = self.window.close(self.metrics.elapsed(), self.info.frames_per_step)
        stats.update(counted)
        stats = {key: value for key, value in stats.items() if value is not None}
        record = self._write("train", self.info.frames(steps), stats)
        shown = {
            **stats,
            "wall_time": record["wall_time"],
            "warmup": warmup,
            "eval_return_mean": (last_eval or {}).get("eval_return_mean"),
        }
        self.display.update(record["env_frames"], shown)

    def evaluation(self, steps: int, result: dict, updates: int, confirming: bool) -> None:
        frames = self.info.frames(steps)
        self._write("eval", frames, {**result, "updates": updates, "confirmation": confirming})
        what = f"confirmation of the {frames:,}-frame parameters" if confirming else f"eval at {frames:,} frames"
        self.say(
            f"{what}: mean {result['eval_return_mean']:.1f} +/- {result['eval_return_std']:.1f} "
            f"over {result['eval_episodes']} episodes"
        )

    def payload(self, theta, updates: int, **extra) -> dict:
        """What a checkpoint holds besides its format: enough to evaluate, report and re-run."""
        return {
            "config": self.config.to_dict(),
            "env_info": asdict(self.info),
            "updates": updates,
            "wall_time": self.metrics.elapsed(),
            "theta": torch.as_tensor(theta),
            **extra,
        }

    def summary(self, result: dict) -> dict:
        """The run's summary record (`result` with the run's wall time and dropped gradients), and its
        hyperparameters with the best score (TensorBoard's view); the summary."""
        result = {**result, "dropped_outliers": self.window.dropped_outliers, "wall_time": self.metrics.elapsed()}
        with held():  # the summary and the hyperparameters whole
            self._write("summary", result["env_frames"], {k: v for k, v in result.items() if k != "checkpoint"})
            if result.get("best_eval_return_mean") is not None:
                self.metrics.hparams(self.config.to_dict(), {"best_eval_return_mean": result["best_eval_return_mean"]})
        return result
