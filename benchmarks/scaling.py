"""The price of parallelism: the frames N bundles need to reach a score, against one bundle's.

Gorila's claim (Nair et al. 2015) is wall time: N bundles on N machines reach a score sooner. On a
machine of a few cores the wall time of N machines cannot be measured, but the frames cannot tell
the difference: N bundles time-sharing the cores on the real Ray runtime see the same asynchrony, in
parameter-server versions, as N machines would give them. So each (N, seed) is trained from launch
until the training mean of the last 100 episodes reaches `--score` (or the budget ends), and

    F_N = the frames all actors together took to the score (the median over seeds),
    price = F_N / F_1,    predicted wall time on N machines = F_N / (N * fps_N),

fps_N being the frames/s of one bundle set up as each of the N is (its share of the preset's copies;
its parameter shard in another process, so that it pays the round trips N - 1 of the N bundles pay),
alone on this machine: measured in a run of --fps-frames frames (fps_1 is the N = 1 runs' own). A
price of 1 is a speed-up of N when fps_N = fps_1. Writes
DIR/results.json (every run under "runs", every N under "by_bundles"), DIR/results.md and
DIR/scaling.png (the training return by frames and by the predicted wall time on N machines). Runs
already in DIR/results.json with the same settings are kept, so a study cut short goes on where it
stopped when the same command is run again, and a run stopped by hand (SIGTERM to its `gorila
train`) counts as far as it went. Runs are checkpointed only when asked (`--set
checkpoint_every_frames=F`, and `--set save_replay=true` to keep the replay): a run that has a checkpoint
but never finished (the script itself was ended, e.g. a long Atari run at the end of a working day)
goes on from that checkpoint with `gorila train --resume` when the command is run again.

Usage: python benchmarks/scaling.py --preset pqn --env MinAtar/Breakout-v0 --bundles 1,2,4,8,16
       --score 8 --seeds 0,1 [--topology bundled|global] [--learners L] [--frames-cap F] [--set k=v ...]
       --out DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

INTERRUPTED = 130  # gorila train's exit code after Ctrl-C or SIGTERM, with its final checkpoint written
WINDOW = 100  # the training mean is over the last 100 episodes, as MinAtar's and DQN's curves


class OneLineParser(argparse.ArgumentParser):
    """Refuses a bad argument in one line (argparse prints the whole usage first)."""

    def error(self, message: str):
        print(f"scaling.py: {message}", file=sys.stderr)
        sys.exit(2)


def whole_numbers(least: int, what: str):
    """An argparse type: distinct whole numbers >= `least`, separated by commas (`what` names them)."""

    def parse(text: str) -> list[int]:
        try:
            values = [int(item) for item in text.split(",") if item.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what} separated by commas, got {text!r}") from None
        if not values or min(values) < least or len(set(values)) != len(values):
            raise argparse.ArgumentTypeError(f"expected distinct {what} >= {least}, got {text!r}")
        return values

    return parse


def positive_int(text: str) -> int:
    try:
        value = int(float(text.replace("_", "")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {text!r}")
    return value


def parse_args(argv=None) -> argparse.Namespace:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", required=True, help="the preset every run starts from")
    parser.add_argument("--env", required=True, help="the environment (Pong, MinAtar/Breakout-v0, ...)")
    parser.add_argument(
        "--bundles",
        required=True,
        type=lambda text: sorted(whole_numbers(1, "bundle counts")(text)),
        help="bundle (actor) counts, e.g. 1,2,4,8",
    )
    parser.add_argument("--score", required=True, type=float, help="the training mean of 100 episodes to reach")
    parser.add_argument("--seeds", default=[0], type=whole_numbers(0, "seeds"), help="seeds, e.g. 0,1 (default 0)")
    parser.add_argument(
        "--topology",
        default="bundled",
        choices=("bundled", "global"),
        help="bundled: N bundles (the paper); global: N actors, one global replay and --learners learners (Ape-X)",
    )
    parser.add_argument("--learners", type=positive_int, default=1, help="learners of the global topology")
    parser.add_argument("--frames-cap", type=positive_int, help="each run's budget in frames (default: the preset's)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config field (repeatable)")
    parser.add_argument("--out", required=True, help="folder of results.json, results.md and scaling.png")
    parser.add_argument(
        "--fps-frames", type=positive_int, default=100_000, help="frames of each one-bundle throughput run (fps_N)"
    )
    parser.add_argument("--runs", help="folder of the run directories (default: one under the system's temp folder)")
    args = parser.parse_args(argv)
    check(parser, args)
    return args


def check(parser: OneLineParser, args: argparse.Namespace) -> None:
    """What argparse cannot see: the preset, the environment, the --set fields, the topology."""
    from gorila.config import ConfigError
    from gorila.config.parsing import build_config
    from gorila.envs.registry import resolve_env

    for item in args.set:
        if "=" not in item or not item.split("=", 1)[0].strip():
            parser.error(f"--set takes KEY=VALUE, got {item!r}")
    if args.topology == "bundled" and args.learners != 1:
        parser.error("--learners is for --topology global (a bundle has its own learner)")
    if args.topology == "global" and args.learners > min(args.bundles):
        parser.error(f"--learners {args.learners} is more than the fewest actors ({min(args.bundles)})")
    overrides = dict(item.split("=", 1) for item in args.set)
    try:
        for bundles in (min(args.bundles), max(args.bundles)):
            config = build_config(preset=args.preset, overrides={**topology_fields(args, bundles), **overrides})
            resolve_env(config.env)
    except (ConfigError, ValueError) as error:
        parser.error(str(error).splitlines()[0])
    except Exception as error:  # an environment that does not resolve names itself in its message
        parser.error(f"{type(error).__name__}: {str(error).splitlines()[0]}")


def topology_fields(args: argparse.Namespace, bundles: int) -> dict:
    """The config fields that place `bundles` bundles (or actors) on Ray, one torch thread each."""
    fields = {
        "env": args.env,
        "runtime": "ray",
        "actors": str(bundles),
        "torch_threads": "1",
        "stop_at_train_return": str(args.score),
        "eval_every_frames": "0",
        "checkpoint_every_frames": "0",
        "log_every_seconds": "1",
    }
    if args.frames_cap:
        fields["total_frames"] = str(args.frames_cap)
    if args.topology == "bundled":
        fields["learners"] = str(bundles)
    else:
        fields.update(bundled="false", replay="global", learners=str(args.learners))
    return fields


def run_key(bundles: int, seed: int) -> str:
    return f"{bundles}-{seed}"


def train(args: argparse.Namespace, fields: dict, run_dir: Path, resume: bool = False) -> tuple[int, str]:
    """One `gorila train` with `fields` set, from launch or (`resume`) from the run's latest checkpoint;
    its exit code and the tail of its output."""
    fields = {**fields, "run_dir": str(run_dir)}
    command = [sys.executable, "-m", "gorila", "train", "--preset", args.preset]
    command += [f"--set={key}={value}" for key, value in fields.items() if key != "env"]
    command += ["--env", args.env, *[f"--set={item}" for item in args.set]]
    if resume:  # the run's own config, as saved: nothing to set again
        command = [sys.executable, "-m", "gorila", "train", "--resume", str(run_dir)]
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    with open(run_dir.parent / f"{run_dir.name}.log", "a" if resume else "w") as log:
        code = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, env=env).returncode
    return code, (run_dir.parent / f"{run_dir.name}.log").read_text()[-1500:]


def measured(run_dir: Path, score: float) -> dict:
    """What a finished run says: the frames to the score, its curve, staleness, updates and times."""
    from gorila.records.metrics import read_metrics

    records = read_metrics(run_dir)
    trains = [r for r in records if r["kind"] == "train"]
    summary = next((r for r in records if r["kind"] == "summary"), {})
    curve = [(r["env_frames"], round(r["return_mean"], 3)) for r in trains if r.get("episodes_recent", 0) >= WINDOW]
    reached = next((r for r in trains if r.get("episodes_recent", 0) >= WINDOW and r["return_mean"] >= score), None)
    last = trains[-1] if trains else {}
    at = reached or last
    return {
        "frames_to_score": reached["env_frames"] if reached else None,
        "seconds_to_score": reached["wall_time"] if reached else None,
        "updates": at.get("updates"),
        "mean_staleness": at.get("ps_mean_staleness"),
        "p95_staleness": at.get("ps_staleness_p95"),
        "discarded": at.get("ps_discarded"),
        "frames": summary.get("env_frames", last.get("env_frames")),
        "wall_time": summary.get("wall_time", last.get("wall_time")),
        "stop_reason": summary.get("stop_reason"),
        "fps": throughput(run_dir),
        "final_return": last.get("return_mean"),
        "curve": curve,
    }


def by_bundles(runs: dict, bundle_counts: list[int], seeds: list[int]) -> dict:
    """Per N: the median frames to the score over the seeds (None if a seed never reached it), its price
    against N = 1, the speed-up that price allows (N / price), and, from fps_N, the predicted time to the
    score on N machines and the speed-up it predicts over one."""
    table = {str(bundles): {} for bundles in bundle_counts}
    for bundles, row in table.items():
        frames = [runs.get(run_key(int(bundles), seed), {}).get("frames_to_score") for seed in seeds]
        row.update(frames_to_score=None if None in frames else median(frames), seeds=frames)
        row["mean_staleness"] = _median_of(runs, int(bundles), seeds, "mean_staleness")
        row["p95_staleness"] = _median_of(runs, int(bundles), seeds, "p95_staleness")
        row["bundle_fps"] = one_bundle_fps(runs, seeds) if bundles == "1" else runs.get(f"fps-{bundles}", {}).get("fps")
        fps, reached = row["bundle_fps"], row["frames_to_score"]
        row["predicted_seconds"] = round(reached / (int(bundles) * fps), 1) if fps and reached else None
    first = table.get("1", {})
    for bundles, row in table.items():
        price = (
            row["frames_to_score"] / first["frames_to_score"]
            if first.get("frames_to_score") and row["frames_to_score"]
            else None
        )
        row["price"] = round(price, 3) if price else None
        row["speedup_at_fps_1"] = round(int(bundles) / price, 2) if price else None
        seconds = (first.get("predicted_seconds"), row["predicted_seconds"])
        row["predicted_speedup"] = round(seconds[0] / seconds[1], 2) if all(seconds) else None
    return table


def _median_of(runs: dict, bundles: int, seeds: list[int], key: str):
    values = [runs.get(run_key(bundles, seed), {}).get(key) for seed in seeds]
    values = [value for value in values if value is not None]
    return round(median(values), 2) if values else None


def one_bundle_fps(runs: dict, seeds: list[int]) -> float | None:
    """fps_1: one bundle's median frames/s on this machine (None without an N = 1 run)."""
    values = [runs[run_key(1, seed)]["fps"] for seed in seeds if runs.get(run_key(1, seed), {}).get("fps")]
    return median(values) if values else None


