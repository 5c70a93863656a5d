"""The aggregates of a suite of several seeds in `gorila report`: IQM, median and mean of the runs'
normalised scores, each with its 95% stratified bootstrap interval, and the performance profile
(`gorila.evaluation.aggregates`, after Agarwal et al. 2021).

Each run (a game of one seed) is normalised as the suite's own table normalises it: an Atari game's
final evaluation under null-op starts by the published human and random scores (`table.table_row`, in
%), a MinAtar game's training return by the published DQN's at the same frames (`minatar_table`'s
ratio). A game enters the score matrix [seeds, games] once every seed finished it with a normalised
score; the others are named as left out. A suite of one seed has one run per game: no interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from gorila.evaluation.aggregates import AGGREGATES, RESAMPLES, aggregates
from gorila.experiments.suite.minatar_table import minatar_row
from gorila.experiments.suite.plan import SuitePlan
from gorila.experiments.suite.table import collect, column_key, table_row
from gorila.records.markdown import cell_number, table_lines

ATARI_PROTOCOL = "noop"
REFERENCE = 'Agarwal et al. 2021, "Deep RL at the Edge of the Statistical Precipice"'


@dataclass(frozen=True)
class Measure:
    """What a suite's normalised score is, the score its reference has on that scale, and its digits."""

    name: str
    reference: float
    reference_name: str
    digits: int


ATARI = Measure("human-normalised score (%) of the final evaluation, null-op starts", 100.0, "human", 1)
MINATAR = Measure("training return / the published DQN's at the same frames", 1.0, "published DQN", 2)


@dataclass
class SuiteScores:
    """The normalised score of every run of a suite's games: `matrix` [seeds, games] (None for a suite
    of one seed, `--seeds k` or none), the games left out and why, and the aggregates of the matrix."""

    measure: Measure
    seeds: list[int]
    games: list[str] = field(default_factory=list)
    matrix: np.ndarray | None = None
    left_out: dict[str, str] = field(default_factory=dict)
    aggregates: dict = field(default_factory=dict)


def run_scores(plan: SuitePlan, games: list[str]) -> dict[str, float | None]:
    """{game: normalised score} of one seed's suite `plan`, None where the game has none."""
    if plan.minatar:
        return {game: minatar_row(plan, game)["ratio"] for game in games}
    results = collect(plan)
    return {game: table_row(game, results[game])[f"human_normalised_{column_key(ATARI_PROTOCOL)}"] for game in games}


def suite_scores(plan: SuitePlan) -> SuiteScores:
    """The score matrix of a suite over its seeds, and its aggregates where it has a game."""
    scores = SuiteScores(MINATAR if plan.minatar else ATARI, list(plan.seeds))
    if len(plan.seeds) < 2:  # one run per game: its intervals would be the estimates themselves
        return scores
    finished = [game for game in plan.games if plan.finished(game)]
    by_seed = [run_scores(seed_plan, finished) for seed_plan in plan.seed_plans()]
    for game in plan.games:  # in the suite's order
        if game not in finished:
            scores.left_out[game] = "not finished by every seed"
        elif missing := [str(seed) for seed, runs in zip(plan.seeds, by_seed) if runs[game] is None]:
            scores.left_out[game] = f"no normalised score from seed {', '.join(missing)}"
    scores.games = [game for game in finished if game not in scores.left_out]
    if scores.games:
        scores.matrix = np.array([[runs[game] for game in scores.games] for runs in by_seed], dtype=float)
        scores.aggregates = aggregates(scores.matrix)
    return scores


def aggregate_note(scores: SuiteScores) -> str:
    """What the aggregates are taken over, or why there are none."""
    if len(scores.seeds) < 2:
        return (
            "IQM, median and mean with 95% confidence intervals (Agarwal et al. 2021) need several runs of each "
            "game, a suite of several seeds: this suite has one run per game."
        )
    if scores.matrix is None:
        return "No game has a normalised score from every seed: no IQM, median or mean over the runs."
    runs, games = scores.matrix.shape
    left_out = "; ".join(f"{game} ({why})" for game, why in scores.left_out.items())
    return (
        f"Over {runs} seeds x {games} games, of the {scores.measure.name} ({scores.measure.reference:g} = "
        f"{scores.measure.reference_name}): IQM (the mean of the middle 50% of all runs), median and mean of "
        f"the games' means over seeds, each with its 95% stratified bootstrap confidence interval ({RESAMPLES:,} "
        f"resamples of each game's seeds; {REFERENCE})." + (f" Left out: {left_out}." if left_out else "")
    )


def aggregate_table(scores: SuiteScores) -> list[str]:
    """The aggregates as a Markdown table (header, rule, a row each); none without a score matrix."""
    if not scores.aggregates:
        return []
    digits = scores.measure.digits
    rows = [
        (
            name,
            cell_number(a["estimate"], digits),
            f"{cell_number(a['low'], digits)} to {cell_number(a['high'], digits)}",
        )
        for name, a in ((name, scores.aggregates[name]) for name in AGGREGATES)
    ]
    return table_lines(["aggregate", "estimate", "95% CI"], rows)


def aggregate_lines(scores: SuiteScores) -> list[str]:
    """The note and the table, as the report prints them."""
    return [aggregate_note(scores), *aggregate_table(scores)]
