"""Compile the loss-outlier filter's runs (benchmarks/atari_runs.sh) into one published table.

The paper's filter drops a gradient whose absolute DQN loss lies more than k running standard
deviations above its running mean (Nair et al. 2015, section 4); DQN has none. Each pair is one game
and seed with the atari preset, sticky actions 0.25, the first 1M frames, filter off (k = 0) and on
(k = 5, the gorila-paper preset's). For each run: the mean training return of the last 100 episodes at
0.5M and 1M frames, its evaluations (10 episodes at 0.05) and the share of gradients the filter
dropped. A filter-off run may be given as its compiled curve (benchmarks/baselines/atari/NAME.tsv),
which holds the training return alone.

Writes benchmarks/baselines/atari/outlier-filter-1m.json and .md (the table).

Usage: python benchmarks/outlier_filter.py --pair GAME SEED OFF ON [--pair ...] --command TEXT
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parent / "baselines" / "atari"
FRAMES = (500_000, 1_000_000)
WINDOW = 100


def records(path: Path) -> list[dict]:
    """A run's metrics records, or a compiled curve's rows read as train records."""
    if path.suffix == ".tsv":
        rows = [line.split("\t") for line in path.read_text().splitlines() if not line.startswith("#")]
        return [
            {
                "kind": "train",
                "env_frames": int(r[0]),
                "updates": int(r[2]),
                "return_mean": float(r[3]),
                "episodes_recent": WINDOW,
            }
            for r in rows
        ]
    return [json.loads(line) for line in (path / "metrics.jsonl").read_text().splitlines() if line.strip()]


def summary(path: Path) -> dict:
    """Training return at each of FRAMES, evaluations up to the last of them, gradients dropped."""
    found = records(path)
    train = [r for r in found if r.get("kind") == "train" and r["env_frames"] <= FRAMES[-1]]
    full = [r for r in train if r.get("episodes_recent", 0) >= WINDOW]
    at = {}
    for frames in FRAMES:
        before = [r for r in full if r["env_frames"] <= frames]
        at[str(frames)] = round(before[-1]["return_mean"], 2) if before else None
    evaluations = {
        str(r["env_frames"]): round(r["eval_return_mean"], 2)
        for r in found
        if r.get("kind") == "eval" and r["env_frames"] <= FRAMES[-1] + 10_000
    }
    updates = max((r.get("updates", 0) for r in train), default=0)
    counted = any("dropped_outliers" in r for r in train)  # a compiled curve does not keep them
    dropped = sum(r.get("dropped_outliers", 0) for r in train) if counted else None
    return {
        "source": path.name,
        "frames": train[-1]["env_frames"] if train else 0,
        "training_return_100": at,
        "evaluations": evaluations,
        "updates": updates or None,
        "dropped": dropped,
        "dropped_share": round(dropped / updates, 5) if dropped is not None and updates else None,
    }


def table(pairs: list[dict]) -> str:
    head = (
        "| game | seed | filter | training return at 0.5M / 1M frames | evaluations (10 at 0.05) | "
        "gradients dropped |\n|---|---|---|---|---|---|\n"
    )
    lines = []
    for pair in pairs:
        for side in ("off", "on"):
            run = pair[side]
            ret = " / ".join("-" if v is None else f"{v:.2f}" for v in run["training_return_100"].values())
            evals = ", ".join(f"{v:.1f}" for v in run["evaluations"].values()) or "not kept"
            drop = "-" if run["dropped"] is None else f"{run['dropped']:,} of {run['updates']:,}"
            lines.append(f"| {pair['game']} | {pair['seed']} | {side} | {ret} | {evals} | {drop} |")
    return head + "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", nargs=4, action="append", metavar=("GAME", "SEED", "OFF", "ON"), required=True)
    parser.add_argument("--command", required=True, help="what made the runs")
    args = parser.parse_args()
    pairs = [
        {"game": game, "seed": int(seed), "off": summary(Path(off)), "on": summary(Path(on))}
        for game, seed, off, on in args.pair
    ]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    result = {"command": args.command, "commit": commit, "pairs": pairs}
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "outlier-filter-1m.json").write_text(json.dumps(result, indent=1) + "\n")
    markdown = f"{table(pairs)}\n{args.command} (commit {commit})\n"
    (OUT / "outlier-filter-1m.md").write_text(markdown)
    print(markdown)


if __name__ == "__main__":
    main()