def bundle_fields(args: argparse.Namespace, bundles: int) -> dict:
    """One bundle set up as each of `bundles` is (the shares of the preset's totals it takes), alone,
    with its parameter shard in a process of its own, for `--fps-frames` frames."""
    from gorila.config.parsing import build_config
    from gorila.config.presets import SHARED_BY_ACTORS, SHARED_IN_ROUNDS

    overrides = dict(item.split("=", 1) for item in args.set)
    config = build_config(preset=args.preset, overrides={**topology_fields(args, bundles), **overrides})
    keys = SHARED_BY_ACTORS.get(args.preset, ()) + SHARED_IN_ROUNDS.get(args.preset, ())
    shared = {key: str(getattr(config, key)) for key in keys}
    return {
        **topology_fields(args, 1),
        **shared,
        "shard_placement": "apart" if bundles > 1 else "auto",
        "total_frames": str(args.fps_frames),
        "stop_at_train_return": "0",
        "seed": "0",
    }


def throughput(run_dir: Path) -> float | None:
    """The median frames/s of a run's train records past its first fifth of frames (start-up)."""
    from gorila.records.metrics import read_metrics

    trains = [r for r in read_metrics(run_dir) if r["kind"] == "train" and r.get("fps")]
    if not trains:
        return None
    settled = [r["fps"] for r in trains if r["env_frames"] >= 0.2 * trains[-1]["env_frames"]] or [trains[-1]["fps"]]
    return median(settled)


