"""The published MinAtar and PQN results (`published.py`): one function per block, given the repository's
root, returning the block's Markdown from the compiled suites under `benchmarks/baselines/minatar/` and
`benchmarks/pqn_reference.py`'s measurements under `benchmarks/results/`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from published_files import indented, load

from gorila.evaluation.aggregates import aggregates
from gorila.experiments.suite.minatar_table import markdown_rows, summary_line
from gorila.records.markdown import table_lines

MINATAR = "benchmarks/baselines/minatar"
DQN_MINATAR = f"{MINATAR}/dqn-500k-b256-seeds01/results.json"
PQN_MINATAR = f"{MINATAR}/pqn-1m-eps10/results.json"
PQN_REFERENCE = "benchmarks/results/pqn-reference-breakout-500000.json"
PQN_REFERENCE_NO_TESTS = "benchmarks/results/pqn-reference-breakout-500000-no-tests.json"
PQN_BUNDLES = f"{MINATAR}/pqn-breakout-1-vs-2-bundles.json"
# Freeway with the pqn preset as the five-game suite ran it, seeds 2-4 (seeds 0 and 1 are the suite's)
FREEWAY_RUNS = ((f"{MINATAR}/pqn-freeway-extra-runs.json", "freeway-seed2-preset"),) + tuple(
    (f"{MINATAR}/pqn-freeway-variants.json", f"freeway-seed{seed}-preset") for seed in (3, 4)
)


# MinAtar, the minatar preset (DQN)


def minatar_iqm(results: dict) -> dict:
    """The IQM of the ratios to the published DQN over seeds x games, with its 95% stratified bootstrap
    interval (`gorila.evaluation.aggregates`): each seed's return over the published DQN at the frames
    of the game's row."""
    rows = results["rows"]
    seeds = range(len(rows[0]["seed_returns"]))
    matrix = np.array([[row["seed_returns"][s] / row["published_dqn"] for row in rows] for s in seeds])
    return aggregates(matrix)["IQM"]


def minatar(root: Path) -> str:
    """README: the five MinAtar games with the minatar preset against MinAtar's published DQN."""
    results = load(root, DQN_MINATAR)
    ratios = [row["ratio"] for row in results["rows"]]
    summary, iqm = results["summary"], minatar_iqm(results)
    seeds = results["rows"][0]["seeds"]
    return (
        f"- **MinAtar** (v0: the full action set, sticky actions 0.1), all {summary['games']} games, the minatar "
        f"preset, seeds {', '.join(map(str, seeds))}, {results['rows'][0]['frames'] / 1e3:,.0f}k frames each: the "
        "training mean (the last 100 episodes) at or above MinAtar's published DQN on "
        f"{summary['at_or_above_published']} of {summary['games']} games (ratios {min(ratios):.2f}-"
        f"{max(ratios):.2f}), {summary['median_frames_per_s']:,.0f} frames/s (median over the {summary['runs']} "
        f"runs); interquartile mean of the ratios over seeds x games {iqm['estimate']:.2f} [{iqm['low']:.2f}, "
        f"{iqm['high']:.2f}] (95% stratified bootstrap; `{Path(DQN_MINATAR).parent}/`)."
    )


def minatar_dqn(root: Path) -> str:
    """docs/results.md: the five-game table of the minatar preset, its summary and its IQM."""
    results = load(root, DQN_MINATAR)
    iqm = minatar_iqm(results)
    return "\n".join(
        [
            *markdown_rows(results["rows"]),
            "",
            f"{summary_line(results['summary'])} Interquartile mean of the ratios over seeds x games "
            f"{iqm['estimate']:.2f} [{iqm['low']:.2f}, {iqm['high']:.2f}] (95% stratified bootstrap, "
            "`gorila.evaluation.aggregates`).",
        ]
    )


# PQN


def pqn_pair(root: Path, path: str) -> dict:
    """A pqn_reference.py result: the reference's and our return and seconds, and the day."""
    data = load(root, path)
    return {**data, "day": data["date"].split()[0]}


