"""The sizing table: the predicted time to a score on 1, 8, 32 and 100 machines, from compiled scaling
studies (`benchmarks/scaling.py`) and the parameter shard's capacity (`benchmarks/shard_capacity.py`).

For each study, on M machines of the kind fps was measured on (one bundle a machine):

    T_M = F_M / (M x fps_M)

where M bundles were measured (F_M the median frames to the score, fps_M one bundle's frames/s set up
as each of the M). Past the largest N measured, that N's price and fps_N are held: an extrapolation
(marked `~`), optimistic where the price goes on growing with N, as it has so far past 8.

The parameter server: each bundle sends u gradients/s (the study's updates per frame times fps_M), so
M bundles send M u, each gradient to every shard (a slice each). A shard's update rule applies
`apply_per_s` gradients/s of the whole network in its own process, twice or more as many slices of half
the network; shards on machines of their own divide that work, so the update rule needs
ceil(M u / apply_per_s) of them. The messages do not divide: every shard receives all M u, and one
shard took `ray_applied_per_s` through Ray from one client on this machine (client and shard sharing
its two cores). The run's updates to the score at that rate are the least time the server allows:
T_M is the larger of the two, marked `(server)` where the server sets the pace (unless the learners
send several gradients a message, `push_every`, which that rate did not measure).

Usage: python benchmarks/sizing.py [--out benchmarks/baselines/scaling]  (writes sizing.json and sizing.md)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "baselines" / "scaling"
MACHINES = (1, 8, 32, 100)
# (the study's folder, what it measures, the network key in shard-capacity.json)
STUDIES = (
    ("pqn-minatar-breakout", "PQN (pqn preset), MinAtar Breakout, training mean 8", "minatar_cnn (pqn, RAdam)"),
    ("dqn-minatar-breakout", "DQN (minatar preset), MinAtar Breakout, training mean 6", "minatar_cnn (pqn, RAdam)"),
)


def predictions(study: dict, capacity: dict) -> list[dict]:
    """One row per machine count: the predicted seconds, whether extrapolated, and the server's load."""
    rows = {int(n): row for n, row in study["by_bundles"].items() if row.get("predicted_seconds")}
    if 1 not in rows:
        return []
    runs = [run for run in study["runs"].values() if run.get("frames_to_score") and run.get("updates")]
    updates_per_frame = sum(run["updates"] for run in runs) / sum(run["frames_to_score"] for run in runs)
    out = []
    for machines in MACHINES:
        measured = max(n for n in rows if n <= machines)
        row = rows[measured]
        out.append(
            prediction(machines, measured, row["frames_to_score"], row["bundle_fps"], updates_per_frame, capacity)
        )
    return out


def prediction(machines: int, measured: int, frames: float, fps: float, per_frame: float, capacity: dict) -> dict:
    """`frames` on `machines` bundles of `fps` frames/s each (fps of `measured` bundles), and the server's
    least time for the `per_frame` updates of each frame at one shard's measured rate."""
    learners = frames / (machines * fps)
    server = frames * per_frame / capacity["1"]["ray_applied_per_s"]
    gradients = machines * fps * per_frame
    return {
        "machines": machines,
        "seconds": round(max(learners, server), 1),
        "learners_seconds": round(learners, 1),
        "server_seconds": round(server, 1),
        "server_sets_the_pace": server > learners,
        "extrapolated_from": None if measured == machines else measured,
        "gradients_per_s": round(gradients),
        "shards_for_the_update_rule": max(1, math.ceil(gradients / capacity["1"]["apply_per_s"])),
        "messages_over_one_shard": round(gradients / capacity["1"]["ray_applied_per_s"], 2),
    }


# Atari (atari-fast): one bundle's Pong run to +18 (frames, wall time and updates, on the local runtime,
# which waits for nothing: as one bundle on Ray), 4 bundles' run on Ray from launch (`atari-fast-pong`,
# whose frames to +18 over one bundle's are the price, held past 4; where it spent its budget short of
# +18, the budget's frames over one bundle's, a price of at least that) and a study whose fps_8 is one
# atari-fast bundle set up as each of 8. The 49 games take Pong's price and rates.
PONG_RUN = Path(__file__).resolve().parent / "baselines" / "atari" / "pong-atari-fast-replay500k-seed0.json"
PONG_PRICE_STUDY, PONG_PRICE_BUNDLES = "atari-fast-pong", 4
ATARI_FPS_STUDY = "atari-fast-pong-fps-8"
SUITE_GAMES, SUITE_FRAMES = 49, 10_000_000  # the paper's games, each for atari-fast's budget
ATARI_NETWORK = "nature_cnn (atari-fast, Adam)"


def budget_rows(
    frames: float, fps_1: float, fps_n: dict, updates_per_frame: float, capacity: dict, price: tuple[int, float]
) -> list[dict]:
    """Predictions for `frames` (one bundle's): on M machines frames x the price measured at the largest
    N <= M (`price`: (N, F_N / F_1), 1 below N) over M fps_M, fps_M from the largest measured N <= M,
    and the server's least time for the updates those frames make; extrapolated where either N < M."""
    rates = {1: fps_1, **fps_n}
    priced_at, factor = price
    out = []
    for machines in MACHINES:
        measured = max(n for n in rates if n <= machines)
        row = prediction(machines, measured, frames * (factor if machines >= priced_at else 1.0), rates[measured],
                         updates_per_frame, capacity)  # fmt: skip
        if 1 < priced_at < machines:  # the price of fewer bundles held
            row["extrapolated_from"] = min(measured, priced_at)
        out.append(row)
    return out