def settings(args: argparse.Namespace) -> dict:
    """What makes two studies comparable: a kept run is reused only under the same settings."""
    return {
        "preset": args.preset,
        "env": args.env,
        "score": args.score,
        "topology": args.topology,
        "learners": args.learners if args.topology == "global" else None,
        "frames_cap": args.frames_cap,
        "set": list(args.set),
    }


def git_commit() -> str | None:
    try:
        here = Path(__file__).resolve().parent
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=here, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def machine() -> str:
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} {platform.python_version()}"
    )


def duration(seconds: float) -> str:
    return f"{seconds:,.0f} s" if seconds < 600 else f"{seconds / 60:,.1f} min"


def write_markdown(result: dict, path: Path) -> None:
    setup = result["settings"]
    lines = [
        f"# Scaling: {setup['preset']} on {setup['env']}, training mean of {WINDOW} episodes >= {setup['score']:g}",
        "",
        f"Topology {setup['topology']}"
        + (f" ({setup['learners']} learners)" if setup["learners"] else "")
        + f"; seeds {', '.join(map(str, result['seeds']))}; budget "
        + (f"{setup['frames_cap']:,} frames" if setup["frames_cap"] else "the preset's")
        + (f"; --set {' '.join(setup['set'])}" if setup["set"] else "")
        + f". Commit {result['commit']}, {result['machine']}, {result['date']}.",
        "",
        f"`{result['command']}`",
        "",
        "| N | F_N: median frames to the score | each seed | price F_N / F_1 | N / price | fps_N | "
        "predicted time on N machines | predicted speed-up | staleness mean / p95 (versions) |",
        "|---:|---:|---|---:|---:|---:|---:|---:|---|",
    ]
    for bundles, row in result["by_bundles"].items():
        frames, fps, seconds = row["frames_to_score"], row["bundle_fps"], row["predicted_seconds"]
        seeds = ", ".join("never" if f is None else f"{f:,}" for f in row["seeds"])
        lines.append(
            f"| {bundles} | {f'{frames:,.0f}' if frames else 'not reached'} | {seeds} | {row['price'] or '-'} "
            f"| {row['speedup_at_fps_1'] or '-'} | {f'{fps:,.0f}' if fps else '-'} "
            f"| {duration(seconds) if seconds else '-'} | {row['predicted_speedup'] or '-'} "
            f"| {row['mean_staleness']} / {row['p95_staleness']} |"
        )
    lines += [
        "",
        "F_N: frames of all actors together until the training mean of the last 100 episodes first reached "
        "the score, from launch on Ray (N bundles sharing this machine's cores). fps_N: frames/s of one bundle "
        "set up as each of the N is, alone on this machine (N = 1: the N = 1 runs' median). Predicted time on "
        "N machines: F_N / (N fps_N), as long as the parameter server keeps up; its speed-up is over N = 1's.",
        "",
    ]
    path.write_text("\n".join(lines))


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    setup, table = result["settings"], result["by_bundles"]
    figure, (by_frames, by_time) = plt.subplots(1, 2, figsize=(12, 4.5))
    colours = plt.get_cmap("viridis")
    studied = [run for run in result["runs"].values() if "bundles" in run]  # not the fps_N runs
    counts = sorted({run["bundles"] for run in studied})
    longest = max((row["predicted_seconds"] or 0 for row in table.values()), default=0)
    unit, per = ("minutes", 60) if longest > 600 else ("seconds", 1)
    for run in sorted(studied, key=lambda r: (r["bundles"], r["seed"])):
        if not run["curve"]:
            continue
        bundles = run["bundles"]
        colour = colours(counts.index(bundles) / max(len(counts) - 1, 1))
        frames, returns = zip(*run["curve"])
        first_seed = run["seed"] == result["seeds"][0]
        style, label = ("-", f"N = {bundles}") if first_seed else ("--", None)
        by_frames.plot(frames, returns, style, color=colour, label=label)
        fps = table.get(str(bundles), {}).get("bundle_fps")
        if fps:
            by_time.plot([f / (bundles * fps) / per for f in frames], returns, style, color=colour, label=label)
    for axes in (by_frames, by_time):
        axes.axhline(setup["score"], color="grey", lw=0.8, ls=":")
        axes.grid(alpha=0.3)
        axes.set_ylabel(f"training mean of the last {WINDOW} episodes")
        if axes.get_legend_handles_labels()[0]:
            axes.legend(loc="lower right", fontsize=8)
    seeds = ", ".join(map(str, result["seeds"]))
    by_frames.set_xlabel("frames, all actors together")
    by_frames.set_title(f"{setup['preset']}, {setup['env']} (seeds {seeds}; dashed: the later ones)", fontsize=10)
    by_time.set_xlabel(f"predicted {unit} on N machines, frames / (N fps_N)")
    by_time.set_title("by the predicted wall time on N machines", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def compile_results(args: argparse.Namespace, runs: dict, out: Path) -> dict:
    result = {
        "command": "python benchmarks/scaling.py " + " ".join(sys.argv[1:]),
        "settings": settings(args),
        "commit": git_commit(),
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d"),
        "bundles": args.bundles,
        "seeds": args.seeds,
        "runs": runs,
        "fps_1": one_bundle_fps(runs, args.seeds),
        "by_bundles": by_bundles(runs, args.bundles, args.seeds),
    }
    (out / "results.json").write_text(json.dumps(result, indent=1))
    write_markdown(result, out / "results.md")
    plot(result, out / "scaling.png")
    return result


def kept_runs(out: Path, args: argparse.Namespace) -> dict:
    """The runs of an earlier call with the same settings (a study goes on where it stopped)."""
    path = out / "results.json"
    if not path.is_file():
        return {}
    try:
        earlier = json.loads(path.read_text())
    except ValueError:
        return {}
    return earlier.get("runs", {}) if earlier.get("settings") == settings(args) else {}


def default_runs_dir(out: Path) -> Path:
    """Run directories stay out of the compiled folder (it is committed; they are not)."""
    name = hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / "gorila-scaling" / f"{out.resolve().name}-{name}"


def run_once(args, runs: dict, key: str, fields: dict, run_dir: Path, what: str) -> bool:
    """One run (kept from an earlier call where it is already in `runs`); False if it failed."""
    if key in runs:
        print(f"{what}: kept from the earlier results.json", flush=True)
        return True
    if finished(run_dir):  # it ended (this script did not live to record it): nothing to train again
        runs[key] = measured(run_dir, args.score)
        print(f"{what}: kept from its run directory: {summary_of(runs[key], args.score)}", flush=True)
        return True
    resume = has_checkpoint(run_dir)
    if resume:  # a long run cut short (this script ended with it) goes on from its latest checkpoint
        print(f"{what}: resuming from its latest checkpoint ({run_dir})", flush=True)
    else:  # one without a checkpoint starts again from launch
        shutil.rmtree(run_dir, ignore_errors=True)
        print(f"{what}: training ({run_dir})", flush=True)
    start = time.time()
    code, tail = train(args, fields, run_dir, resume)
    if code not in (0, INTERRUPTED):
        print(f"{what}: gorila train exited {code}:\n{tail}", file=sys.stderr)
        return False
    runs[key] = measured(run_dir, args.score)  # a run stopped by a signal counts as far as it went
    print(f"{what}: {summary_of(runs[key], args.score)} ({time.time() - start:.0f} s)", flush=True)
    return True


def finished(run_dir: Path) -> bool:
    """Did the run in `run_dir` end, other than by an interruption (its metrics' last summary)? An
    interrupted one (Ctrl-C, SIGTERM) wrote its final checkpoint and goes on from it."""
    from gorila.records.metrics import read_metrics

    if not run_dir.is_dir():
        return False
    summaries = [r for r in read_metrics(run_dir) if r["kind"] == "summary"]
    return bool(summaries) and not summaries[-1].get("interrupted")


def has_checkpoint(run_dir: Path) -> bool:
    """Does `run_dir` hold a training checkpoint (a run given --set checkpoint_every_frames=F)?"""
    from gorila.records.checkpoints import training_checkpoints

    return run_dir.is_dir() and bool(training_checkpoints(run_dir))


def summary_of(run: dict, score: float) -> str:
    reached = f"{run['frames_to_score']:,} frames" if run["frames_to_score"] else "never"
    return (
        f"score {score:g} at {reached}, {run['fps'] or 0:,.0f} frames/s; staleness mean "
        f"{run['mean_staleness'] or 0:.1f}, p95 {run['p95_staleness']}"
    )


def main(argv=None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs_dir = Path(args.runs) if args.runs else default_runs_dir(out)
    runs_dir.mkdir(parents=True, exist_ok=True)
    runs = kept_runs(out, args)
    for bundles in args.bundles:
        for seed in args.seeds:
            key, fields = run_key(bundles, seed), {**topology_fields(args, bundles), "seed": str(seed)}
            if not run_once(
                args, runs, key, fields, runs_dir / f"n{bundles}-seed{seed}", f"N = {bundles}, seed {seed}"
            ):
                return 1
            runs[key].update(bundles=bundles, seed=seed)
            compile_results(args, runs, out)
        if bundles > 1 and args.topology == "bundled":
            what = f"fps_{bundles}, one bundle set up as each of {bundles}"
            if not run_once(
                args, runs, f"fps-{bundles}", bundle_fields(args, bundles), runs_dir / f"fps{bundles}", what
            ):
                return 1
            compile_results(args, runs, out)
    result = compile_results(args, runs, out)
    for bundles, row in result["by_bundles"].items():
        print(
            f"N = {bundles}: F_N {row['frames_to_score']}, price {row['price']}, "
            f"predicted speed-up on {bundles} machines {row['predicted_speedup']}"
        )
    print(f"wrote {out / 'results.json'}, results.md and scaling.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
