"""The published Atari results (`published.py`): one function per block, from the runs compiled by
`benchmarks/atari_baseline.py` and `benchmarks/outlier_filter.py` under `benchmarks/baselines/atari/`
and the H200's measurements under `benchmarks/results/`."""

from __future__ import annotations

import statistics
from pathlib import Path

from published_files import load, millions, minutes

from gorila.agent.dqn import epsilon_ladder
from gorila.records.markdown import table_lines

ATARI = "benchmarks/baselines/atari"
PONG = f"{ATARI}/pong-atari-fast-replay500k-seed0"
PONG_LADDER = f"{ATARI}/pong-atari-fast-ladder-seed0"
PONG_FIRST = f"{ATARI}/pong-atari-fast-seed0"
PONG_H200 = f"{ATARI}/pong-atari-fast-h200-seed0"
H200_BUNDLES = "benchmarks/results/h200-pong-2026-12-04.json"
OUTLIER_FILTER = f"{ATARI}/outlier-filter-1m.md"
# the table's rows: the preset's first ladder on seeds 0 and 1, then Ape-X's (the preset's now) on 0, 1, 2
PONG_SEEDS = [PONG, f"{ATARI}/pong-atari-fast-seed1"]
PONG_SEEDS += [f"{ATARI}/pong-atari-fast-apex-ladder-seed{seed}" for seed in (0, 1, 2)]


def ladder(config: dict) -> list[float]:
    """The training epsilons of a run's copies at the end of the anneal (one rate where no ladder)."""
    if not config.get("epsilon_ladder"):
        return [config["epsilon_end"]]
    copies = config["envs_per_actor"]
    return [epsilon_ladder(i, copies, config["ladder_base"], config["ladder_alpha"]) for i in range(copies)]


def dqn_protocol(evaluation: dict) -> str:
    """An evaluation as DQN's protocol names it: starts, epsilon, episodes."""
    settings = evaluation["settings"]
    return (
        f"{settings['name'].replace('noop', 'null-op starts')} (up to {settings['noop_max']} no-ops), epsilon "
        f"{evaluation['epsilon']:g}, {evaluation['episodes']} episodes of at most {settings['max_frames']:,} frames"
    )


def pong(root: Path) -> str:
    """README: Pong with atari-fast, its training mean's time to +18 and its best.pt by DQN's protocol."""
    run = load(root, f"{PONG}.json")
    config, evaluation, reached = run["config"], run["evaluation"], run["first_reached"]["+18"]
    rates = ladder(config)
    published = evaluation["normalised"]["published"]["dqn"]
    largest = max(process["max_mb"] for process in run["memory"].values())
    return "\n".join(
        [
            f"- **Atari Pong** (ale-py's Pong, sticky actions {config['sticky_actions']:g}, a life loss terminal in "
            f"training), the `atari-fast` preset before Ape-X's ladder (the seeds' table below), **one seed "
            f"({config['seed']})**, one bundle on the local runtime, from launch:",
            f"  - its **training mean** (the last 100 training episodes, played at the preset's ladder of then, "
            f"{min(rates):.4f}-{max(rates):.2f} over its {len(rates)} copies, {statistics.mean(rates):.3f} on "
            f"average) first reached +18 after **{minutes(reached['wall_s'])} minutes and "
            f"{millions(reached['frames'])} frames**;",
            f"  - **by DQN's protocol** (`gorila evaluate`: {dqn_protocol(evaluation)}, on seeds no evaluation "
            f"during training played), its best.pt, the {millions(evaluation['env_frames'])}-frame parameters: "
            f"**{evaluation['return_mean']:.2f} +/- {evaluation['return_std']:.2f}** (lowest "
            f"{min(evaluation['returns']):.0f}), {evaluation['dqn_normalised']:.0f}% of DQN's published {published:g} "
            "(after 50M frames). best.pt comes after a resume: the run was stopped and continued with "
            "`gorila train --resume`, whose replay started empty (the preset saves none).",
            "",
            f"  {millions(run['frames'])} frames in {minutes(run['wall_s'])} minutes in all, one process of at most "
            f"{largest / 1000:.1f} GB. The commands, the earlier runs and Dopamine's DQN beside it: "
            "[Atari](docs/guides/atari.md#pong-on-a-cpu), [results](docs/results.md#atari-pong-on-a-cpu).",
            "",
            f"  ![Pong with atari-fast beside Dopamine's DQN and Rainbow, by frames and by wall time]({PONG}.png)",
        ]
    )


