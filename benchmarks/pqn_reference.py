"""PQN against its reference implementation, side by side in one run, each timed from launch.

The reference is purejaxql's `pqn_minatar.py` (Gallici et al. 2025; JAX, the whole run one jitted
program, on gymnax's MinAtar) with its own settings, in a virtual environment of its own (it is no
dependency of gorila); ours is `gorila train --preset pqn` on MinAtar's own game. Both train for the same
agent steps with the same seed, one after the other on this machine, each timed from its process's
launch to its exit (imports, compilation and evaluations included). The return is each one's training
return at the end: ours the mean of the last 100 episodes, the reference's the mean over its copies of
each one's last finished episode (its LogWrapper's `returned_episode_returns` in the last update).

What differs between the two games (gymnax 0.0.8 against MinAtar 1.0): gymnax's Breakout-MinAtar has
the 3 actions of the minimal set, no sticky actions and episodes cut at 1,000 steps; MinAtar's own
Breakout-v0 has 6 actions, sticky actions 0.1 and no cap (MinAtar/Breakout-v1 has the minimal set).

The reference's environment is made on first use (jax 0.4.38, the last whose API purejaxql's code runs
on, and gymnax 0.0.8: gymnax 1.0's step returns six values) in --venv; its source is a checkout given
with --purejaxql, or cloned at PUREJAXQL_COMMIT. Writes results/pqn-reference-<game>-<steps>.json.
Usage: python benchmarks/pqn_reference.py [--steps 500000] [--seed 0] [--purejaxql DIR] [--venv DIR]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gorila.records.metrics import read_metrics

HERE = Path(__file__).resolve().parent
PUREJAXQL = "https://github.com/mttga/purejaxql"
PUREJAXQL_COMMIT = "47af6d7b35c89ddfe633aaf7341bdb8964cb7cce"
REQUIREMENTS = [
    "jax[cpu]==0.4.38",
    "jaxlib==0.4.38",
    "gymnax==0.0.8",
    "flax==0.10.2",
    "optax==0.2.4",
    "chex==0.1.88",
    "hydra-core==1.3.2",
    "omegaconf==2.3.0",
    "wandb",
    "safetensors",
    "six",  # gymnax 0.0.8 imports it and does not require it
]
GAMES = {"breakout": ("Breakout-MinAtar", "MinAtar/Breakout-v0")}  # (gymnax's, MinAtar's own)
WINDOW = 100  # our training return: the mean of the last 100 episodes (MinAtar's moving average)


def reference_python(venv: Path) -> Path:
    """The reference environment's Python, made first if it is not there."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"making the reference's environment in {venv} (once)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *REQUIREMENTS], check=True)
    return python


def reference_source(given: str | None, cache: Path) -> Path:
    """A checkout of purejaxql: the one given, or a clone at PUREJAXQL_COMMIT."""
    if given:
        return Path(given).resolve()
    checkout = cache / "purejaxql"
    if not checkout.exists():
        subprocess.run(["git", "clone", "-q", PUREJAXQL, str(checkout)], check=True)
        subprocess.run(["git", "-C", str(checkout), "checkout", "-q", PUREJAXQL_COMMIT], check=True)
    return checkout


def timed(command: list[str]) -> float:
    """Run `command` to its end; its wall time from launch in seconds (exits on a failure)."""
    start = time.time()
    process = subprocess.run(command, capture_output=True, text=True)
    if process.returncode != 0:
        sys.exit(f"{command[0]} failed ({process.returncode}):\n{process.stdout[-2000:]}{process.stderr[-2000:]}")
    return time.time() - start


def run_reference(python: Path, source: Path, game: str, steps: int, seed: int, work: Path, extra: list) -> dict:
    out = work / "reference.json"
    seconds = timed(
        [str(python), str(HERE / "pqn_reference_run.py"), str(source), game, str(steps), str(seed), str(out), *extra]
    )
    data = json.loads(out.read_text())
    return {
        "seconds": seconds,
        "return": data["returns"][-1],
        "curve": list(zip(data["env_steps"], data["returns"])),
        "jax": data["jax"],
        "settings": data["settings"],
    }


def run_ours(game: str, steps: int, seed: int, work: Path, extra: list[str]) -> dict:
    run_dir = work / "gorila"
    command = [
        sys.executable,
        "-m",
        "gorila",
        "train",
        "--preset",
        "pqn",
        "--env",
        game,
        "--total-frames",
        str(steps),
        "--seed",
        str(seed),
        "--run-dir",
        str(run_dir),
        *[f"--set={item}" for item in extra],
    ]
    seconds = timed(command)
    train = [r for r in read_metrics(run_dir) if r["kind"] == "train" and r.get("episodes_recent", 0) >= WINDOW]
    return {
        "seconds": seconds,
        "return": train[-1]["return_mean"] if train else float("nan"),
        "curve": [(r["env_frames"], r["return_mean"]) for r in train],
        "command": " ".join(command[1:]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="breakout", choices=GAMES)
    parser.add_argument("--steps", type=int, default=500_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--purejaxql", help="a checkout of purejaxql (default: clone it at the pinned commit)")
    parser.add_argument("--venv", default=str(Path.home() / ".cache" / "gorila" / "pqn-reference"))
    parser.add_argument("--set", action="append", default=[], help="KEY=VALUE for our run")
    parser.add_argument(
        "--reference-set",
        action="append",
        default=[],
        help="KEY=VALUE for the reference's settings (e.g. TEST_DURING_TRAINING=false: no greedy tests)",
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    venv = Path(args.venv)
    python, source = reference_python(venv), reference_source(args.purejaxql, venv.parent)
    theirs, ours_game = GAMES[args.game]
    with tempfile.TemporaryDirectory() as work:
        reference = run_reference(python, source, theirs, args.steps, args.seed, Path(work), args.reference_set)
        print(
            f"purejaxql PQN, {theirs}, {args.steps:,} steps: return {reference['return']:.2f} in "
            f"{reference['seconds']:.0f} s from launch",
            flush=True,
        )
        ours = run_ours(ours_game, args.steps, args.seed, Path(work), args.set)
        print(
            f"gorila --preset pqn, {ours_game}, {args.steps:,} frames: return {ours['return']:.2f} in "
            f"{ours['seconds']:.0f} s from launch",
            flush=True,
        )
    ratio = ours["seconds"] / reference["seconds"]
    print(
        f"time ratio (ours / reference): {ratio:.2f} (goal <= 0.8); return: {ours['return']:.2f} against "
        f"{reference['return']:.2f} (goal >=)"
    )
    out = Path(args.out or HERE / "results" / f"pqn-reference-{args.game}-{args.steps}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {
        "reference_set": args.reference_set,
        "set": args.set,
        "game": args.game,
        "steps": args.steps,
        "seed": args.seed,
        "time_ratio": ratio,
        "reference": reference,
        "ours": ours,
        "purejaxql_commit": PUREJAXQL_COMMIT if not args.purejaxql else None,
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