def pong_price(folder: Path, frames_1: float) -> tuple[int, float, bool] | None:
    """(N, F_N / F_1, at_least) from the Pong study of N bundles, against one bundle's `frames_1`: where
    its runs spent their budget without reaching the score, the budget's frames over `frames_1`, a price
    of at least that (`at_least` True); None where the study is missing or was stopped short of both."""
    path = folder / PONG_PRICE_STUDY / "results.json"
    if not path.is_file():
        return None
    study = json.loads(path.read_text())
    row = study["by_bundles"].get(str(PONG_PRICE_BUNDLES), {})
    if row.get("frames_to_score"):
        return PONG_PRICE_BUNDLES, row["frames_to_score"] / frames_1, False
    runs = [run for run in study.get("runs", {}).values() if run.get("bundles") == PONG_PRICE_BUNDLES]
    if runs and all(run.get("stop_reason") == "budget" for run in runs):
        return PONG_PRICE_BUNDLES, min(run["frames"] for run in runs) / frames_1, True
    return None


def atari_studies(folder: Path, capacity: dict) -> dict:
    """The Pong and 49-game rows, where their measurements are compiled (else none)."""
    study_path = folder / ATARI_FPS_STUDY / "results.json"
    if not (PONG_RUN.is_file() and study_path.is_file()):
        return {}
    pong = json.loads(PONG_RUN.read_text())
    study = json.loads(study_path.read_text())
    fps_n = {int(n): row["bundle_fps"] for n, row in study["by_bundles"].items() if n != "1" and row.get("bundle_fps")}
    reached = pong["first_reached"]["+18"]
    fps_1 = reached["frames"] / reached["wall_s"]
    per_frame = pong["updates"] / pong["frames"]
    measured = pong_price(folder, reached["frames"])
    bundles, factor, bound = measured or (1, 1.0, False)
    at_least = "at least " if bound else ""
    said = f"price {at_least}{factor:.2f} at {bundles} bundles" if measured else "frames at one bundle's, price 1"
    common = {
        "commit": study.get("commit"),
        "machine": study.get("machine"),
        "price": f"{at_least}{factor:.3f} (measured at {bundles} bundles)" if measured else "1 (not yet measured)",
    }
    price = (bundles, factor)
    return {
        "pong-atari-fast": {
            **common,
            "what": f"DQN (atari-fast), Pong, training mean +18 ({said})",
            "rows": budget_rows(reached["frames"], fps_1, fps_n, per_frame, capacity[ATARI_NETWORK], price),
        },
        "atari-49-games": {
            **common,
            "what": f"DQN (atari-fast), the paper's {SUITE_GAMES} games, {SUITE_FRAMES / 1e6:.0f}M frames each"
            + (" (Pong's price)" if measured else ""),
            "rows": budget_rows(SUITE_GAMES * SUITE_FRAMES, fps_1, fps_n, per_frame, capacity[ATARI_NETWORK], price),
        },
    }


def duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def markdown(table: dict) -> str:
    head = "| run | " + " | ".join(f"{m} machine{'s' if m > 1 else ''}" for m in MACHINES) + " |"
    lines = [head, "|---|" + "---:|" * len(MACHINES)]
    for name, entry in table["studies"].items():
        cells = [
            ("~" if row["extrapolated_from"] else "")
            + duration(row["seconds"])
            + (" (server)" if row["server_sets_the_pace"] else "")
            for row in entry["rows"]
        ]
        lines.append(f"| {entry['what']} | " + " | ".join(cells) + " |")
    lines += ["", "| run: gradients/s to the server (shards for the update rule; messages / one shard's Ray rate) | "]
    lines[-1] += " | ".join(f"{m}" for m in MACHINES) + " |"
    lines.append("|---|" + "---:|" * len(MACHINES))
    for name, entry in table["studies"].items():
        cells = [
            f"{row['gradients_per_s']:,} ({row['shards_for_the_update_rule']}; {row['messages_over_one_shard']:g})"
            for row in entry["rows"]
        ]
        lines.append(f"| {entry['what']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT), help="folder of the studies; sizing.json and sizing.md go there")
    args = parser.parse_args(argv)
    folder = Path(args.out)
    capacity = json.loads((folder / "shard-capacity.json").read_text())["networks"]
    table = {"machines": list(MACHINES), "studies": {}}
    for name, what, network in STUDIES:
        path = folder / name / "results.json"
        if not path.is_file():
            print(f"{path}: missing", file=sys.stderr)
            return 1
        study = json.loads(path.read_text())
        table["studies"][name] = {
            "what": what,
            "commit": study.get("commit"),
            "machine": study.get("machine"),
            "rows": predictions(study, capacity[network]),
        }
    table["studies"].update(atari_studies(folder, capacity))
    (folder / "sizing.json").write_text(json.dumps(table, indent=1) + "\n")
    (folder / "sizing.md").write_text(markdown(table))
    print(markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
