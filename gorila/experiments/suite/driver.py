"""Runs a suite's games, one at a time here or several at once as Ray tasks, and says how far it got.

After each game the results table is written again, so an interrupted suite leaves a table of the
games it finished; started again with the same command, it carries on where it stopped.
"""

from __future__ import annotations

import json
from typing import Callable

from gorila.experiments.suite.minatar_table import against_published, ran_env, write_minatar_tables
from gorila.experiments.suite.plan import SUITE_FILE, SuitePlan, play_game, play_game_task
from gorila.experiments.suite.table import write_tables as write_atari_tables
from gorila.records.metrics import read_metrics
from gorila.runtime.calls import failure_reason
from gorila.system.signals import restore_signals, stop_on_signals

PROGRESS_EVERY_S = 30.0
CANCEL_WAIT_S = 120.0  # an interrupted game's final checkpoint


def run_suite(
    plan: SuitePlan,
    parallel: int = 1,
    address: str = "",
    cpus_per_game: float = 1.0,
    say: Callable[[str], None] = print,
) -> dict:
    """Train and evaluate every unfinished game (of every seed); {'finished': [...], 'failed': {game:
    reason}, 'tables': [...]}."""
    plan.out.mkdir(parents=True, exist_ok=True)
    (plan.out / SUITE_FILE).write_text(json.dumps(plan.to_dict(), indent=2) + "\n")
    if plan.seeds:
        return _run_seeds(plan, parallel, address, cpus_per_game, say)
    todo = [g for g in plan.games if not plan.finished(g)]
    for game in plan.games:
        if game not in todo:
            say(f"suite: {game} finished earlier ({plan.result_file(game, plan.protocols[0]).name}): skipped")
    say(
        f"suite: {len(todo)} of {len(plan.games)} games to train, {plan.frames_per_game:,} frames each, "
        f"{parallel} at a time; results in {plan.out}"
    )
    failed: dict[str, str] = {}
    if parallel > 1 and todo:
        _run_on_ray(plan, todo, parallel, address, cpus_per_game, failed, say)
    else:
        _run_here(plan, todo, failed, say)
    tables = write_tables(plan)
    finished = [g for g in plan.games if plan.finished(g)]
    say(f"suite: {len(finished)} of {len(plan.games)} games finished; table {tables[0]} and {tables[1]}")
    return {"finished": finished, "failed": failed, "tables": [str(p) for p in tables]}


def _run_seeds(plan: SuitePlan, parallel: int, address: str, cpus_per_game: float, say) -> dict:
    """Each seed's suite in turn, then the table over the seeds."""
    failed: dict[str, str] = {}
    for index, seed_plan in enumerate(plan.seed_plans(), 1):
        say(f"suite: seed {seed_plan.overrides['seed']} ({index} of {len(plan.seeds)}), in {seed_plan.out}")
        try:
            outcome = run_suite(seed_plan, parallel, address, cpus_per_game, say)
        finally:
            write_tables(plan)
        failed.update({f"{game} (seed {seed_plan.overrides['seed']})": why for game, why in outcome["failed"].items()})
    tables = write_tables(plan)
    finished = [g for g in plan.games if plan.finished(g)]
    say(
        f"suite: {len(finished)} of {len(plan.games)} games finished with all {len(plan.seeds)} seeds; table "
        f"over the seeds {tables[0]} and {tables[1]}"
    )
    return {"finished": finished, "failed": failed, "tables": [str(p) for p in tables]}


def write_tables(plan: SuitePlan) -> list:
    """The suite's table: MinAtar games beside MinAtar's published DQN curves, others beside the paper's
    published Atari scores."""
    return (write_minatar_tables if plan.minatar else write_atari_tables)(plan)


def _run_here(plan: SuitePlan, todo: list[str], failed: dict, say) -> None:
    for index, game in enumerate(todo, 1):
        prefix = f"suite [{index}/{len(todo)}]"
        say(
            f"{prefix} {game}: training to {plan.frames_per_game:,} frames in {plan.game_dir(game)}, "
            "then evaluating its final parameters"
        )
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
    line = describe_results(results)
    if plan.minatar:  # and what MinAtar's paper measures, beside its published DQN
        line += "; " + against_published(ran_env(plan.game_dir(game), game), read_metrics(plan.game_dir(game)))
    say(f"{game}: {line}")
    write_tables(plan)


def describe_results(results: dict) -> str:
    parts = []
    for protocol, r in results.items():
        norm = r.get("normalised")
        human = f", {norm['human_normalised']:.1f}% of human" if norm else ""
        warning = f" (warning: {norm['warning']})" if norm and norm.get("warning") else ""
        parts.append(f"{protocol} {r['return_mean']:.1f} over {r['episodes']} episodes{human}{warning}")
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


def _run_on_ray(
    plan: SuitePlan, todo: list[str], parallel: int, address: str, cpus_per_game: float, failed: dict, say
) -> None:
    """`parallel` games at a time, each a Ray task training on the local runtime, on the cluster at
    `address` or on an embedded Ray started as `gorila train` starts one."""
    import gorila.runtime.ray as gorila_ray

    gorila_ray.connect(address, parallel * cpus_per_game)
    previous = stop_on_signals()  # after Ray started: it replaces the SIGTERM handler
    start, calls = gorila_ray.remote_task(play_game_task, cpus_per_game), gorila_ray.RayCalls()
    queue, running = list(todo), {}
    try:
        while queue or running:
            while queue and len(running) < parallel:
                game = queue.pop(0)
                running[start(plan, game)] = game
                say(f"suite: {game} started ({plan.game_dir(game)})")
            ready, _ = calls.wait(list(running), timeout=PROGRESS_EVERY_S)
            for ref in ready:
                _settle(plan, running.pop(ref), lambda: calls.get([ref])[0], failed, lambda line: say(f"suite: {line}"))
            if not ready:
                say(progress_line(plan, list(running.values())))
    except KeyboardInterrupt:
        gorila_ray.cancel(list(running), CANCEL_WAIT_S)  # each game writes a final checkpoint
        write_tables(plan)
        raise
    finally:
        restore_signals(previous)
        gorila_ray.disconnect()
