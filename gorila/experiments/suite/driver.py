"""Runs a suite's games, one at a time here or several at once as Ray tasks, and says how far it got.

After each game the results table is written again, so an interrupted suite leaves a table of the
games it finished; started again with the same command, it carries on where it stopped.
"""
from __future__ import annotations

import json
import os
import signal
import time
from typing import Callable

from gorila.records.metrics import read_metrics
from gorila.runtime.calls import failure_reason
from gorila.experiments.suite.plan import SUITE_FILE, SuitePlan, play_game
from gorila.experiments.suite.table import write_tables
from gorila.system.trainer import _stop_on_signals

PROGRESS_EVERY_S = 30.0
CANCEL_WAIT_S = 120.0     # an interrupted game's final checkpoint


def run_suite(plan: SuitePlan, parallel: int = 1, address: str = "", cpus_per_game: float = 1.0,
              say: Callable[[str], None] = print) -> dict:
    """Train and evaluate every unfinished game; {'finished': [...], 'failed': {game: reason}}."""
    plan.out.mkdir(parents=True, exist_ok=True)
    (plan.out / SUITE_FILE).write_text(json.dumps(plan.to_dict(), indent=2) + "\n")
    todo = [g for g in plan.games if not plan.finished(g)]
    for game in plan.games:
        if game not in todo:
            say(f"suite: {game} finished earlier ({plan.result_file(game, plan.protocols[0]).name}): skipped")
    say(f"suite: {len(todo)} of {len(plan.games)} games to train, {plan.frames_per_game:,} frames each, "
        f"{parallel} at a time; results in {plan.out}")
    failed: dict[str, str] = {}
    if parallel > 1 and todo:
        _run_on_ray(plan, todo, parallel, address, cpus_per_game, failed, say)
    else:
        _run_here(plan, todo, failed, say)
    tables = write_tables(plan)
    finished = [g for g in plan.games if plan.finished(g)]
    say(f"suite: {len(finished)} of {len(plan.games)} games finished; table {tables[0]} and {tables[1]}")
    return {"finished": finished, "failed": failed, "tables": [str(p) for p in tables]}


def _run_here(plan: SuitePlan, todo: list[str], failed: dict, say) -> None:
    for index, game in enumerate(todo, 1):
        prefix = f"suite [{index}/{len(todo)}]"
        say(f"{prefix} {game}: training to {plan.frames_per_game:,} frames in {plan.game_dir(game)}, "
            "then evaluating its final parameters")
        try:
            _settle(plan, game, lambda: play_game(plan, game), failed, lambda line: say(f"{prefix} {line}"))
        except KeyboardInterrupt:
            write_tables(plan)
            raise


def _settle(plan: SuitePlan, game: str, outcome, failed: dict, say) -> None:
    """Take a game's results from `outcome()` and rewrite the table; a failure is recorded and the
    suite goes on with the other games."""
    try:
        results = outcome()
    except KeyboardInterrupt:
        raise
    except Exception as error:  # one game failing does not stop the others
        failed[game] = failure_reason(error)
        say(f"{game}: failed: {failed[game]}")
        return
    say(f"{game}: {describe_results(results)}")
    write_tables(plan)


def describe_results(results: dict) -> str:
    parts = []
    for protocol, r in results.items():
        norm = r.get("normalised")
        human = f", {norm['human_normalised']:.1f}% of human" if norm else ""
        parts.append(f"{protocol} {r['eval_return_mean']:.1f} over {r['eval_episodes']} episodes{human}")
    return "final evaluation " + "; ".join(parts)


def progress_line(plan: SuitePlan, running: list[str]) -> str:
    """Which games are training and how far each got (from their metrics)."""
    done = sum(plan.finished(g) for g in plan.games)
    parts = [f"{game} {_frames_so_far(plan, game):,}/{plan.frames_per_game:,} frames" for game in running]
    return f"suite: {done}/{len(plan.games)} games finished; running: " + ", ".join(parts)


def _frames_so_far(plan: SuitePlan, game: str) -> int:
    try:
        records = read_metrics(plan.game_dir(game))
    except OSError:
        return 0
    return max((r.get("env_frames", 0) for r in records), default=0)


def _start_ray(address: str, slots: float):
    """Join the cluster at `address`, or start an embedded Ray; the ray module."""
    import gorila.runtime.ray as gorila_ray      # imported first: it keeps an embedded Ray on loopback
    ray = gorila_ray.ray
    if address:
        if address != "auto":
            gorila_ray._probe(address)
        gorila_ray._join(address)
    else:
        ray.init(address="local", num_cpus=max(os.cpu_count() or 1, int(slots + 0.999)), include_dashboard=False,
                 log_to_driver=False, configure_logging=False, logging_level="ERROR")
    return ray


def _run_on_ray(plan: SuitePlan, todo: list[str], parallel: int, address: str, cpus_per_game: float,
                failed: dict, say) -> None:
    """`parallel` games at a time, each a Ray task training on the local runtime."""
    from gorila.experiments.suite.plan import play_game_task
    ray = _start_ray(address, parallel * cpus_per_game)
    previous = _stop_on_signals()           # after Ray started: it replaces the SIGTERM handler
    task = ray.remote(num_cpus=cpus_per_game, max_retries=0)(play_game_task)
    queue, running = list(todo), {}
    try:
        while queue or running:
            while queue and len(running) < parallel:
                game = queue.pop(0)
                running[task.remote(plan, game)] = game
                say(f"suite: {game} started ({plan.game_dir(game)})")
            ready, _ = ray.wait(list(running), num_returns=1, timeout=PROGRESS_EVERY_S)
            for ref in ready:
                _settle(plan, running.pop(ref), lambda: ray.get(ref), failed, lambda line: say(f"suite: {line}"))
            if not ready:
                say(progress_line(plan, list(running.values())))
    except KeyboardInterrupt:
        _cancel(running)
        write_tables(plan)
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        ray.shutdown()


def _cancel(running: dict) -> None:
    """Interrupt the running games (each writes a final checkpoint) and wait a while for them."""
    import ray
    for ref in running:
        ray.cancel(ref)
    deadline = time.time() + CANCEL_WAIT_S
    pending = list(running)
    while pending and time.time() < deadline:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=1.0)