def marks_table(run: dict) -> str:
    """The frames and minutes from launch at which a run's training mean first reached each mark."""
    marks = {mark: at for mark, at in run["first_reached"].items() if at}
    head = ["mean of the last 100 training episodes first at", *(mark.replace("+0", "0") for mark in marks)]
    rows = [
        ["frames", *(millions(at["frames"]) for at in marks.values())],
        ["wall time from launch", *(f"{minutes(at['wall_s'])} min" for at in marks.values())],
    ]
    return "\n".join(table_lines(head, rows))


def pong_replay500k(root: Path) -> str:
    """docs/results.md: the headline of the atari-fast Pong run and its marks."""
    run = load(root, f"{PONG}.json")
    evaluation, reached = run["evaluation"], run["first_reached"]["+18"]
    rates = ladder(run["config"])
    return "\n".join(
        [
            f"A **training mean** (the last 100 training episodes, at the ladder's epsilons {min(rates):.4f}-"
            f"{max(rates):.2f}) of +18 **after {minutes(reached['wall_s'])} minutes, {millions(reached['frames'])} "
            f"frames**, and **`gorila evaluate` of its best.pt ({millions(evaluation['env_frames'])} frames, after "
            f"the resume below), {dqn_protocol(evaluation)}: {evaluation['return_mean']:.2f} +/- "
            f"{evaluation['return_std']:.2f}** (lowest {min(evaluation['returns']):.0f}; the returns per episode are "
            f"in `{PONG}.json`).",
            "",
            marks_table(run),
        ]
    )


def pong_ladder_marks(root: Path) -> str:
    """docs/results.md: the marks of the ladder's run with a replay of 100,000."""
    return marks_table(load(root, f"{PONG_LADDER}.json"))


def pong_first_marks(root: Path) -> str:
    """docs/results.md: the marks of the first atari-fast run."""
    return marks_table(load(root, f"{PONG_FIRST}.json"))


def at(reached: dict | None) -> str:
    """A mark's first time from launch and frames, or that it was not reached."""
    return f"{minutes(reached['wall_s'])} min, {millions(reached['frames'])}" if reached else "not reached"


def pong_seeds(root: Path) -> str:
    """README and docs/results.md: the atari-fast preset on Pong, one row per seed compiled: the training
    mean's time to +18, the first evaluation during training at DQN's protocol >= 18, and best.pt by
    `gorila evaluate`."""
    head = [
        "seed",
        "epsilon ladder over the copies",
        "training mean +18 first at",
        "evaluation during training >= 18 first at",
        "best evaluation during training",
        "`gorila evaluate` of best.pt",
        "frames, time in all",
    ]
    rows = []
    for name in PONG_SEEDS:
        if not (root / f"{name}.json").is_file():
            continue
        run = load(root, f"{name}.json")
        evaluation, during = run["evaluation"], run.get("evaluations")
        best = max(during, key=lambda e: e["mean"]) if during else None
        rates = ladder(run["config"])
        rows.append(
            [
                str(run["config"]["seed"]),
                f"{max(rates):.2f}-{min(rates):.4f}, mean {statistics.mean(rates):.3f}",
                at(run["first_reached"]["+18"]),
                at(run["protocol_first_reached"]["+18"]) if "protocol_first_reached" in run else "not recorded",
                f"{best['mean']:.1f} at {millions(best['frames'])}" if best else "not recorded",
                f"{evaluation['return_mean']:.2f} +/- {evaluation['return_std']:.2f} over {evaluation['episodes']} "
                f"(lowest {min(evaluation['returns']):.0f}; {millions(evaluation['env_frames'])} frames)",
                f"{millions(run['frames'])}, {minutes(run['wall_s'])} min{resumed(run)}{stopped(run)}",
            ]
        )
    lead = (
        "The `atari-fast` preset on Pong from launch, one row per seed (the preset was tuned on seed 0) and "
        "epsilon ladder (the preset's first, 0.05 ** (1 + i / 31); or Ape-X's, `--ladder-base 0.4 --ladder-alpha 7`, "
        "the preset's since seed 1 learned with it and not without), one "
        "bundle on the local runtime; evaluations during training by DQN's protocol (null-op starts, epsilon "
        "0.05, 30 episodes every 500k frames); best.pt, the parameters of the best of them, scored again by "
        "`gorila evaluate` on seeds no training evaluation played. Times are the run's recorded training time "
        "from launch, over its resumes."
    )
    return "\n".join([lead, "", *table_lines(head, rows)])


