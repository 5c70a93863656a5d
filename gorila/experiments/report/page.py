"""Builds a report directory: the PNG plots of `gorila.experiments.report.plots` and one index.html tying them to the
run summaries (config, frames, evaluation of the saved parameters)."""

from __future__ import annotations

import html
from pathlib import Path

import yaml

from gorila.evaluation.scores import PUBLISHED_PROTOCOLS
from gorila.experiments.report import minatar_plots, plots
from gorila.experiments.report.aggregates import aggregate_note, aggregate_table
from gorila.experiments.report.summary import (
    BEST_SEEN_NOTE,
    RunSummary,
    SuiteSummary,
    attach_final_evaluation,
    attach_video,
    classify,
    load_run,
    load_suite,
    suite_text,
    summary_lines_of,
)
from gorila.experiments.suite import minatar_table
from gorila.experiments.suite.table import COUNTS_NOTE, column_key, footnotes, marks, summary_lines

CONFIG_KEYS = (
    "env",
    "runtime",
    "actors",
    "learners",
    "param_shards",
    "bundled",
    "replay",
    "total_frames",
    "optimizer",
    "learning_rate",
    "target_update_every",
    "seed",
)


def make_report(
    paths: list[str], out: Path, video: bool = False, episodes: int | None = None, target: float | None = None
) -> tuple[str, Path]:
    """Plots and index.html for runs and suite directories; (text summary, index.html). Each run is
    timed to `target` (default: its own stop_at_return, else its game's known target)."""
    kinds = [(Path(p), classify(p)) for p in paths]  # a bad path fails before anything is written
    out.mkdir(parents=True, exist_ok=True)
    runs, suites = (
        _labelled_runs([p for p, k in kinds if k == "run"]),
        [load_suite(p) for p, k in kinds if k == "suite"],
    )
    for run in runs:
        run.target = target
        attach_final_evaluation(run, out, episodes)
        if video:
            attach_video(run, out)
    sections = [_runs_section(runs, out)] if runs else []
    sections += [_suite_section(suite, out, index, video) for index, suite in enumerate(suites)]
    index = out / "index.html"
    index.write_text(_page(sections))
    text = [line for run in runs for line in summary_lines_of(run)]
    text += [line for suite in suites for line in suite_text(suite)]
    return "\n".join(text + [f"report: {index}"]), index


def _labelled_runs(paths: list[Path]) -> list[RunSummary]:
    """Runs labelled by directory name, made unique where two share one."""
    runs, seen = [], {}
    for path in paths:
        name = path.resolve().name
        seen[name] = seen.get(name, 0) + 1
        runs.append(load_run(path, name if seen[name] == 1 else f"{name}-{seen[name]}"))
    return runs


def _runs_section(runs: list[RunSummary], out: Path) -> str:
    pairs = [(run.label, run.records) for run in runs]
    finals = {run.label: run.final for run in runs if run.final}
    figures = [
        plots.plot_returns(pairs, "env_frames", out / "return_vs_frames.png", finals=finals),
        plots.plot_returns(pairs, "wall_time", out / "return_vs_wall_time.png", finals=finals),
        minatar_plots.plot_minatar_curves(_minatar_panels(runs), out / "minatar_curves.png"),
    ]
    parts = ["<h2>Runs</h2>", *(_img(f) for f in figures if f)]
    for run in runs:
        parts.append(_run_html(run))
    return "\n".join(parts)


def _run_html(run: RunSummary) -> str:
    config = {k: run.config[k] for k in CONFIG_KEYS if k in run.config}
    rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in config.items())
    lines = "".join(f"<li>{_e(line)}</li>" for line in summary_lines_of(run)[1:])
    video = ""
    if run.video and run.video[0]:
        name = _e(run.video[0])
        video = (
            f'<p><video controls src="{name}"></video></p>'
            if name.endswith(".mp4")
            else f'<p><img src="{name}" alt="evaluation episode"></p>'
        )
    full = _e(yaml.safe_dump(run.config, sort_keys=False))
    return (
        f"<h3>{_e(run.label)}</h3><p><code>{_e(run.path)}</code></p><table>{rows}</table><ul>{lines}</ul>"
        f"{video}<details><summary>full config</summary><pre>{full}</pre></details>"
    )


def _minatar_panels(runs: list[RunSummary]) -> list:
    """A panel per MinAtar run, titled by its label and the env id it ran (a suite's game: the id alone);
    the runs of one game in a suite of several seeds share a panel."""
    if runs and all("seed" in run.extra for run in runs):
        by_env: dict[str, list] = {}
        for run in runs:
            by_env.setdefault(str(run.config.get("env", "")), []).append(run.records)
        return [
            minatar_plots.minatar_seeds_panel(f"{env} ({len(seeds)} seeds)", env, seeds)
            for env, seeds in by_env.items()
        ]
    titled = []
    for run in runs:
        env = str(run.config.get("env", ""))
        titled.append((env if run.label in (env, env.replace("/", "_")) else f"{run.label} ({env})", env, run.records))
    return minatar_plots.minatar_panels(titled)


def _suite_section(suite: SuiteSummary, out: Path, index: int, video: bool) -> str:
    stem = f"suite{index + 1}" if index else "suite"
    if video:
        for game in suite.games:
            attach_video(game, out)
    if suite.minatar:
        return _minatar_suite_section(suite, out, stem)
    figures = [
        plots.plot_normalised_bars(suite.rows, out / f"{stem}_human_normalised_{column_key(p)}.png", p)
        for p in PUBLISHED_PROTOCOLS
    ] + [_game_grid(suite, out, stem)]
    parts = [
        f"<h2>Suite {_e(suite.path)}</h2>",
        f"<p>{_e(suite_text(suite)[0])}; the published DQN (Mnih et al., 2015) and Gorila (Nair et al., 2015) "
        f"scores beside them. {_e(COUNTS_NOTE)}</p>",
        _rows_html(suite.rows),
        *(f"<p>{_e(line)}</p>" for line in footnotes(suite.rows)),
        _markdown_table(summary_lines(suite.summary)),
        *_aggregates_html(suite, out, stem),
        *(_img(f) for f in figures if f),
        *_files_and_videos(suite),
    ]
    return "\n".join(parts)


def _aggregates_html(suite: SuiteSummary, out: Path, stem: str) -> list[str]:
    """The aggregates over the suite's seeds: what they are over, their table and the performance profile."""
    profile = plots.plot_performance_profile(suite.scores, out / f"{stem}_performance_profile.png")
    table = aggregate_table(suite.scores)
    return [
        f"<p>{_e(aggregate_note(suite.scores))}</p>",
        *([_markdown_table(table)] if table else []),
        *([_img(profile)] if profile else []),
    ]


def _game_grid(suite: SuiteSummary, out: Path, stem: str) -> Path | None:
    """The small return-vs-frames panel of each game (training and evaluations)."""
    if not suite.games:
        return None
    return plots.plot_game_grid([(g.label, g.records) for g in suite.games], out / f"{stem}_curves.png")


def _minatar_suite_section(suite: SuiteSummary, out: Path, stem: str) -> str:
    """A MinAtar suite: its table beside MinAtar's published DQN, and a panel per game of our training
    return over the published curve."""
    figures = [
        minatar_plots.plot_minatar_curves(_minatar_panels(suite.games), out / f"{stem}_minatar_curves.png"),
        _game_grid(suite, out, stem),
    ]
    parts = [
        f"<h2>MinAtar suite {_e(suite.path)}</h2>",
        f"<p>{_e(suite_text(suite)[0])}.</p>",
        _markdown_table(minatar_table.markdown_rows(suite.rows)),
        *(f"<p>{_e(line)}</p>" for line in minatar_table.notes(suite.rows)),
        f"<p>{_e(minatar_table.summary_line(suite.summary))}</p>",
        *_aggregates_html(suite, out, stem),
        *(_img(f) for f in figures if f),
        *_files_and_videos(suite),
    ]
    return "\n".join(parts)


def _files_and_videos(suite: SuiteSummary) -> list[str]:
    """Where the suite's table files are, and each game's episode."""
    table, parts = suite.path / "results.md", []
    if table.is_file():
        parts.append(
            f"<p>Table as Markdown and CSV: <code>{_e(table)}</code>, <code>{_e(table.with_suffix('.csv'))}</code></p>"
        )
    return parts + [
        f'<p>{_e(g.label)}: <img src="{_e(g.video[0])}" alt="episode"></p>'
        for g in suite.games
        if g.video and g.video[0]
    ]


def _rows_html(rows: list[dict]) -> str:
    head = [
        "game",
        "frames",
        "ours, null-op",
        "human-norm. %",
        "DQN null-op",
        "Gorila null-op",
        "ours, human starts",
        "human-norm. %",
        "DQN human starts",
        "Gorila human starts",
    ]
    keys = [
        "game",
        "frames",
        "ours_noop",
        "human_normalised_noop",
        "dqn_noop",
        "gorila_noop",
        "ours_human_starts",
        "human_normalised_human_starts",
        "dqn_human_starts",
        "gorila_human_starts",
    ]
    body = "".join("<tr>" + "".join(f"<td>{_cell(r[k])}{_e(_mark(r, k))}</td>" for k in keys) + "</tr>" for r in rows)
    return "<table><tr>" + "".join(f"<th>{_e(h)}</th>" for h in head) + f"</tr>{body}</table>"


def _mark(row: dict, key: str) -> str:
    """The table's footnote mark beside column `key` of `row` (see `table.marks`)."""
    for protocol in map(column_key, PUBLISHED_PROTOCOLS):
        for column, mark in marks(row, protocol).items():
            if key == f"{column}_{protocol}":
                return mark
    return ""


def _markdown_table(lines: list[str]) -> str:
    """The Markdown summary table (header, rule, rows) as HTML."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in lines if line.startswith("|")]
    if len(rows) < 2:
        return "".join(f"<p>{_e(line)}</p>" for line in lines)
    head = "".join(f"<th>{_e(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows[2:])
    return f"<table><tr>{head}</tr>{body}</table>"


def _cell(value) -> str:
    if value is None:
        return "—"
    return _e(f"{value:,.1f}" if isinstance(value, float) else f"{value:,}" if isinstance(value, int) else value)


def _img(path: Path) -> str:
    return f'<p><img src="{_e(path.name)}" alt="{_e(path.stem)}"></p>'


def _e(value) -> str:
    return html.escape(str(value))


def _page(sections: list[str]) -> str:
    style = (
        "body{font-family:sans-serif;max-width:1100px;margin:2em auto}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}img{max-width:100%}"
    )
    note = (
        "Scores are an evaluation of the saved parameters on episodes no training evaluation played: the "
        "checkpoint gorila evaluate loads (best.pt, the parameters of the best evaluation during training, "
        f"wherever there is one, else the last one; a suite's games: the last one), named with each score. The {BEST_SEEN_NOTE}."
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>gorila report</title><style>{style}</style>"
        f"</head><body><h1>gorila report</h1><p>{_e(note)}</p>{''.join(sections)}</body></html>\n"
    )