def pqn(root: Path) -> str:
    """README: PQN beside its reference implementation, and on the five MinAtar games."""
    tested, untested = pqn_pair(root, PQN_REFERENCE), pqn_pair(root, PQN_REFERENCE_NO_TESTS)
    suite, dqn = load(root, PQN_MINATAR), load(root, DQN_MINATAR)
    bundles = load(root, PQN_BUNDLES)
    lines = [
        f"- **PQN** (`--preset pqn`, MinAtar Breakout, {tested['steps'] / 1e3:,.0f}k frames, seed {tested['seed']}), "
        "beside its reference implementation (purejaxql, JAX, on this CPU, `benchmarks/pqn_reference.py`): a "
        f"training return of {tested['ours']['return']:.2f} in {tested['ours']['seconds']:.0f} s from launch, "
        f"against the reference's {tested['reference']['return']:.2f} in {tested['reference']['seconds']:.0f} s "
        f"({tested['time_ratio']:.2f} of its time, {tested['day']}). Not like for like: ours plays MinAtar's "
        "Breakout-v0 (6 actions, sticky actions 0.1), the reference gymnax's Breakout-MinAtar (3 actions, no "
        "sticky actions, episodes cut at 1,000 steps); each time includes its own tests during training, the "
        "reference's greedy tests of its 128 copies every 5% of the run against our 20-episode evaluations "
        f"every 100k frames. With neither testing, on another day ({untested['day']}) and an earlier commit: "
        f"{untested['ours']['seconds']:.0f} s against {untested['reference']['seconds']:.0f} s "
        f"({untested['time_ratio']:.2f}; returns {untested['ours']['return']:.2f} and "
        f"{untested['reference']['return']:.2f}). On the five MinAtar games, two seeds, 1M frames each "
        f"({suite['summary']['median_frames_per_s']:,.0f} frames/s, "
        f"{suite['summary']['median_frames_per_s'] / dqn['summary']['median_frames_per_s']:.0f} times the "
        "minatar preset's DQN), beside MinAtar's published DQN at the same frames:",
        "",
        *indented(pqn_table(suite)),
        "",
        *indented(freeway_lines(root, suite)),
    ]
    one, two = bundles["breakout-1-bundle"]["reached"]["12.0"], bundles["breakout-2-bundles"]["reached"]["12.0"]
    lines[-1] += f" Two bundles on this 2-core CPU reach Breakout's 12 in {two[1]:.0f} s, one bundle in {one[1]:.0f} s."
    return "\n".join(lines)


def pqn_table(suite: dict) -> list[str]:
    rows = [
        (
            row["game"].split("/")[1].removesuffix("-v0").replace("SpaceInvaders", "Space Invaders"),
            f"{row['ours_training_return']:.2f} ({', '.join(f'{r:.2f}' for r in row['seed_returns'])})",
            f"{row['published_dqn']:.2f}",
            f"{row['ratio']:.2f}",
        )
        for row in suite["rows"]
    ]
    return table_lines(["game", "PQN: mean (seed 0, seed 1)", "MinAtar's DQN", "ratio"], rows, right={1, 2, 3})


def freeway_lines(root: Path, suite: dict) -> list[str]:
    """Freeway over the suite's two seeds and the three more runs of the same settings."""
    (row,) = [row for row in suite["rows"] if row["game"].startswith("MinAtar/Freeway")]
    finals = dict(zip(row["seeds"], row["seed_returns"]))
    for path, name in FREEWAY_RUNS:
        finals[int(name.split("seed")[1][0])] = load(root, path)[name]["final_return"]
    crossed = {seed: value for seed, value in finals.items() if value > 1}
    stuck = ", ".join(f"seed {seed} ({finals[seed]:.2f})" for seed in finals if seed not in crossed)
    return [
        f"On Freeway {len(crossed)} seeds of {len(finals)} cross the road ({min(crossed.values()):.2f}-"
        f"{max(crossed.values()):.2f} at 1M frames) and {stuck} never does: without replay, crossings seen "
        "once can be forgotten. Use PQN where environment steps are cheap and rewards come often; DQN where "
        "steps are dear or rewards rare ([PQN](docs/guides/pqn.md#when-to-use-it-or-dqn))."
    ]


