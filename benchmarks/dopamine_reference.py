"""Dopamine's published Atari curves as the reference files of benchmarks/reference/: one TSV per agent
and game (frames, mean, min and max over its 5 runs, one row per iteration of 1M frames), read from
the baselines JSON of github.com/google/dopamine (baselines/atari/data/GAME.json: one record per run
and iteration, the run's mean training return in that iteration).

Usage: python benchmarks/dopamine_reference.py DOPAMINE_REPO GAME [GAME ...] [--agents DQN Rainbow]
           [--iterations 51] [--out benchmarks/reference]
DOPAMINE_REPO is a checkout of google/dopamine; the files name its commit."""

from __future__ import annotations

import argparse
import json
import subprocess
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
FRAMES_PER_ITERATION = 1_000_000  # 250,000 agent steps of 4 frames
GAMES = {"pong": "Pong", "breakout": "Breakout", "spaceinvaders": "Space Invaders", "seaquest": "Seaquest"}
AGENTS = {
    "DQN": (
        "Dopamine's TensorFlow DQN (RMSProp 2.5e-4, replay 1M, target update every 8,000 agent steps,\n"
        "epsilon 1 -> 0.01 over 250,000 agent steps, where DQN and the atari preset end at 0.1, so its training\n"
        "returns run higher; dopamine/tf/agents/dqn/configs/dqn.gin),"
    ),
    "Rainbow": (
        "Dopamine's Rainbow (n-step, prioritised replay and C51 distributional only: no dueling, double\n"
        "or noisy nets), as set in dopamine/tf/agents/rainbow/configs/rainbow.gin and identically in\n"
        "dopamine/jax/agents/rainbow/configs/rainbow.gin at that commit: Adam 6.25e-5 eps 1.5e-4, 3-step, 51 atoms\n"
        "on [-10, 10], gamma 0.99, prioritised replay 1M, batch 32, learning starts 20,000 agent steps, update\n"
        "every 4, target update every 8,000 agent steps, epsilon 1 -> 0.01 over 250,000 agent steps (eval 0.001),"
    ),
}


def curve(records: list[dict], agent: str, iterations: int) -> list[tuple[int, float, float, float]]:
    """(frames at the iteration's end, mean, min, max over the runs) for `agent`'s first `iterations`."""
    runs = defaultdict(list)
    for record in records:
        if record["Agent"] == agent and record["Iteration"] < iterations:
            runs[record["Iteration"]].append(float(record["Value"]))
    if not runs:
        raise SystemExit(f"no records of agent {agent!r}")
    return [((i + 1) * FRAMES_PER_ITERATION, sum(v) / len(v), min(v), max(v)) for i, v in sorted(runs.items())]


def header(agent: str, game: str, commit: str, iterations: int, held: int) -> str:
    name = GAMES.get(game, game)
    lines = (
        f"{agent} on {name}, Dopamine's baseline runs: mean training return per iteration over its 5 runs (min and max\n"
        "beside it). One iteration = 250,000 agent steps = 1,000,000 frames; the frames column is the end of the\n"
        f"iteration. Source: github.com/google/dopamine, baselines/atari/data/{game}.json (commit {commit}), agent\n"
        f'"{agent}": {AGENTS[agent]}\n'
        f"with sticky actions 0.25 (Machado et al. 2018). Iterations 0-{iterations - 1} of its 200 "
        f"(the JSON holds 0-{held - 1}).\n"
        "columns: frames, mean, min, max"
    )
    return "".join(f"# {line}\n" for line in lines.splitlines())


def table(rows) -> str:
    return "".join(f"{frames}\t{mean:.2f}\t{low:.2f}\t{high:.2f}\n" for frames, mean, low, high in rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("games", nargs="+")
    parser.add_argument("--agents", nargs="+", default=list(AGENTS), choices=list(AGENTS))
    parser.add_argument("--iterations", type=int, default=51)
    parser.add_argument("--out", type=Path, default=HERE / "reference")
    args = parser.parse_args(argv)
    commit = subprocess.run(
        ["git", "-C", str(args.repo), "rev-parse", "--short=7", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    for game in args.games:
        path = f"baselines/atari/data/{game}.json"
        shown = subprocess.run(
            ["git", "-C", str(args.repo), "show", f"HEAD:{path}"], capture_output=True, text=True, check=True
        )
        records = json.loads(shown.stdout)
        held = 1 + max(r["Iteration"] for r in records)
        for agent in args.agents:
            out = args.out / f"dopamine_{agent.lower()}_{game}.tsv"
            out.write_text(
                header(agent, game, commit, args.iterations, held) + table(curve(records, agent, args.iterations))
            )
            print(f"wrote {out}")


if __name__ == "__main__":
    main()
