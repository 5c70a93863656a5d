"""The figures of benchmarks/device_pqn.sh, from its runs' metrics (made on the device machine, or here
from what came back):

  python benchmarks/device_pqn_report.py scaling OUT ONE MANY   # time to 5, 8.32, 12 of two runs
  python benchmarks/device_pqn_report.py games OUT [TAR]        # the five games beside MinAtar's DQN

Writes OUT/pqn-scaling.json or OUT/minatar-games.json and prints a table.
"""

from __future__ import annotations

import json
import statistics
import sys
import tarfile
import tempfile
from pathlib import Path

from gorila.evaluation.minatar_reference import published_dqn_return
from gorila.experiments.suite.minatar_table import run_speed, training_return
from gorila.records.metrics import read_metrics

MARKS = (5.0, 8.32, 12.0)  # 8.32: MinAtar's DQN on Breakout at 500k frames
WINDOW = 100


def first_reached(records: list[dict]) -> dict:
    """{mark: (frames, wall seconds)} where the mean of the last 100 training episodes first reached it."""
    reached = {}
    for record in records:
        if record.get("kind") != "train" or record.get("episodes_recent", 0) < WINDOW:
            continue
        for mark in MARKS:
            if mark not in reached and record.get("return_mean", float("-inf")) >= mark:
                reached[mark] = (record["env_frames"], record["wall_time"])
    return reached


def scaling(out: Path, one: str, many: str) -> None:
    runs = {name: read_metrics(out / name) for name in (one, many)}
    result = {}
    for name, records in runs.items():
        end = training_return(records) or {}
        result[name] = {
            "reached": {str(m): v for m, v in first_reached(records).items()},
            "final": end,
            "fps": run_speed(records),
            "wall_seconds": max((r["wall_time"] for r in records if "wall_time" in r), default=None),
        }
        marks = ", ".join(f"{m:g} at {f:,} frames, {w:.0f} s" for m, (f, w) in first_reached(records).items())
        print(
            f"{name}: {marks or 'no mark reached'}; final {end.get('return')} at {end.get('frames')} frames; "
            f"{result[name]['fps'] or 0:,.0f} frames/s"
        )
    ratios = {}
    for mark in MARKS:
        a, b = result[one]["reached"].get(str(mark)), result[many]["reached"].get(str(mark))
        if a and b:
            ratios[str(mark)] = a[1] / b[1]
            print(f"time to {mark:g}: {a[1]:.0f} s / {b[1]:.0f} s = {a[1] / b[1]:.2f}x")
    result["speedup_by_mark"] = ratios
    (out / "pqn-scaling.json").write_text(json.dumps(result, indent=1))


def games(out: Path, archive: str | None = None) -> None:
    root = out / "minatar"
    if archive:  # what came back from the device machine
        root = Path(tempfile.mkdtemp()) / "minatar"
        with tarfile.open(archive) as tar:
            tar.extractall(root.parent, filter="data")
    rows = {}
    for run in sorted(p for p in root.iterdir() if p.is_dir()):
        game, seed = run.name.rsplit("-seed", 1)
        records = read_metrics(run)
        end = training_return(records)
        if not end:
            continue
        published = published_dqn_return(game, end["frames"])
        row = rows.setdefault(game, {"seeds": {}, "published_dqn": published})
        row["seeds"][seed] = {**end, "fps": run_speed(records)}
    print(f"{'game':15} {'ours (mean of seeds)':>22} {'published DQN':>14}  frames/s")
    for game, row in rows.items():
        returns = [s["return"] for s in row["seeds"].values() if s["return"] is not None]
        row["mean"] = statistics.mean(returns) if returns else None
        speeds = [s["fps"] for s in row["seeds"].values() if s["fps"]]
        frames = min(s["frames"] for s in row["seeds"].values())
        published = f"{row['published_dqn']:.2f}" if row["published_dqn"] is not None else "-"
        ours = f"{row['mean']:.2f}" if row["mean"] is not None else "-"
        print(
            f"{game:15} {ours:>15} at {frames / 1e6:.2f}M {published:>14}  {statistics.mean(speeds) if speeds else 0:,.0f}"
        )
    (out / "minatar-games.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "scaling":
        scaling(Path(sys.argv[2]), sys.argv[3], sys.argv[4])
    else:
        games(Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
