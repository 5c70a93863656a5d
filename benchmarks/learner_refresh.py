"""The learner's one-update lag, measured: pipelined push-and-pull against a synchronous one.

Pipelined (the default), a learner's refresh of theta+ returns what it asked for with its previous
push, so each gradient is computed on parameters without the one before it; synchronous, it waits for
the theta+ that includes the gradient it just pushed. Side by side in one run:
- CartPole, the cartpole preset, seeds 0-4: frames and wall time to a confirmed solve, local runtime
  and one bundle on Ray, both ways (`time_to_solve.py`'s setups local, local-sync, ray-1, ray-1-sync);
- Atari (Breakout): agent steps/s and updates/s of one bundle on Ray, both ways, alternated.
Usage: python benchmarks/learner_refresh.py [--seeds 0 1 2 3 4] [--atari-seconds 20] [--repeats 3] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from time_to_solve import time_to_solve  # noqa: E402

MODES = ("pipelined", "synchronous")


def cartpole(seeds: list[int]) -> list[dict]:
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        for seed in seeds:
            for setup in ("local", "local-sync", "ray-1", "ray-1-sync"):
                runs.append(time_to_solve(setup, seed, Path(folder)))
                print(json.dumps(runs[-1]), flush=True)
    return runs


def atari(seconds: float, repeats: int) -> dict[str, list[dict]]:
    from gorila.experiments.bench.system import bundles_rate

    rates = {mode: [] for mode in MODES}
    for _ in range(repeats):
        for mode in MODES:
            rates[mode].append(bundles_rate(1, seconds, learner_refresh=mode))
            print(json.dumps({"atari": mode, **rates[mode][-1]}), flush=True)
    return rates


def table(runs: list[dict], rates: dict[str, list[dict]]) -> str:
    lines = ["| setup | solved | frames to solve (seeds) | median frames | median s |", "|---|---|---|---|---|"]
    for setup in ("local", "local-sync", "ray-1", "ray-1-sync"):
        mine = [r for r in runs if r["setup"] == setup]
        frames = [r["solve_frames"] for r in mine]
        times = [r["solve_s"] if r["solve_s"] is not None else float("inf") for r in mine]
        solved = [f for f in frames if f is not None]
        lines.append(
            f"| {setup} | {len(solved)}/{len(mine)} | {' / '.join(f'{f:,}' if f else '-' for f in frames)} "
            f"| {statistics.median(f or float('inf') for f in frames):,.0f} | {statistics.median(times):.1f} |"
        )
    if rates:
        lines += ["", "| Atari, 1 bundle on Ray | agent steps/s (median) | updates/s (median) |", "|---|---|---|"]
        for mode, measured in rates.items():
            lines.append(
                f"| {mode} | {statistics.median(r['steps_per_s'] for r in measured):.1f} "
                f"| {statistics.median(r['updates_per_s'] for r in measured):.1f} |"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--atari-seconds", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write all runs as JSON")
    args = parser.parse_args()
    runs = cartpole(args.seeds)
    rates = atari(args.atari_seconds, args.repeats) if args.repeats else {}
    print("\n" + table(runs, rates))
    if args.json:
        Path(args.json).write_text(json.dumps({"cartpole": runs, "atari": rates}, indent=1))


if __name__ == "__main__":
    main()
