"""`gorila report RUN... --out DIR`: plots, a page and a text summary of runs and suites.

Each run's score is an evaluation of its saved parameters on episodes no training evaluation
played: the one `gorila suite` stored beside the run (the last training checkpoint), else one of the
checkpoint `gorila evaluate RUN` loads (`best.pt` whenever the run has one, which training
rewrites at every evaluation that beats the best so far; else `latest.pt`): the newest that `gorila
evaluate` kept in RUN/evaluations of exactly those parameters, else one made here. Its source, its
protocol and its file are named beside the score.
Each run is timed to a target score (`--target`, else its stop_at_return, else its game's known one):
the frames and wall seconds from launch at which its training mean first reached it, and at which an
evaluation during training did (DQN's protocol on an Atari game: `gorila.experiments.report.targets`).
The best evaluation seen during training is shown too, labelled as biased upwards: it is the maximum
over many noisy evaluations of changing parameters.
A MinAtar run is also set beside MinAtar's published DQN by the measure it was published in, the mean
return of the last 100 training episodes at the same frames; a MinAtar suite by its own table
(`gorila.experiments.suite.minatar_table`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from gorila.experiments.report.aggregates import SuiteScores, aggregate_lines, suite_scores
from gorila.experiments.report.targets import run_target, target_lines
from gorila.experiments.suite.minatar_table import against_published, minatar_rows, minatar_summary, summary_line
from gorila.experiments.suite.plan import SUITE_FILE, SuitePlan, is_minatar, result_file
from gorila.experiments.suite.table import collect, footnotes, summaries, summary_lines, table_row
from gorila.records.checkpoints import CheckpointError, find_checkpoint
from gorila.records.evaluation_files import load_evaluation
from gorila.records.metrics import read_metrics

BEST_SEEN_NOTE = "best evaluation seen during training: biased upwards (the maximum of many noisy evaluations)"


class ReportError(ValueError):
    """A path that is neither a run nor a suite directory; the message is one line."""


@dataclass
class RunSummary:
    """What the report shows of one run directory."""

    path: Path
    label: str
    config: dict
    records: list[dict]
    final: dict | None = None  # evaluation of the saved parameters
    final_source: str = ""
    video: tuple[str, str] | None = None
    extra: dict = field(default_factory=dict)
    target: float | None = None  # the score timed from launch (--target; else the run's or its game's)

    @property
    def best_seen(self) -> dict | None:
        evals = [r for r in self.records if "eval_return_mean" in r]
        return max(evals, key=lambda r: r["eval_return_mean"]) if evals else None

    @property
    def last_train(self) -> dict | None:
        train = [r for r in self.records if r.get("kind") == "train"]
        return train[-1] if train else None


def classify(path: str | Path) -> str:
    """'run' or 'suite'; anything else is a ReportError."""
    path = Path(path)
    if (path / "metrics.jsonl").is_file():
        return "run"
    if (path / SUITE_FILE).is_file():
        return "suite"
    raise ReportError(f"{path} is neither a run directory (no metrics.jsonl) nor a suite directory (no {SUITE_FILE})")


def load_run(path: Path, label: str | None = None) -> RunSummary:
    config_file = path / "config.yaml"
    config = yaml.safe_load(config_file.read_text()) if config_file.is_file() else {}
    return RunSummary(path, label or path.name, config or {}, read_metrics(path))


def attach_final_evaluation(run: RunSummary, out: Path, episodes: int | None) -> None:
    """The suite's stored final evaluation, or the newest saved by `gorila evaluate` of the run's model at
    the run's evaluation epsilon (of `episodes` episodes where given), or a new one of it (kept in `out`)."""
    stored = result_file(run.path, "noop")
    if stored.is_file():
        run.final, run.final_source = load_evaluation(stored), f"stored by gorila suite ({stored.name})"
        return
    checkpoint = evaluated_checkpoint(run)
    if checkpoint is None:
        run.final_source = "no saved parameters (no checkpoint): no final evaluation"
        return
    from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint, saved_evaluation

    if saved := saved_evaluation(run.path, checkpoint, episodes, run.config.get("eval_epsilon")):
        path, run.final = saved
        run.final_source = (
            f"checkpoints/{checkpoint.name} evaluated by gorila evaluate, protocol "
            f"{run.final['protocol']} ({path.relative_to(run.path)})"
        )
        return
    result = evaluate_checkpoint(checkpoint, episodes=episodes)
    result.update(protocol="noop", parameters=f"checkpoints/{checkpoint.name}")
    (out / f"{run.label}-final_eval.json").write_text(json.dumps(result, indent=2) + "\n")
    run.final, run.final_source = (
        result,
        (f"checkpoints/{checkpoint.name} evaluated by this report ({run.label}-final_eval.json)"),
    )


