"""The suite's results table, beside the published DQN and Gorila scores (Nair et al., 2015).

One row per finished game: our final-evaluation score under each protocol, its human-normalised
score, and the published DQN and Gorila scores under null-op starts and human starts. Below it, the
paper's aggregate figures for our agent and, over the same games, for the published DQN and Gorila:
games above DQN, games at >= 75% of human, median and mean human-normalised score.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from gorila.evaluation.protocols import LABELS
from gorila.evaluation.scores import HUMAN_LEVEL, PUBLISHED_PROTOCOLS, paper_game, published, suite_summary
from gorila.experiments.suite.plan import FINAL_PARAMETERS, SuitePlan

TABLE_MD, TABLE_CSV, TABLE_JSON = "results.md", "results.csv", "results.json"


def column_key(protocol: str) -> str:
    """How a row's columns name a protocol: `ours_human_starts` for human-starts."""
    return protocol.replace("-", "_")


def collect(plan: SuitePlan) -> dict[str, dict]:
    """{game: {protocol: final evaluation result}} for every game with a result file."""
    results = {}
    for game in plan.games:
        found = {p: json.loads(plan.result_file(game, p).read_text())
                 for p in PUBLISHED_PROTOCOLS if plan.result_file(game, p).is_file()}
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
        row[f"ours_{key}"] = result["eval_return_mean"] if result else None
        row[f"episodes_{key}"] = result["eval_episodes"] if result else None
        norm = result.get("normalised") if result else None
        row[f"human_normalised_{key}"] = norm["human_normalised"] if norm else None
        for source in ("dqn", "gorila", "random", "human"):
            row[f"{source}_{key}"] = ref.get(source)
    return row


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


def write_tables(plan: SuitePlan) -> list[Path]:
    """results.md, results.csv and results.json in the suite directory, from the result files."""
    results = collect(plan)
    rows = [table_row(game, r) for game, r in results.items()]
    scores = {g: {p: r["eval_return_mean"] for p, r in res.items()} for g, res in results.items()}
    summary = summaries(scores)
    paths = [plan.out / TABLE_MD, plan.out / TABLE_CSV, plan.out / TABLE_JSON]
    paths[0].write_text(markdown(plan, rows, summary))
    write_csv(paths[1], rows)
    paths[2].write_text(json.dumps({"rows": rows, "summary": summary, "parameters": FINAL_PARAMETERS},
                                   indent=2) + "\n")
    return paths


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]) if rows else ["game"])
        writer.writeheader()
        writer.writerows(rows)


def _num(value, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def markdown(plan: SuitePlan, rows: list[dict], summary: dict) -> str:
    head = ("| game | frames | ours, null-op | human-norm. % | DQN null-op | Gorila null-op "
            "| ours, human starts | human-norm. % | DQN human starts | Gorila human starts |")
    lines = [f"# Suite results: {len(rows)} of {len(plan.games)} games finished", "",
             f"Scores are a final evaluation of the {FINAL_PARAMETERS}, on episodes no training "
             "evaluation played; not the best evaluation seen during training. DQN: Mnih et al. (2015); "
             "Gorila: Nair et al. (2015). Human-normalised: 100 (score - random) / (human - random).", "",
             head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in rows:
        cells = [r["game"], f"{r['frames']:,}"]
        for key in map(column_key, PUBLISHED_PROTOCOLS):
            cells += [_num(r[f"ours_{key}"]), _num(r[f"human_normalised_{key}"]), _num(r[f"dqn_{key}"]),
                      _num(r[f"gorila_{key}"])]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *summary_lines(summary)]
    return "\n".join(lines) + "\n"


def summary_lines(summary: dict) -> list[str]:
    """The paper's counts, ours beside the published DQN's and Gorila's over the same games."""
    if not summary:
        return ["No game of the paper's 49 is finished yet: no normalised summary."]
    lines = [f"| protocol | agent | games | games above DQN | games at >= {HUMAN_LEVEL:g}% human | median human-norm. % "
             "| mean human-norm. % |", "|---|---|---|---|---|---|---|"]
    for protocol, agents in summary.items():
        for agent, name in (("ours", "ours"), ("dqn", "DQN (published)"), ("gorila", "Gorila (published)")):
            s = agents[agent]
            above = "—" if agent == "dqn" else str(s["games_above_dqn"])
            lines.append(f"| {LABELS[protocol]} | {name} | {s['games']} | {above} | {s['games_at_human_level']} "
                         f"| {_num(s['median_human_normalised'])} | {_num(s['mean_human_normalised'])} |")
    return lines
