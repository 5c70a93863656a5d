"""The long runs that the published results still wait for, one after another in RUNS_DIR, each on the
local runtime. A run saves its replay with each checkpoint (every 1M frames), so that a run an
interruption ended (the end of a working day) goes on with `gorila train --resume` from its latest
checkpoint and its experience: run the script again and it resumes the run that was cut, passes over
those that ended, and starts the next. Hours of two cores each; run it with nohup.

- Atari breadth, the atari-fast preset from launch: Pong on seed 1 (the preset was tuned on seed 0), to
  a confirmed DQN-protocol evaluation of 18 or its 10M frames; seed 1 again with Ape-X's epsilon ladder
  over the copies (0.4 ** (1 + 7 i / 31), mean 0.067, where the preset's first averaged 0.016), which
  took it to 18 and became the preset's, then seeds 0 and 2 with it; Breakout, Space Invaders and
  Seaquest for 10M frames with sticky actions 0.25, as Dopamine's published runs
  (benchmarks/reference/dopamine_*.tsv) have them (about 3 hours for each 10M frames); last, seed 1
  with a bfloat16 learner (`learner_precision`: does it learn as well per frame?).
- Rainbow: rainbow-minatar on the five MinAtar games, seed 1, 500k frames each, two at a time (a
  `gorila suite`, which itself passes over the games it finished); rainbow-dopamine (Dopamine's Rainbow)
  on Pong and Breakout for 5M frames, beside Dopamine's curves; the Impala network in atari-fast on
  Pong, seed 0, against the Nature network's runs of benchmarks/baselines/atari/.

A training run that ended is then compiled: `gorila evaluate` scores its best.pt on 100 episodes (DQN's
protocol, or Machado's where it trained with sticky actions) and `benchmarks/atari_baseline.py` writes
its curve, marks, evaluations and figure, beside Dopamine's, into benchmarks/baselines/atari/NAME.*.
A suite's results are compiled by hand (benchmarks/baselines/rainbow/README.md says how).

With --stop-by HH:MM the training run going at that time is stopped as Ctrl-C stops it (its checkpoint
and replay saved), and what it reached is compiled all the same, with a note saying where it stopped:
the machine may be gone before the run could go on, and a compiled run outlives it. Leave a margin
for the evaluation after it (100 episodes: minutes on Pong, more on long games). A run compiled so whose
directory is still here goes on when the script runs again; one whose directory is gone is passed over
(delete its compiled files to run it anew). SIGTERM to the script stops its training run the same way.

Usage: python benchmarks/long_runs.py [RUNS_DIR] [--only NAME ...] [--stop-by HH:MM] [--list]"""

from __future__ import annotations

import argparse
import datetime
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from atari_baseline import HERE, OUT, head_commit

from gorila.experiments.suite.plan import training_done
from gorila.records.metrics import read_metrics

REFERENCE = HERE / "reference"  # the published curves atari_baseline.py draws beside a run

KEPT = ["--runtime", "local", "--save-replay", "--set", "checkpoint_every_frames=1000000"]
STICKY = ["--sticky-actions", "0.25"]
PONG_TO_18 = ["--set", "stop_at_return=18"]
APEX_LADDER = ["--ladder-base", "0.4", "--ladder-alpha", "7"]  # Ape-X's rungs over the copies: mean 0.067
BF16 = ["--learner-precision", "bfloat16"]  # the learner's forward passes in bfloat16 (AVX-512 BF16 here)
MINATAR = "MinAtar/Asterix,MinAtar/Breakout,MinAtar/Freeway,MinAtar/Seaquest,MinAtar/SpaceInvaders"
# name: (preset, game, seed, what else) of a training run; Breakout needs FIRE after a lost life (the
# atari-fast preset's comment)
RUNS = {
    "pong-atari-fast-seed1": ("atari-fast", "Pong", 1, PONG_TO_18),
    "pong-atari-fast-apex-ladder-seed1": ("atari-fast", "Pong", 1, [*PONG_TO_18, *APEX_LADDER]),
    "pong-atari-fast-apex-ladder-seed0": ("atari-fast", "Pong", 0, [*PONG_TO_18, *APEX_LADDER]),
    "pong-atari-fast-apex-ladder-seed2": ("atari-fast", "Pong", 2, [*PONG_TO_18, *APEX_LADDER]),
    "pong-atari-fast-apex-ladder-bf16-seed1": ("atari-fast", "Pong", 1, [*PONG_TO_18, *APEX_LADDER, *BF16]),
    "breakout-atari-fast-sticky-seed0": ("atari-fast", "Breakout", 0, [*STICKY, "--set", "fire_reset=true"]),
    "spaceinvaders-atari-fast-sticky-seed0": ("atari-fast", "SpaceInvaders", 0, STICKY),
    "seaquest-atari-fast-sticky-seed0": ("atari-fast", "Seaquest", 0, STICKY),
    "pong-rainbow-dopamine-seed0": ("rainbow-dopamine", "Pong", 0, ["--total-frames", "5000000"]),
    "breakout-rainbow-dopamine-seed0": ("rainbow-dopamine", "Breakout", 0, ["--total-frames", "5000000"]),
    "pong-atari-fast-impala-seed0": ("atari-fast", "Pong", 0, [*PONG_TO_18, "--set", "network=impala_cnn"]),
}
# name: the `gorila suite` arguments of a suite, which goes on with its games left when started again
SUITES = {
    "minatar-rainbow-500k-seed1": [
        "--games", MINATAR, "--preset", "rainbow-minatar", "--seeds", "1", "--frames-per-game", "500000",
        "--runtime", "local", "--parallel", "2", "--set", "torch_threads=1", "--set", "eval_every_frames=100000",
        "--set", "stop_when_solved=false",
    ],
}  # fmt: skip
# name: the command as it was typed, for a run started by hand before this queue took it over
AS_TYPED = {
    "pong-atari-fast-seed1": "gorila train --preset atari-fast --env Pong --seed 1 --save-replay --run-dir RUN; "
    "gorila train --resume RUN after each stop, from 0.78M frames with --set stop_at_return=18 "
    "--set checkpoint_every_frames=1000000",
}
# Ape-X's ladder (the preset's since seed 1 learned with it) on seed 2, then the three games, which the
# published comparison with Dopamine waits for, then seed 0 again (the rule for a changed preset)
# and Rainbow; the bfloat16 learner's run last (a speed option, not the preset's).
FIRST = ["pong-atari-fast-apex-ladder-seed1", "pong-atari-fast-seed1", *SUITES, "pong-atari-fast-apex-ladder-seed2"]
FIRST += [
    "breakout-atari-fast-sticky-seed0",
    "spaceinvaders-atari-fast-sticky-seed0",
    "seaquest-atari-fast-sticky-seed0",
]
FIRST += ["pong-atari-fast-apex-ladder-seed0"]
LAST = ["pong-atari-fast-apex-ladder-bf16-seed1"]
ORDER = [*FIRST, *(name for name in RUNS if name not in FIRST + LAST), *LAST]


