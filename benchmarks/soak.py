"""Soak: train on an embedded Ray with 4 bundles for 10 minutes and watch every process's resources.

Samples, every few seconds, the resident memory and the open file descriptors of the driver and of
each process under it (Ray's servers and the components' workers), writes them to soak.csv and plots
them to soak.png (one line per process; the sum on top). Once every replay memory is full nothing
should grow: the script prints each process kind's growth over the second half of the run.
It stops the run with SIGTERM at the end (the clean stop a cluster scheduler sends), and checks that
the run wrote its final checkpoint and summary.
Usage: python benchmarks/soak.py [--minutes 10] [--bundles 4] [--out soak]
"""

from __future__ import annotations

import argparse
import csv
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from processes import children, resident_kb, title

from gorila.records.metrics import read_metrics


def sample(pid: int) -> dict | None:
    """(name, resident MB, open fds) of one process; None when it is gone."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return None
    name, rss_kb = title(pid), resident_kb(pid)
    if name is None or rss_kb is None:
        return None
    return {"name": name, "rss_mb": rss_kb / 1024, "fds": fds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--bundles", type=int, default=4)
    parser.add_argument("--every", type=float, default=5.0, help="seconds between samples")
    parser.add_argument("--out", default="soak", help="prefix of the .csv and .png written")
    args = parser.parse_args()
    run_dir = Path(tempfile.mkdtemp()) / "run"
    command = [
        sys.executable,
        "-m",
        "gorila",
        "train",
        "--preset",
        "cartpole",
        "--runtime",
        "ray",
        "--actors",
        str(args.bundles),
        "--learners",
        str(args.bundles),
        "--param-shards",
        "2",
        "--stop-at-return",
        "0",
        "--total-frames",
        "1000000000",
        "--replay-capacity",
        "20000",
        "--run-dir",
        str(run_dir),
    ]
    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows, start = [], time.time()
    try:
        while time.time() - start < args.minutes * 60 and driver.poll() is None:
            now = time.time() - start
            for pid in [driver.pid] + children(driver.pid):
                values = sample(pid)
                if values:
                    if pid == driver.pid:
                        values["name"] = "driver (gorila train)"
                    rows.append({"t": round(now, 1), "pid": pid, **values})
            time.sleep(args.every)
    finally:
        driver.send_signal(signal.SIGTERM)
        code = driver.wait(timeout=120)
    write_csv(rows, Path(f"{args.out}.csv"))
    plot(rows, Path(f"{args.out}.png"))
    records = read_metrics(run_dir)
    summary = any(r["kind"] == "summary" for r in records)
    checkpoint = any((run_dir / "checkpoints").glob("ckpt-*.pt"))
    frames = max((r["env_frames"] for r in records), default=0)
    print(
        f"{args.minutes:g} min, {args.bundles} bundles, {frames:,} frames; SIGTERM -> exit {code}, "
        f"final checkpoint {'yes' if checkpoint else 'NO'}, summary {'yes' if summary else 'NO'}"
    )
    for line in growth(rows):
        print(line)
    print(f"wrote {args.out}.csv and {args.out}.png")
    return 0 if summary and checkpoint else 1


def write_csv(rows: list[dict], path: Path) -> None:
    with open(path, "w", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=["t", "pid", "name", "rss_mb", "fds"])
        writer.writeheader()
        writer.writerows(rows)


def by_process(rows: list[dict]) -> dict:
    """(name, pid) -> its samples; a Ray worker's title changes with the method it runs, so a process
    is named by its first title that says what it is."""
    series, names = defaultdict(list), {}
    for row in rows:
        known = names.get(row["pid"], "")
        if not known.startswith("ray::") or known.startswith("ray::IDLE"):
            names[row["pid"]] = row["name"].split(".")[0]
        series[row["pid"]].append(row)
    return {(names[pid], pid): points for pid, points in series.items()}


def growth(rows: list[dict]) -> list[str]:
    """Each process's resident memory and fds at mid-run and at the end (the replays are full by then)."""
    end = max(row["t"] for row in rows)
    lines = [f"{'process':34} {'pid':>7} {'MB mid':>8} {'MB end':>8} {'fds mid':>8} {'fds end':>8}"]
    for (name, pid), points in sorted(by_process(rows).items()):
        mid = min(points, key=lambda r: abs(r["t"] - end / 2))
        last = points[-1]
        if last["t"] < end - 30:  # a process that ended early (Ray's start-up helpers)
            continue
        lines.append(
            f"{name[:34]:34} {pid:>7} {mid['rss_mb']:8.0f} {last['rss_mb']:8.0f} {mid['fds']:>8} {last['fds']:>8}"
        )
    return lines


def plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (memory, files) = plt.subplots(2, 1, figsize=(10, 8), sharex=True)
    totals = defaultdict(float)
    for row in rows:
        totals[row["t"]] += row["rss_mb"]
    for (name, pid), points in sorted(by_process(rows).items()):
        t = [p["t"] / 60 for p in points]
        memory.plot(t, [p["rss_mb"] for p in points], linewidth=1, label=f"{name[:28]} ({pid})")
        files.plot(t, [p["fds"] for p in points], linewidth=1)
    memory.plot([t / 60 for t in totals], list(totals.values()), "k", linewidth=2, label="all processes")
    memory.set_ylabel("resident memory (MB)")
    files.set_ylabel("open file descriptors")
    files.set_xlabel("minutes")
    memory.legend(fontsize=6, ncol=2)
    memory.set_title("gorila soak: every process of a Ray run")
    figure.tight_layout()
    figure.savefig(path, dpi=100)


if __name__ == "__main__":
    sys.exit(main())