def resumed(run: dict) -> str:
    """Where a compiled run records its resumes (`resumes`, compiled from gorila's resume records): none, or
    each one's frames and whether its replay was restored; nothing where the file predates them."""
    if "resumes" not in run:
        return ""
    if not run["resumes"]:
        return ", not resumed"
    each = ", ".join(
        f"{millions(r['frames'])} ({'replay restored' if restored(r) else 'replay empty'})" for r in run["resumes"]
    )
    return f", resumed at {each}"


def stopped(run: dict) -> str:
    """', stopped before 18' for a run whose evaluations never reached 18 and whose frames fell short of its
    budget (compiled as it stood when it was stopped); nothing where the file has no evaluations' marks."""
    reached = run.get("protocol_first_reached", {"+18": "not recorded"})["+18"]
    short = run["frames"] < run["config"]["total_frames"]
    return ", stopped before 18" if reached is None and short else ""


def restored(resume: dict) -> bool:
    """Whether saved replay files refilled the replay at a compiled resume; a file compiled before the
    resume record said so is read by its line."""
    return resume["replay_restored"] if "replay_restored" in resume else "restored" in resume["replay"]


def h200(root: Path) -> str:
    """README: Pong on one H200, one bundle against 8."""
    run = load(root, f"{PONG_H200}.json")
    bundles = load(root, H200_BUNDLES)["pong_8_bundles"]["curve"]
    last = [record for record in bundles if record["return_mean"] is not None][-1]
    fps_8 = statistics.median(record["fps"] for record in bundles[1:])  # the first record holds the start
    reached = {mark: at for mark, at in run["first_reached"].items() if at}
    marks = ", ".join(
        f"{mark.replace('+0', '0')} after {at['wall_s'] / 60:.1f} minutes ({millions(at['frames'])} frames)"
        for mark, at in reached.items()
    )
    return (
        f"- **On one H200 with 16 cores**: the same recipe with its learner on the GPU and "
        f"{run['config']['envs_per_actor']} copies per actor, one bundle, reached a training mean of the last 100 "
        f"episodes of {marks}, when the device's time ended ({millions(run['frames'])} frames, "
        f"{run['wall_s'] / 60:.1f} minutes; `{PONG_H200}.json`). 8 bundles on Ray sharing the GPU ran "
        f"{fps_8:,.0f} frames/s (median) against one bundle's {run['frames'] / run['wall_s']:,.0f}, but did not learn "
        f"in the same time: {last['return_mean']:.1f} at {millions(last['env_frames'])} frames (`{H200_BUNDLES}`)."
    )


def outlier_filter(root: Path) -> str:
    """docs/results.md: outlier_filter.py's table, as it compiled it."""
    lines = (root / OUTLIER_FILTER).read_text().splitlines()
    return "\n".join(line for line in lines if line.startswith("|"))