def evaluated_checkpoint(run: RunSummary) -> Path | None:
    """The checkpoint `gorila evaluate RUN` loads: best.pt whenever there is one, else latest.pt."""
    try:
        return find_checkpoint(run.path)
    except CheckpointError:
        return None


def attach_video(run: RunSummary, out: Path) -> None:
    from gorila.experiments.report.video import VideoError, record_episode

    checkpoint = evaluated_checkpoint(run)
    if checkpoint is None:
        run.video = ("", "no video: no saved parameters")
        return
    try:
        path, note = record_episode(checkpoint, out / f"{run.label}-episode")
        run.video = (path.name, note)
    except VideoError as error:
        run.video = ("", f"no video: {error}")


def summary_lines_of(run: RunSummary) -> list[str]:
    """The text summary of a run (what `gorila report` prints)."""
    c = run.config
    lines = [
        f"run {run.path}: {c.get('env', '?')}, runtime {c.get('runtime', '?')}, {c.get('actors', '?')} actors, "
        f"{c.get('learners', '?')} learners, {c.get('param_shards', '?')} parameter shards"
    ]
    if run.last_train:
        t = run.last_train
        lines.append(f"trained {t['env_frames']:,} frames, {t.get('updates', 0):,} updates in {t['wall_time']:.1f} s")
    lines += [
        f"resumed at {r['env_frames']:,} frames ({r['wall_time']:.0f} s from launch); {r['replay']}"
        for r in run.records
        if r.get("kind") == "resume"
    ]
    target = run_target(c, run.target)
    if target is None:
        lines.append(f"time to a target: no target known for {c.get('env', '?')} (gorila report --target T)")
    else:
        lines += target_lines(run.records, c, target)
    if run.final:
        f = run.final
        norm = f.get("normalised")
        human = f", {norm['human_normalised']:.1f}% of human" if norm else ""
        if norm and norm["dqn_normalised"] is not None:
            human += f", {norm['dqn_normalised']:.1f}% of DQN"
        lines.append(
            f"evaluation of the saved parameters ({f['env_frames']:,} frames): "
            f"{f['return_mean']:.1f} +/- {f['return_std']:.1f} over {f['episodes']} "
            f"episodes{human}; {run.final_source}"
        )
    else:
        lines.append(run.final_source or "no final evaluation")
    if is_minatar(str(c.get("env", ""))):
        lines.append(against_published(c["env"], run.records))
    if run.best_seen:
        b = run.best_seen
        lines.append(f"{BEST_SEEN_NOTE}: {b['eval_return_mean']:.1f} at {b['env_frames']:,} frames")
    if run.video:
        lines.append(f"video: {run.video[0] or '-'} ({run.video[1]})")
    return lines


@dataclass
class SuiteSummary:
    """A suite directory: its plan, table rows, the paper's counts, its games' runs and the normalised
    score of each run with their aggregates over the seeds."""

    path: Path
    plan: SuitePlan
    rows: list[dict]
    summary: dict
    games: list[RunSummary]
    scores: SuiteScores

    @property
    def minatar(self) -> bool:
        """A MinAtar suite: rows and summary are `minatar_table`'s, beside MinAtar's published DQN."""
        return self.plan.minatar


