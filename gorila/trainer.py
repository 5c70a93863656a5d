"""The driver: builds the system on a runtime, hands out work, evaluates, logs and checkpoints.

The same loop drives both runtimes. Each worker (bundle, actor or learner) gets a budget, works on it
and reports back; on Ray all of them work at once and the loop takes reports as they come, on the
local runtime each call runs to completion in a fixed order. Learners outside bundles are held to
DQN's ratio of one update per `update_every` agent steps collected.
"""
from __future__ import annotations

import collections
import signal
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from gorila.checkpoint import save_checkpoint
from gorila.config import Config, effective_learning_starts, save_yaml
from gorila.core import describe_env
from gorila.envs import make_vector_env
from gorila.metrics import MetricsWriter
from gorila.parameter_server import ParameterClient
from gorila.progress import ProgressDisplay
from gorila.runtime import make_runtime
from gorila.runtime.topology import build_system, initial_parameters, parameter_bounds

CHUNK_STEPS = 256          # agent steps per actor/bundle work item (a fraction of a second)
LEARNER_BACKOFF_S = 0.05   # a learner whose replay is still warming up waits this long
READY_TIMEOUT_S = 120


class WorkerError(RuntimeError):
    """A component failed while training; the message says which and why."""


class Trainer:
    def __init__(self, config: Config, run_dir: Path, live_progress: bool | None = None):
        self.config, self.run_dir = config, Path(run_dir)
        self.start = time.time()
        self.live_progress = live_progress
        self.frames = 0
        self.updates = 0
        self.returns = collections.deque(maxlen=100)
        self.dropped_outliers = 0
        self.window = collections.Counter()
        self.last_eval: dict | None = None
        self.best_eval = -np.inf
        self.solved_at: tuple[int, float] | None = None
        self.stopping = None

    # ---- setup -------------------------------------------------------------------------------
    def setup(self) -> None:
        probe = make_vector_env(self.config.env, 1, seed=self.config.seed)
        self.info = describe_env(probe)
        probe.close()
        parameter_bounds(self.config, initial_parameters(self.config, self.info).size)  # fail before writing
        self.runtime = make_runtime(self.config)
        self.calls = self.runtime.calls
        self.system = build_system(self.config, self.info, self.runtime.place, self.calls)
        self.params = ParameterClient(self.system.shards, self.system.bounds, self.calls)
        self._wait_ready()
        # Only now, with every component running, does the run leave anything on disk.
        self.run_dir.mkdir(parents=True, exist_ok=True)
        save_yaml(self.config, self.run_dir / "config.yaml")
        self.metrics = MetricsWriter(self.run_dir, start_time=self.start)
        self.display = ProgressDisplay(self.config.total_frames, self.live_progress)

    def _wait_ready(self) -> None:
        """Every component constructed (on Ray: scheduled on some node); else a clear error."""
        handles = self.system.shards + self.system.replays + [h for _, h in self.system.workers] \
            + [self.system.evaluator]
        missing = self.runtime.wait_ready(handles, READY_TIMEOUT_S)
        if missing:
            raise WorkerError(f"{missing} of {len(handles)} components could not be placed within "
                              f"{READY_TIMEOUT_S} s: the Ray cluster lacks the CPUs/GPUs they ask for "
                              f"(worker_cpus={self.config.worker_cpus}, learner_gpus={self.config.learner_gpus})")

    def _get(self, futures) -> list:
        return self._guard(lambda: self.calls.get(futures))

    @staticmethod
    def _guard(fetch):
        """Run `fetch`; a failure inside a component (local or remote) becomes one WorkerError line."""
        try:
            return fetch()
        except Exception as error:
            if isinstance(error, (KeyboardInterrupt, WorkerError)):
                raise
            first = str(error).strip().splitlines()
            reason = next((line for line in reversed(first) if line.strip()), type(error).__name__)
            raise WorkerError(f"a component failed: {reason.strip()[:300]}") from error

    # ---- scheduling --------------------------------------------------------------------------
    def _budget(self, role: str, index: int, state: dict) -> int:
        """Work for one idle worker: agent steps for actors and bundles, updates for learners.

        Outside bundles both sides keep DQN's ratio of one update per `update_every` agent steps:
        learners may not run ahead of the frames collected, and once they have started, actors may
        not run more than a few work items ahead of the learners.
        """
        config = self.config
        agent_steps = self.frames // self.info.frames_per_step
        if role in ("bundle", "actor"):
            planned = self.frames + state["inflight_frames"]
            if planned >= config.total_frames or self.stopping:
                return 0
            if role == "actor" and self._actors_ahead(agent_steps, state):
                return 0
            return CHUNK_STEPS
        if self.stopping or time.time() < state["backoff"][index]:
            return 0
        allowed = agent_steps // config.update_every // config.learners - state["learner_updates"][index]
        return int(max(allowed, 0))

    def _actors_ahead(self, agent_steps: int, state: dict) -> bool:
        """Have the actors collected more than the learners' share plus slack? Then they wait.

        The slack holds a round of work items plus twice the replay warm-up, so that even the replay
        shard with the fewest streams fills up before anyone waits (no deadlock).
        """
        config = self.config
        warmup_steps = effective_learning_starts(config) // self.info.frames_per_step
        slack = CHUNK_STEPS * config.actors
        requested = sum(state["learner_updates"].values())      # done and in flight
        return agent_steps - requested * config.update_every > slack + 2 * warmup_steps

    def _absorb(self, role: str, report: dict) -> None:
        self.frames += report.get("frames", 0)
        self.updates += report.get("updates", 0)
        self.returns.extend(report.get("episode_returns", []))
        self.dropped_outliers += report.get("dropped_outliers", 0)
        for key in ("frames", "updates", "loss_sum", "loss_count", "dropped_outliers"):
            self.window[key] += report.get(key, 0)
        if "replay_size" in report:
            self.window["replay_size"] = report["replay_size"]

    def loop(self) -> None:
        config, workers = self.config, self.system.workers
        state = {"inflight_frames": 0, "learner_updates": collections.Counter(),
                 "backoff": collections.defaultdict(float)}
        pending: dict = {}           # future -> (kind, worker index, budget)
        busy: set = set()
        next_log = time.time() + config.log_every_seconds
        next_eval = config.eval_every_frames or config.total_frames
        next_ckpt = config.checkpoint_every_frames or np.inf
        learner_index = {id(h): i for i, h in enumerate(self.system.of_role("learner"))}
        while True:
            for w, (role, handle) in enumerate(workers):
                if w in busy:
                    continue
                index = learner_index.get(id(handle), w)
                budget = self._budget(role, index, state)
                if budget <= 0:
                    continue
                busy.add(w)
                if role == "learner":
                    state["learner_updates"][index] += budget
                else:
                    state["inflight_frames"] += budget * self.info.frames_per_step
                pending[self.calls.call(handle, "run", budget)] = ("work", w, budget)
            if "eval" not in {kind for kind, _, _ in pending.values()} and self.frames >= next_eval \
                    and not self.stopping:
                next_eval = self.frames + (config.eval_every_frames or config.total_frames)
                theta, _ = self.params.pull()
                pending[self.calls.call(self.system.evaluator, "evaluate", theta)] = ("eval", self.frames, 0)
            if not pending:
                if self.stopping or self.frames >= config.total_frames:
                    break
                time.sleep(LEARNER_BACKOFF_S)   # everyone waits on a learner's warm-up back-off
                continue
            done, _ = self.calls.wait(list(pending), timeout=0.2)
            for future, report in zip(done, self._get(done)):
                kind, w, budget = pending.pop(future)
                if kind == "eval":
                    self._evaluated(report, frames=w)
                    continue
                busy.discard(w)
                role = workers[w][0]
                if role == "learner":
                    index = learner_index[id(workers[w][1])]
                    state["learner_updates"][index] -= budget - report["updates"]
                    if report["updates"] == 0:
                        state["backoff"][index] = time.time() + LEARNER_BACKOFF_S
                else:
                    state["inflight_frames"] -= budget * self.info.frames_per_step
                self._absorb(role, report)
            if self.frames >= config.total_frames and not self.stopping:
                self.stopping = "budget"
            if time.time() >= next_log:
                next_log = time.time() + config.log_every_seconds
                self._log()
            if self.frames >= next_ckpt and not self.stopping:
                next_ckpt = self.frames + config.checkpoint_every_frames
                self.checkpoint()

    def _evaluated(self, result: dict, frames: int) -> None:
        self.last_eval = result
        self.best_eval = max(self.best_eval, result["eval_return_mean"])
        values = {k: v for k, v in result.items()}
        values["updates"] = self.updates
        self.metrics.write("eval", frames, values)
        self.display.message(f"eval at {frames:,} frames: mean {result['eval_return_mean']:.1f} "
                             f"+/- {result['eval_return_std']:.1f} over {result['eval_episodes']} episodes")
        target = self.config.stop_at_return
        if target and result["eval_return_mean"] >= target and self.solved_at is None:
            self.solved_at = (frames, self.metrics.elapsed())
            self.stopping = self.stopping or "solved"

    # ---- reporting ---------------------------------------------------------------------------
    def server_stats(self) -> dict:
        shards = self._guard(self.params.stats)
        applied = sum(s["applied"] for s in shards)
        return {"ps_version": max(s["version"] for s in shards),
                "ps_target_version": max(s["target_version"] for s in shards),
                "ps_applied": applied, "ps_discarded": sum(s["discarded"] for s in shards),
                "ps_mean_staleness": sum(s["mean_staleness"] * s["applied"] for s in shards) / max(applied, 1)}

    def _log(self) -> None:
        elapsed = max(self.metrics.elapsed() - self.window.get("since", 0.0), 1e-6)
        window, self.window = self.window, collections.Counter(since=self.metrics.elapsed())
        stats = {"fps": window["frames"] / elapsed, "ups": window["updates"] / elapsed,
                 "updates": self.updates, "episodes_recent": len(self.returns),
                 "return_mean": float(np.mean(self.returns)) if self.returns else None,
                 "loss": window["loss_sum"] / window["loss_count"] if window["loss_count"] else None,
                 "dropped_outliers": window["dropped_outliers"], **self.server_stats()}
        if self.system.replays:
            stats["replay_size"] = sum(r["size"] for r in self._get(
                [self.calls.call(r, "stats") for r in self.system.replays]))
        elif "replay_size" in window:
            stats["replay_size"] = window["replay_size"]
        record = self.metrics.write("train", self.frames, {k: v for k, v in stats.items() if v is not None})
        self.display.update(self.frames, {**stats, "wall_time": record["wall_time"],
                                          "eval_return_mean": (self.last_eval or {}).get("eval_return_mean")})

    def checkpoint(self) -> Path:
        self.params.drain()
        states = self._guard(self.params.states)
        payload = {"config": self.config.to_dict(), "env_info": asdict(self.info), "updates": self.updates,
                   "wall_time": self.metrics.elapsed(),
                   "theta": torch.cat([s["theta"] for s in states]),
                   "target": torch.cat([s["target"] for s in states]), "shards": states}
        return save_checkpoint(self.run_dir, payload, self.frames)

    # ---- the whole run -----------------------------------------------------------------------
    def run(self) -> dict:
        """Set up (unless done already), train, evaluate, checkpoint; always release the runtime."""
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
        interrupted = False
        try:
            if not hasattr(self, "system"):
                self.setup()
            self.display.message(f"gorila: {self.config.env} on {self.runtime.name}, "
                                 f"{describe_topology(self.config)}; run dir {self.run_dir}")
            try:
                self.loop()
            except KeyboardInterrupt:
                interrupted = True
                self.display.message("interrupted: writing a final checkpoint")
            if self.window["frames"] or self.window["updates"]:
                self._log()
            if not interrupted and self.solved_at is None and (self.last_eval is None or self.stopping == "budget"):
                self.stopping = None
                theta, _ = self.params.pull()
                self._evaluated(self._get([self.calls.call(self.system.evaluator, "evaluate", theta)])[0],
                                self.frames)
            path = self.checkpoint()
            return self.summary(path, interrupted)
        finally:
            signal.signal(signal.SIGTERM, previous)
            if hasattr(self, "display"):
                self.display.close()
            if hasattr(self, "metrics"):
                self.metrics.close()
            if hasattr(self, "runtime"):
                self.runtime.shutdown()

    def summary(self, checkpoint: Path, interrupted: bool) -> dict:
        result = {"env_frames": self.frames, "updates": self.updates, "dropped_outliers": self.dropped_outliers,
                  "wall_time": self.metrics.elapsed(),
                  "best_eval_return_mean": float(self.best_eval), "checkpoint": str(checkpoint),
                  "interrupted": interrupted, **server_summary(self)}
        if self.last_eval:
            result["final_eval_return_mean"] = self.last_eval["eval_return_mean"]
        if self.solved_at:
            result["solved_at_frames"], result["solved_at_seconds"] = self.solved_at
        self.metrics.write("summary", self.frames, {k: v for k, v in result.items() if k != "checkpoint"})
        self.metrics.hparams(self.config.to_dict(), {"best_eval_return_mean": result["best_eval_return_mean"]})
        return result


def server_summary(trainer: Trainer) -> dict:
    try:
        return trainer.server_stats()
    except WorkerError:
        return {}


def describe_topology(config: Config) -> str:
    if config.bundled:
        shape = f"{config.actors} bundle{'s' if config.actors > 1 else ''} (actor + local replay + learner)"
    else:
        replay = f"global replay ({config.replay_shards} shards)" if config.replay == "global" else "local replays"
        shape = f"{config.actors} actors -> {replay} -> {config.learners} learners"
    return f"{shape}, {config.param_shards} parameter shard{'s' if config.param_shards > 1 else ''}"


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt
