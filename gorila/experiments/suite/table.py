"""The suite's results table, beside the published DQN and Gorila scores (Nair et al., 2015).

One row per finished game: our final-evaluation score under each protocol, its human-normalised
score, and the published DQN and Gorila scores under null-op starts and human starts. Below it, the
paper's aggregate figures for our agent and, over the same games, for the published DQN and Gorila:
games above DQN, at double and 5 times DQN's score, at >= 75% of human, median and mean
human-normalised score (counted as `gorila.evaluation.scores` says). A mark beside a number sends the
reader to a footnote: REFERENCE_MARK where the published human score is at or below random play's,
STARTS_MARK beside a human-starts score whose start points were not recorded from human play (the
paper's start points were; `start_points_<protocol>` in the CSV says who played them).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from gorila.evaluation.protocols import LABELS, get_protocol
from gorila.evaluation.scores import (
    DQN_MULTIPLES,
    HUMAN_LEVEL,
    PUBLISHED_PROTOCOLS,
    paper_game,
    published,
    suite_summary,
)
from gorila.evaluation.start_points import HUMAN_PLAY, start_points_source
from gorila.experiments.suite.plan import FINAL_PARAMETERS, SuitePlan
from gorila.records.evaluation_files import load_evaluation
from gorila.records.markdown import cell_number, table_lines

TABLE_MD, TABLE_CSV, TABLE_JSON = "results.md", "results.csv", "results.json"
REFERENCE_MARK = "†"  # the published human score is at or below random play's
STARTS_MARK = "‡"  # our human-starts score began at start points not recorded from human play


COUNTS_NOTE = (
    "The paper's counts: above DQN, score > DQN's; at k x DQN, score - random >= k (DQN - random) "
    f"and score > random; at >= {HUMAN_LEVEL:g}% human, score - random >= {HUMAN_LEVEL / 100:g} (human - random) "
    "and score > random (a reference at or below random play is reached by any score above it)."
)


def column_key(protocol: str) -> str:
    """How a row's columns name a protocol: `ours_human_starts` for human-starts."""
    return protocol.replace("-", "_")


def collect(plan: SuitePlan) -> dict[str, dict]:
    """{game: {protocol: final evaluation result}} for every game with a result file."""
    results = {}
    for game in plan.games:
        found = {
            p: load_evaluation(plan.result_file(game, p))
            for p in PUBLISHED_PROTOCOLS
            if plan.result_file(game, p).is_file()
        }
        if found:
            results[game] = found
    return results


def table_row(game: str, results: dict) -> dict:
    """One CSV row: our scores, their human normalisation and the published scores."""
    name = paper_game(game)
    row = {"game": game, "frames": max(r["env_frames"] for r in results.values())}
    for protocol in PUBLISHED_PROTOCOLS:
        key, result = column_key(protocol), results.get(protocol)
        ref = published(name, protocol) if name else {}
        row[f"ours_{key}"] = result["return_mean"] if result else None
        row[f"episodes_{key}"] = result["episodes"] if result else None
        norm = result.get("normalised") if result else None
        row[f"human_normalised_{key}"] = norm["human_normalised"] if norm else None
        if get_protocol(protocol).start_points:
            row[f"start_points_{key}"] = result_source(result) if result else None
        for source in ("dqn", "gorila", "random", "human"):
            row[f"{source}_{key}"] = ref.get(source)
    return row


def result_source(result: dict) -> str:
    """Who played to the start points of a human-starts result; a result written before evaluations said
    so is read from the start-point file's header it kept."""
    if "start_points_source" in result:
        return result["start_points_source"]
    return start_points_source(result.get("settings", {}).get("start_points"))


def summaries(scores: dict[str, dict[str, float]]) -> dict[str, dict]:
    """Per protocol, the paper's counts for our scores {game: {protocol: score}} and, over the same
    games, for the published DQN and Gorila scores; protocols without a paper game are left out."""
    out = {}
    for protocol in PUBLISHED_PROTOCOLS:
        ours = {paper_game(g): s[protocol] for g, s in scores.items() if protocol in s and paper_game(g)}
        if not ours:
            continue
        out[protocol] = {"ours": suite_summary(ours, protocol)}
        for source in ("dqn", "gorila"):
            out[protocol][source] = suite_summary({g: published(g, protocol)[source] for g in ours}, protocol)
    return out


def human_at_or_below_random(row: dict, key: str) -> bool:
    """Whether the published human score of `row` under protocol `key` is at or below random play's,
    where a human-normalised score has its sign inverted."""
    return row.get(f"human_{key}") is not None and row[f"human_{key}"] <= row[f"random_{key}"]


