"""The figures of one `benchmarks/device.sh` run, beside the goals: the learner table from OUT/learners.json
and Pong's training return against wall time and frames from OUT/pong (beside Dopamine's DQN by frames).
Writes OUT/pong.json and OUT/summary.json; exit status 1 when a part left no figure (the smoke run's
test), 0 otherwise, whether or not the goals hold.

Usage: python benchmarks/device_report.py OUT [--pong-only]   (--pong-only: no learner table was asked for)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from atari_baseline import MARKS, first_reached, train_curve

from gorila.records.metrics import read_metrics

HERE = Path(__file__).resolve().parent
GOALS = {"one learner / bare step": 0.8, "4 learners / bare step": 2.0, "Pong return within 10 minutes": 18.0}
MINUTES_TO_18 = 10.0  # the goal: a mean of +18 over the last 100 training episodes within 10 minutes


def dopamine_at(frames: int) -> float | None:
    """Dopamine's mean DQN training return on Pong at `frames` (its curve starts at 1M frames)."""
    curve = np.loadtxt(HERE / "reference" / "dopamine_dqn_pong.tsv", comments="#", delimiter="\t", ndmin=2)
    return float(np.interp(frames, curve[:, 0], curve[:, 1])) if frames >= curve[0, 0] else None


def pong_curve(run: Path) -> list[dict]:
    """(wall time, frames, mean of the last 10 and of the last 100 training episodes) per train record."""
    if not (run / "metrics.jsonl").is_file():
        return []
    return [
        {
            "wall_time": r["wall_time"],
            "env_frames": r["env_frames"],
            "return_10": r.get("return_mean_10"),
            "return_100": r.get("return_mean"),
            "dopamine_at_frames": dopamine_at(r["env_frames"]),
        }
        for r in read_metrics(run)
        if r.get("kind") == "train"
    ]


def main(out: Path, pong_only: bool = False) -> int:
    learners = json.loads((out / "learners.json").read_text()) if (out / "learners.json").is_file() else {}
    curve = pong_curve(out / "pong")
    one = learners.get("learner", {}).get("ratio")
    four = learners.get("shared_device", {}).get("learners_4", {}).get("ratio")
    returns = [point for point in curve if point["return_10"] is not None]
    in_ten = [p["return_10"] for p in returns if p["wall_time"] <= 600]
    summary = {
        "one learner / bare step": one,
        "4 learners / bare step": four,
        "Pong return within 10 minutes": max(in_ten) if in_ten else None,
        "goals": GOALS,
    }
    reached = first_reached(train_curve(out / "pong"), MARKS["Pong"]) if curve else {}
    summary["Pong, mean of 100 episodes first reached"] = reached
    (out / "pong.json").write_text(json.dumps(curve, indent=1) + "\n")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"\n{'figure':34} {'measured':>10} {'goal':>8}")
    for name, goal in GOALS.items():
        value = summary[name]
        print(f"{name:34} {'-' if value is None else f'{value:10.2f}':>10} {'>= ' + str(goal):>8}")
    print("\nPong (mean of the last 10 training episodes; Dopamine's DQN mean at the same frames):")
    for point in returns[:: max(1, len(returns) // 12)] + returns[-1:]:
        dopamine = point["dopamine_at_frames"]
        print(
            f"  {point['wall_time']:6.0f} s  {point['env_frames']:>12,} frames  {point['return_10']:6.1f}"
            f"  (Dopamine {'-' if dopamine is None else f'{dopamine:.1f}'})"
        )
    for mark, at in reached.items():
        print(
            f"  mean of the last 100 episodes reached {mark}: "
            + ("not yet" if at is None else f"at {at['frames']:,} frames, {at['wall_s'] / 60:.1f} min")
            + (f" (goal: within {MINUTES_TO_18:g} min)" if mark == "+18" else "")
        )
    asked = [] if pong_only else [("the learner table", one), ("4 learners", four)]
    missing = [name for name, value in asked if value is None]
    missing += [] if curve else ["Pong's train records"]
    if missing:
        print(f"device_report: no figure for {', '.join(missing)} in {out}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--pong-only"]):
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1]), pong_only=sys.argv[2:] == ["--pong-only"]))
