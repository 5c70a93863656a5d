"""The Atari breadth runs, one after another in RUNS_DIR, each from launch with the atari-fast preset
on the local runtime: Pong on seeds 1 and 2 (the preset was tuned on seed 0), each to a confirmed
DQN-protocol evaluation of 18 or its 10M frames; Breakout, Space Invaders and Seaquest for 10M frames
with sticky actions 0.25, as Dopamine's published runs (benchmarks/reference/dopamine_*.tsv) have them.
Every run saves its replay with each checkpoint, so that a run an interruption ended (the end of a
working day) goes on with `gorila train --resume` from its latest checkpoint and its experience: run
the script again and it resumes the one that was cut, passes over those that ended, and starts the next.
About 3 hours of two cores for each 10M frames; run it with nohup. Then
`python benchmarks/atari_baseline.py RUN ...` compiles each into benchmarks/baselines/atari/.

Usage: python benchmarks/atari_breadth.py [RUNS_DIR] [--only NAME ...] [--list]"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from gorila.records.metrics import read_metrics

ENDED = ("budget", "solved")  # a run whose summary says so is done; "interrupted" goes on
COMMON = ["--preset", "atari-fast", "--runtime", "local", "--save-replay", "--set", "checkpoint_every_frames=1000000"]
# name: (game, seed, what else); Breakout needs FIRE after a lost life (the atari-fast preset's comment)
RUNS = {
    "pong-atari-fast-seed1": ("Pong", 1, ["--set", "stop_at_return=18"]),
    "pong-atari-fast-seed2": ("Pong", 2, ["--set", "stop_at_return=18"]),
    "breakout-atari-fast-sticky-seed0": ("Breakout", 0, ["--sticky-actions", "0.25", "--set", "fire_reset=true"]),
    "spaceinvaders-atari-fast-sticky-seed0": ("SpaceInvaders", 0, ["--sticky-actions", "0.25"]),
    "seaquest-atari-fast-sticky-seed0": ("Seaquest", 0, ["--sticky-actions", "0.25"]),
}


def state(run_dir: Path) -> str:
    """'new' (nothing trained), 'cut' (to be resumed) or 'done' (its summary says budget or solved)."""
    if not (run_dir / "config.yaml").is_file():
        return "new"
    summaries = (
        [r for r in read_metrics(run_dir) if r["kind"] == "summary"] if (run_dir / "metrics.jsonl").is_file() else []
    )
    return "done" if summaries and summaries[-1].get("stop_reason") in ENDED else "cut"


def command(name: str, run_dir: Path, how: str) -> list[str]:
    """The `gorila train` command that starts run `name` (how 'new') or resumes it (how 'cut')."""
    gorila = [sys.executable, "-m", "gorila", "train"]
    game, seed, extra = RUNS[name]
    if how == "cut":  # its own settings again: a run started by hand before them gets them too
        return [*gorila, "--resume", str(run_dir), *extra]
    return [*gorila, *COMMON, "--env", game, "--seed", str(seed), *extra, "--run-dir", str(run_dir)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="?", type=Path, default=Path("runs/atari-breadth"))
    parser.add_argument("--only", nargs="+", choices=list(RUNS), default=list(RUNS))
    parser.add_argument("--list", action="store_true", help="say where each run stands and start nothing")
    args = parser.parse_args(argv)
    args.runs.mkdir(parents=True, exist_ok=True)
    for name in args.only:
        run_dir = args.runs / name
        how = state(run_dir)
        print(f"atari_breadth: {name}: {how}", flush=True)
        if how == "done" or args.list:
            continue
        with open(args.runs / f"{name}.log", "a") as log:
            code = subprocess.run(command(name, run_dir, how), stdout=log, stderr=subprocess.STDOUT).returncode
        if code != 0:  # interrupted (130) or failed: the rest wait for the next call
            print(f"atari_breadth: {name} ended with exit code {code}; run the script again to go on", flush=True)
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main())