def load_suite(path: Path) -> SuiteSummary:
    plan = SuitePlan.load(path)
    if plan.minatar:
        rows = minatar_rows(plan)
        return SuiteSummary(path, plan, rows, minatar_summary(rows), suite_runs(plan), suite_scores(plan))
    results = collect(plan)
    rows = [table_row(game, r) for game, r in results.items()]
    scores = {g: {p: r["return_mean"] for p, r in res.items()} for g, res in results.items()}
    return SuiteSummary(path, plan, rows, summaries(scores), suite_runs(plan), suite_scores(plan))


def suite_runs(plan: SuitePlan) -> list[RunSummary]:
    """The runs of a suite's games that have metrics (of every seed, labelled `<game> seed <k>`, for a
    suite of several), with the final evaluation the suite stored."""
    if plan.seeds:
        runs = [(run, seed) for seed, seed_plan in zip(plan.seeds, plan.seed_plans()) for run in suite_runs(seed_plan)]
        for run, seed in runs:
            run.label, run.extra["seed"] = f"{run.label} seed {seed}", seed
        return [run for run, _ in runs]
    games = [load_run(plan.game_dir(g), g) for g in plan.games if (plan.game_dir(g) / "metrics.jsonl").is_file()]
    for game in games:
        stored = result_file(game.path, "noop")
        if stored.is_file():
            game.final, game.final_source = load_evaluation(stored), "stored by gorila suite"
    return games


def suite_text(suite: SuiteSummary) -> list[str]:
    """The text summary of a suite: its table, then its aggregates over the seeds."""
    table = minatar_suite_text(suite) if suite.minatar else atari_suite_text(suite)
    return table + aggregate_lines(suite.scores)


def atari_suite_text(suite: SuiteSummary) -> list[str]:
    """An Atari suite's games: final evaluation beside the published DQN and Gorila, and the paper's counts."""
    lines = [
        f"suite {suite.path}: {len(suite.rows)} of {len(suite.plan.games)} games finished, "
        f"{suite.plan.frames_per_game:,} frames each; scores are final evaluations of the saved parameters"
    ]
    for row in suite.rows:
        score, norm = row["ours_noop"], row["human_normalised_noop"]
        line = f"  {row['game']}: " + ("-" if score is None else f"{score:.1f}")
        if norm is not None:
            line += f" ({norm:.1f}% of human; DQN {row['dqn_noop']:g}, Gorila {row['gorila_noop']:g})"
        lines.append(line)
    return lines + footnotes(suite.rows) + summary_lines(suite.summary)


def minatar_suite_text(suite: SuiteSummary) -> list[str]:
    """A MinAtar suite's games: training return at the end of each run beside MinAtar's published DQN."""
    seeds = f" with seeds {', '.join(map(str, suite.plan.seeds))}" if suite.plan.seeds else ""
    lines = [
        f"suite {suite.path}: {len(suite.rows)} of {len(suite.plan.games)} MinAtar games finished{seeds}, "
        f"{suite.plan.frames_per_game:,} frames each; training returns (mean of the last 100 training "
        "episodes) beside MinAtar's published DQN at the same frames"
    ]
    for row in suite.rows:
        ours = "-" if row["ours_training_return"] is None else f"{row['ours_training_return']:.2f}"
        if row.get("seed_returns"):
            ours += " (seeds: " + ", ".join("-" if r is None else f"{r:.2f}" for r in row["seed_returns"]) + ")"
        published = (
            f"published DQN {row['published_dqn']:.2f}"
            if row["published_dqn"] is not None
            else f"no published value ({row['published_note'] or 'no train record'})"
        )
        ratio = "" if row["ratio"] is None else f", ratio {row['ratio']:.2f}"
        frames = "" if row["frames"] is None else f" at {row['frames']:,} frames"
        lines.append(f"  {row['env']}: {ours}{frames} over {row['episodes']} episodes; {published}{ratio}")
    return lines + [summary_line(suite.summary)]