def state(name: str, run_dir: Path) -> str:
    """'new' (nothing run), 'cut' (to be resumed) or 'done': a training run whose summary says budget or
    solved, a suite that once ended well (its DONE file)."""
    if name in SUITES:
        return "done" if (run_dir / "DONE").is_file() else "cut" if run_dir.is_dir() else "new"
    if not (run_dir / "config.yaml").is_file():
        return "new"
    return "done" if training_done(run_dir, frames=0) else "cut"  # budget or solved, as a suite's game


def command(name: str, run_dir: Path, how: str) -> list[str]:
    """The `gorila` command that starts `name` (how 'new') or goes on with it (how 'cut')."""
    gorila = [sys.executable, "-m", "gorila"]
    if name in SUITES:
        return [*gorila, "suite", *SUITES[name], "--out", str(run_dir)]
    preset, game, seed, extra = RUNS[name]
    if how == "cut":  # its own settings again: a run started by hand before them gets them too
        return [*gorila, "train", "--resume", str(run_dir), *extra]
    return [
        *gorila,
        "train",
        "--preset",
        preset,
        "--env",
        game,
        "--seed",
        str(seed),
        *KEPT,
        *extra,
        "--run-dir",
        str(run_dir),
    ]


def as_typed(name: str, run_dir: Path) -> str:
    """The command that made `name`, as a user types it, with RUN for its run directory, and the
    resumes its metrics record."""
    if name in AS_TYPED:
        return AS_TYPED[name]
    typed = " ".join(["gorila", *command(name, Path("RUN"), "new")[3:]])
    for resume in resumes(run_dir):
        typed += f"; gorila train --resume RUN {' '.join(RUNS[name][3])} at {resume['env_frames']:,} frames"
    return typed


def resumes(run_dir: Path) -> list[dict]:
    """The run's resume records (gorila writes one each time it goes on from a checkpoint); none before
    it has metrics."""
    if not (run_dir / "metrics.jsonl").is_file():
        return []
    return [r for r in read_metrics(run_dir) if r["kind"] == "resume"]


STARTED = "long_runs: started at commit "  # the line that NAME.log gets as each command of a run starts


def started(log: Path) -> str:
    """The commits the run's commands ran (its NAME.log's lines), in order, each once: what the compiled
    file names as the run's commit, rather than the commit it is compiled at."""
    lines = log.read_text().splitlines() if log.is_file() else []
    commits = [line.removeprefix(STARTED).split()[0] for line in lines if line.startswith(STARTED)]
    return ", then ".join(dict.fromkeys(commits)) or head_commit()


def compiled(name: str) -> Path:
    """Where `name` is compiled: benchmarks/baselines/atari/NAME.json."""
    return OUT / f"{name}.json"