def marks(row: dict, key: str) -> dict[str, str]:
    """The footnote marks beside our score ('ours') and its human normalisation ('human_normalised')
    of `row` under protocol `key`; empty where there is nothing to say."""
    scored = row.get(f"ours_{key}") is not None
    not_human = row.get(f"start_points_{key}") not in (None, HUMAN_PLAY)
    return {
        "ours": STARTS_MARK if scored and not_human else "",
        "human_normalised": REFERENCE_MARK if scored and human_at_or_below_random(row, key) else "",
    }


def footnotes(rows: list[dict], protocols: tuple[str, ...] = PUBLISHED_PROTOCOLS) -> list[str]:
    """One line per mark the table uses in the columns of `protocols`, naming its games."""
    inverted = [
        f"{r['game']} ({LABELS[p]})" for r in rows for p in protocols if marks(r, column_key(p))["human_normalised"]
    ]
    not_human = [
        f"{r['game']} ({r[f'start_points_{column_key(p)}']})"
        for r in rows
        for p in protocols
        if marks(r, column_key(p))["ours"]
    ]
    lines = []
    if inverted:
        lines.append(
            f"{REFERENCE_MARK} The published human score is at or below random play's: {', '.join(inverted)}. "
            "The human-normalised score keeps the plain formula (as the published medians and means do) and "
            "its sign is inverted; the counts take such a game as at human level when it beats random play."
        )
    if not_human:
        lines.append(
            f"{STARTS_MARK} Start points not recorded from human play: {', '.join(not_human)}. The paper's "
            "human-start scores began at human experts' states, so these scores and the counts over them "
            "are not comparable with the paper's."
        )
    return lines


def write_tables(plan: SuitePlan) -> list[Path]:
    """results.md, results.csv and results.json in the suite directory, from the result files."""
    results = collect(plan)
    rows = [table_row(game, r) for game, r in results.items()]
    scores = {g: {p: r["return_mean"] for p, r in res.items()} for g, res in results.items()}
    summary = summaries(scores)
    paths = [plan.out / TABLE_MD, plan.out / TABLE_CSV, plan.out / TABLE_JSON]
    paths[0].write_text(markdown(plan, rows, summary))
    write_csv(paths[1], rows)
    paths[2].write_text(json.dumps({"rows": rows, "summary": summary, "parameters": FINAL_PARAMETERS}, indent=2) + "\n")
    return paths


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]) if rows else ["game"])
        writer.writeheader()
        writer.writerows(rows)


HEAD = [
    "game",
    "frames",
    *("ours, null-op", "human-norm. %", "DQN null-op", "Gorila null-op"),
    *("ours, human starts", "human-norm. %", "DQN human starts", "Gorila human starts"),
]


def markdown(plan: SuitePlan, rows: list[dict], summary: dict) -> str:
    lines = [
        f"# Suite results: {len(rows)} of {len(plan.games)} games finished",
        "",
        f"Scores are a final evaluation of the {FINAL_PARAMETERS}, on episodes no training "
        "evaluation played; not the best evaluation seen during training. DQN: Mnih et al. (2015); "
        "Gorila: Nair et al. (2015). Human-normalised: 100 (score - random) / (human - random).",
        "",
        COUNTS_NOTE,
        "",
    ]
    table = []
    for r in rows:
        cells = [r["game"], f"{r['frames']:,}"]
        for key in map(column_key, PUBLISHED_PROTOCOLS):
            mark = marks(r, key)
            cells += [
                cell_number(r[f"ours_{key}"]) + mark["ours"],
                cell_number(r[f"human_normalised_{key}"]) + mark["human_normalised"],
                cell_number(r[f"dqn_{key}"]),
                cell_number(r[f"gorila_{key}"]),
            ]
        table.append(cells)
    lines += table_lines(HEAD, table)
    notes = footnotes(rows)
    lines += ["", *notes, *([""] if notes else []), *summary_lines(summary)]
    return "\n".join(lines) + "\n"


def summary_lines(summary: dict) -> list[str]:
    """The paper's counts, ours beside the published DQN's and Gorila's over the same games."""
    if not summary:
        return ["No game of the paper's 49 is finished yet: no normalised summary."]
    header = ["protocol", "agent", "games", "games above DQN", *(f"games at {x}x DQN" for x in DQN_MULTIPLES)]
    header += [f"games at >= {HUMAN_LEVEL:g}% human", "median human-norm. %", "mean human-norm. %"]
    table = []
    for protocol, agents in summary.items():
        for agent, name in (("ours", "ours"), ("dqn", "DQN (published)"), ("gorila", "Gorila (published)")):
            s = agents[agent]
            against_dqn = [s["games_above_dqn"], *(s[f"games_at_{x}x_dqn"] for x in DQN_MULTIPLES)]
            table.append(
                [LABELS[protocol], name, str(s["games"]), *("—" if agent == "dqn" else str(n) for n in against_dqn)]
                + [str(s["games_at_human_level"]), cell_number(s["median_human_normalised"])]
                + [cell_number(s["mean_human_normalised"])]
            )
    return table_lines(header, table)