def pqn_reference(root: Path) -> str:
    """docs/results.md: the two pqn_reference.py measurements kept."""
    rows = []
    for path, ours_how, theirs_how in (
        (PQN_REFERENCE, "evaluates 20 episodes every 100k frames", "tests its greedy policy every 5% of the run"),
        (PQN_REFERENCE_NO_TESTS, "`--eval-every-frames 0`", "`TEST_DURING_TRAINING=false`"),
    ):
        pair = pqn_pair(root, path)
        rows.append((f"purejaxql PQN ({theirs_how}), {pair['day']}", f"{pair['reference']['return']:.2f}"))
        rows[-1] += (f"{pair['reference']['seconds']:.0f}",)
        rows.append((f"gorila `--preset pqn` ({ours_how}), {pair['day']}", f"{pair['ours']['return']:.2f}"))
        rows[-1] += (f"{pair['ours']['seconds']:.0f}",)
    head = ["", f"training return at {pair['steps'] / 1e3:,.0f}k", "seconds from launch"]
    return "\n".join(table_lines(head, rows, right={1, 2}))


# Rainbow (the rainbow-minatar preset)

RAINBOW = "benchmarks/baselines/rainbow"
# a compiled suite of rainbow-minatar: the seed its rows are (the seed-0 suites were started with seeds
# 0,1 and stopped within seed 0, so their rows name no seed)
RAINBOW_MINATAR = {
    f"{RAINBOW}/minatar-500k-seed0-partial/results.json": 0,
    f"{RAINBOW}/minatar-500k-seed0-other-three/results.json": 0,
    f"{RAINBOW}/minatar-500k-seed1/results.json": 1,
}


def rainbow_returns(root: Path) -> dict[str, dict[int, float]]:
    """game -> seed -> rainbow-minatar's training mean at 500k frames, over the compiled suites there are."""
    returns: dict[str, dict[int, float]] = {}
    for path, seed in RAINBOW_MINATAR.items():
        if not (root / path).is_file():
            continue
        for row in load(root, path)["rows"]:
            if row.get("seeds", [seed]) != [seed]:
                raise ValueError(f"{path}: {row['game']} ran seeds {row['seeds']}, not seed {seed}")
            returns.setdefault(row["game"], {})[seed] = row["ours_training_return"]
    return returns


def rainbow_minatar(root: Path) -> str:
    """README and docs/results.md: rainbow-minatar beside the minatar (DQN) preset, game by game and seed
    by seed, at the DQN table's 500k frames."""
    rainbow, dqn = rainbow_returns(root), load(root, DQN_MINATAR)
    rows, above, judged, below = [], 0, 0, []
    for row in dqn["rows"]:
        runs = rainbow.get(row["game"], {})
        seeds = [runs.get(seed) for seed in row["seeds"]]
        cells = ", ".join("to run" if value is None else f"{value:.2f}" for value in seeds)
        dqn_mean = sum(row["seed_returns"]) / len(row["seed_returns"])
        ratio = ""
        if None not in seeds:
            mean = sum(seeds) / len(seeds)
            judged, above = judged + 1, above + (mean >= dqn_mean)
            ratio = f"{mean / dqn_mean:.2f}"
            cells = f"{mean:.2f} ({cells})"
        game = row["game"].split("/")[1].removesuffix("-v0").replace("SpaceInvaders", "Space Invaders")
        if None not in seeds:
            below += [f"{game} seed {seed}" for seed, value in zip(row["seeds"], seeds) if value < dqn_mean]
        dqn_cell = f"{dqn_mean:.2f} ({', '.join(f'{r:.2f}' for r in row['seed_returns'])})"
        rows.append((game, cells, dqn_cell, ratio, f"{row['published_dqn']:.2f}"))
    seeds = ", ".join(map(str, dqn["rows"][0]["seeds"]))
    runs = judged * len(dqn["rows"][0]["seeds"])
    verdict = (
        f"by the mean of its seeds at or above it on {above} of the {judged} games where both seeds ran; "
        f"seed by seed, {runs - len(below)} of those {runs} runs at or above the DQN preset's mean"
        + (f" (below: {', '.join(below)})" if below else "")
        if judged
        else "no game has both seeds yet"
    )
    head = [
        "game",
        f"Rainbow: mean (seeds {seeds})",
        f"minatar preset (DQN): mean (seeds {seeds})",
        "Rainbow / DQN",
        "MinAtar's published DQN",
    ]
    return "\n".join(
        [
            f"- **Rainbow on MinAtar** (`--preset rainbow-minatar`, 500k frames each, local runtime, seeds {seeds}): "
            "the training mean of the last 100 episodes (noisy layers on, epsilon 0) beside the minatar preset's "
            f"DQN at the same frames; {verdict} (`{RAINBOW}/`).",
            "",
            *indented(table_lines(head, rows, right={1, 2, 3, 4})),
        ]
    )