def compile_commands(name: str, run_dir: Path, note: str = "") -> list[list[str]]:
    """`gorila evaluate` of the run's best.pt on 100 episodes (kept in the run directory), then
    benchmarks/atari_baseline.py with Dopamine's DQN and Rainbow curves of its game where there are,
    and `note` (why it ended where it did) when given."""
    game = RUNS[name][1].lower()
    evaluation = run_dir / "best-100-episodes.json"
    references = [f.name for f in sorted(REFERENCE.glob(f"dopamine_*_{game}.tsv"))]
    return [
        [sys.executable, "-m", "gorila", "evaluate", str(run_dir), "--episodes", "100", "--json", str(evaluation)],
        [sys.executable, str(HERE / "atari_baseline.py"), str(run_dir), "--name", name]
        + ["--command", as_typed(name, run_dir), "--commit", started(run_dir.parent / f"{name}.log")]
        + ["--evaluation", str(evaluation), *(["--reference", *references] if references else [])]
        + (["--note", note] if note else []),
    ]


def compile_run(name: str, run_dir: Path, log, note: str = "") -> int:
    """Evaluate and compile a training run that ended (or was stopped: `note` says where); 0 when both
    steps did."""
    for argv in compile_commands(name, run_dir, note):
        code = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT).returncode
        if code != 0:
            return code
    return 0


def deadline(text: str) -> float:
    """The next HH:MM on this machine's clock, as a time.time() value."""
    now = datetime.datetime.now()
    try:
        hour, minute = (int(part) for part in text.split(":"))
        at = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--stop-by takes a time of day as HH:MM, not {text!r}") from None
    return (at if at > now else at + datetime.timedelta(days=1)).timestamp()


def run_until(argv: list[str], log, stop_by: float | None) -> tuple[int, bool]:
    """Run `argv` to its end, or to `stop_by`, when it gets SIGTERM (gorila train saves its checkpoint
    and replay, then exits 130); SIGTERM to this script is passed on to it the same way, even one that
    comes while it starts. Returns its exit code and whether the deadline stopped it."""
    process, asked = None, []

    def pass_on(*_):
        asked.append(True)
        if process is not None:
            process.send_signal(signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, pass_on)
    try:
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        if asked:
            process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=None if stop_by is None else max(0.0, stop_by - time.time())), False
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGTERM)
            return process.wait(), True
    finally:
        signal.signal(signal.SIGTERM, previous)


def stopped_note(run_dir: Path, stop_by: str) -> str:
    """The compiled note of a run stopped by --stop-by: its frames then, and its best evaluation."""
    records = read_metrics(run_dir) if (run_dir / "metrics.jsonl").is_file() else []
    frames = max((r.get("env_frames", 0) for r in records), default=0)
    means = [r["eval_return_mean"] for r in records if "eval_return_mean" in r]
    best = f" (best evaluation during training {max(means):.1f})" if means else ""
    return f"stopped at {frames / 1e6:.2f}M frames by long_runs --stop-by {stop_by}{best}, before its budget or target"


def passed_over(name: str, run_dir: Path, how: str) -> str | None:
    """Why `name` is not run now, or None: an ended run compiled, a suite done, or a compiled run whose
    directory is gone (one compiled when it was stopped would start again from launch)."""
    if how == "done" and (name in SUITES or compiled(name).is_file()):
        return "ended and compiled"
    if how == "new" and name in RUNS and compiled(name).is_file():
        note = json.loads(compiled(name).read_text()).get("note") or "ended"
        return f"compiled ({note}); its run directory is not here"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="?", type=Path, default=Path("runs/long"))
    parser.add_argument("--only", nargs="+", choices=ORDER, default=ORDER)
    parser.add_argument("--stop-by", metavar="HH:MM", help="stop the training run then, and compile what it reached")
    parser.add_argument("--list", action="store_true", help="say where each run stands and start nothing")
    args = parser.parse_args(argv)
    try:
        stop_by = None if args.stop_by is None else deadline(args.stop_by)
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    args.runs.mkdir(parents=True, exist_ok=True)
    for name in args.only:
        if stop_by is not None and time.time() >= stop_by and not args.list:
            print(f"long_runs: past --stop-by {args.stop_by}: {name} and those after it wait", flush=True)
            return 0
        run_dir = args.runs / name
        how = state(name, run_dir)
        why = passed_over(name, run_dir, how)
        print(f"long_runs: {name}: {how}" + (f", passed over: {why}" if why else ""), flush=True)
        if args.list or why:
            continue
        with open(args.runs / f"{name}.log", "a") as log:
            code, stopped = 0, False
            if how != "done":
                print(f"{STARTED}{head_commit()} ({how})", file=log, flush=True)
                code, stopped = run_until(command(name, run_dir, how), log, stop_by)
            if (code == 0 or stopped) and name in RUNS:
                note = stopped_note(run_dir, args.stop_by) if stopped else ""
                print(f"long_runs: {name}: evaluating best.pt and compiling {compiled(name)} {note}", flush=True)
                code = compile_run(name, run_dir, log, note) or (130 if stopped else 0)
        if code != 0:  # interrupted (130), stopped by --stop-by or failed: the rest wait for the next call
            print(f"long_runs: {name} ended with exit code {code}; run the script again to go on", flush=True)
            return code
        if name in SUITES:
            (run_dir / "DONE").touch()
    return 0


if __name__ == "__main__":
    sys.exit(main())
