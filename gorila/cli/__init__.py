"""`gorila train | evaluate | record-starts | suite | report | bench`: the command line, generated from `Config`.

Every config field is a flag (`--total-frames`, `--bundled/--no-bundled`, ...) whose help is the
field's docstring; `--preset`, `--config FILE` and `--set KEY=VALUE` layer on top in that order.
Errors a user can cause end with one line and exit code 2, never a traceback.
"""
from __future__ import annotations

import time

LAUNCHED = time.time()     # metrics count wall time from here: what a user waits includes start-up

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import typing  # noqa: E402
from pathlib import Path  # noqa: E402

from gorila.config import (PRESETS, Config, ConfigError, build_config, field_docs, field_types,  # noqa: E402
                           scaled_preset)
from gorila.records.run_dirs import claim_run_dir, remove_if_empty  # noqa: E402

USAGE_ERROR = 2


class UserError(Exception):
    """Something the user can fix; printed as one line."""


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (the full usage is a screen long)."""

    def error(self, message):
        raise UserError(f"{message} (see `{self.prog} --help`)")


def add_config_flags(parser: argparse.ArgumentParser) -> None:
    docs, types = field_docs(), field_types()
    group = parser.add_argument_group("config fields (override the preset and the config file)")
    for name, kind in types.items():
        flag = "--" + name.replace("_", "-")
        help_text = docs.get(name, "") + f" [default: {getattr(Config(), name)!r}]"
        if kind is bool:
            group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text)
        elif typing.get_origin(kind) is typing.Literal:
            group.add_argument(flag, dest=name, choices=typing.get_args(kind), default=None, help=help_text)
        else:
            group.add_argument(flag, dest=name, default=None, metavar=name.upper(), help=help_text)


def build_parser() -> Parser:
    parser = Parser(prog="gorila", description="Gorila: massively parallel DQN (Nair et al., 2015).")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    train = commands.add_parser("train", help="train an agent", description="Train a Gorila DQN agent.")
    train.add_argument("--preset", choices=sorted(PRESETS), help="start from a preset (cartpole, atari, gorila-paper)")
    train.add_argument("--scale", type=float, metavar="F", default=None,
                       help="run the preset on a cluster F times its size: bundles and shards times F, theta-'s "
                            "period in server updates by the learners' ratio (e.g. --preset gorila-paper --scale "
                            "0.02: 2 bundles, 1 shard, theta- every 1,200)")
    train.add_argument("--config", metavar="FILE", help="YAML file of config fields")
    train.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                       help="override any config field (repeatable)")
    train.add_argument("--resume", metavar="RUN_DIR",
                       help="continue the run in RUN_DIR from its latest good checkpoint (its config, "
                            "with any fields given here changed, e.g. a larger --total-frames)")
    add_config_flags(train)
    evaluate = commands.add_parser("evaluate", help="evaluate a checkpoint under an evaluation protocol")
    evaluate.add_argument("path", help="run directory (its best checkpoint, else its latest) or checkpoint file")
    evaluate.add_argument("--protocol", choices=["noop", "human-starts", "machado"], default="noop",
                          help="noop: up to 30 no-ops, 18,000 frames; human-starts: from --starts points, "
                               "108,000 frames; machado: sticky actions 0.25, 18 actions, 108,000 frames")
    evaluate.add_argument("--starts", metavar="FILE", help="start points for human-starts (gorila record-starts)")
    evaluate.add_argument("--max-frames", type=int, default=None, help="frame cap per episode (default: the protocol's)")
    evaluate.add_argument("--episodes", type=int, default=None,
                          help="episodes (default: one per start point, else the run's eval_episodes)")
    evaluate.add_argument("--epsilon", type=float, default=None, help="exploration rate (default: the run's eval_epsilon)")
    evaluate.add_argument("--seed", type=int, default=None, help="evaluation seed")
    evaluate.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    add_record_starts(commands)
    add_suite_parser(commands)
    report = commands.add_parser("report", help="plots and an HTML page of runs and suites",
                                 description="Plots (return vs frames and wall time; per-game bars of a suite), "
                                             "index.html and a summary of runs and suite directories.")
    report.add_argument("runs", nargs="+", metavar="RUN", help="run or suite directories")
    report.add_argument("--out", metavar="DIR", help="report directory (default: RUN/report for one RUN)")
    report.add_argument("--video", action="store_true", help="record an evaluation episode of each run (MP4 or GIF)")
    report.add_argument("--episodes", type=int, default=None,
                        help="episodes of the final evaluation when no suite stored one (default: the run's eval_episodes)")
    bench = commands.add_parser("bench", help="measure each stage against its own limit (ratios, minutes)",
                                description="Measure each stage of Gorila against its own limit, side by side.")
    bench.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    bench.add_argument("--sections", nargs="+", metavar="NAME", default=None,
                       help="some of: actor learner server replay end_to_end memory (default: all), scaling")
    bench.add_argument("--seconds", type=float, default=10.0, help="measuring window of each rate (default 10)")
    bench.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where the learner benchmark runs")
    return parser


def add_record_starts(commands) -> None:
    record = commands.add_parser("record-starts", help="record start points for --protocol human-starts")
    record.add_argument("--env", required=True, help="Atari game (Pong, ALE/Pong-v5, ...)")
    record.add_argument("--out", required=True, metavar="FILE", help="start-point file to write (JSON)")
    record.add_argument("--count", type=int, default=100, help="start points (default 100, as in the paper)")
    source = record.add_mutually_exclusive_group()
    source.add_argument("--trajectory", metavar="FILE", action="append",
                        help="JSON/NPZ of ALE actions from reset (repeatable; README: Start points)")
    source.add_argument("--human", action="store_true", help="play with the keyboard (needs a display)")
    source.add_argument("--checkpoint", metavar="RUN_OR_CKPT", help="a trained agent plays (epsilon 0.05)")
    record.add_argument("--games", type=int, default=1, help="games the agent or random play plays (default 1)")
    record.add_argument("--seed", type=int, default=0, help="seed of play and of the choice of start points")


def add_suite_parser(commands) -> None:
    suite = commands.add_parser("suite", help="train and evaluate a list of Atari games (the paper's table)",
                                description="Train one run per game, evaluate each run's final parameters, and "
                                            "write a results table beside the published DQN and Gorila scores.")
    suite.add_argument("--games", help="comma-separated games (default: the paper's 49)")
    suite.add_argument("--frames-per-game", type=int, help="training frames per game (default: the config's total_frames)")
    suite.add_argument("--out", metavar="DIR", default="runs/suite", help="suite directory, one run per game (default runs/suite)")
    suite.add_argument("--parallel", type=int, default=1, help="games at once, as Ray tasks (default 1: here, in turn)")
    suite.add_argument("--cpus-per-game", type=float, default=1.0, help="Ray CPUs each game asks for (default 1)")
    suite.add_argument("--episodes", type=int, help="final evaluation episodes (default: the config's eval_episodes)")
    suite.add_argument("--starts", metavar="DIR", help="start points of each game, DIR/<game>.json (gorila record-starts; "
                                                      "a FILE for one game): also evaluate with human starts")
    suite.add_argument("--preset", choices=sorted(PRESETS), default="atari", help="preset of every game (default atari)")
    suite.add_argument("--config", metavar="FILE", help="YAML file of config fields for every game")
    suite.add_argument("--set", metavar="KEY=VALUE", action="append", default=[], help="override any config field")
    add_config_flags(suite)


def cli_overrides(args) -> dict:
    """The config fields given on the command line, as flags or `--set KEY=VALUE`."""
    overrides = {name: getattr(args, name) for name in field_types() if getattr(args, name) is not None}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--set expects KEY=VALUE, got {item!r}")
        overrides[key.strip()] = value.strip()
    return overrides


def config_from_args(args) -> Config:
    return build_config(args.preset, args.config, cli_overrides(args), getattr(args, "scale", None))


def checked_train_config(args) -> tuple[Config, typing.Any]:
    """The config `gorila train ARGS` would run and its environment's `EnvInfo`, after every check that
    can be made before anything starts (values, fields against each other, the environment, this
    machine, the cluster address). A bad input raises one of `user_error_types()`."""
    from gorila.system.preflight import preflight
    config = config_from_args(args)
    return config, preflight(config)


def resumed_run(args) -> tuple[Config, Path, dict]:
    """The config, run dir and checkpoint payload of `--resume RUN_DIR`."""
    from gorila.records.checkpoints import load_latest_good
    from gorila.system.preflight import preflight
    if args.preset or args.config or args.scale is not None:
        raise UserError("--resume takes the run's own config; --preset, --config and --scale cannot be combined with it")
    run_dir = Path(args.resume)
    if not (run_dir / "checkpoints").is_dir():
        raise UserError(f"--resume: {run_dir} is not a run directory (no checkpoints/ in it)")
    payload = load_latest_good(run_dir, warn=lambda line: print(f"gorila: {line}", file=sys.stderr))
    config = build_config(None, None, {**payload["config"], **cli_overrides(args), "run_dir": str(run_dir)})
    preflight(config)
    print(f"resuming {run_dir} from {Path(payload['path']).name} ({payload['env_frames']:,} frames)")
    return config, run_dir, payload


def command_train(args) -> int:
    from gorila.system.trainer import Trainer
    if args.resume:
        config, run_dir, payload = resumed_run(args)
        created = False
    else:
        (config, _), payload = checked_train_config(args), None
        if args.scale is not None:
            print(scaled_preset(args.preset, args.scale)[1])
        run_dir, created = claim_run_dir(config)
    try:
        result = Trainer(config, run_dir, start_time=LAUNCHED, resume=payload).run()
    finally:
        if created:
            remove_if_empty(run_dir)
    best = result["best_eval_return_mean"]
    print(f"done: {result['env_frames']:,} frames, {result['updates']:,} updates in {result['wall_time']:.1f} s; "
          + (f"best eval mean {best:.1f}" if best is not None else "no evaluation finished"))
    if config.stop_at_return:
        if "solved_at_seconds" in result:
            print(f"solved: eval mean >= {config.stop_at_return:g} reached after {result['solved_at_frames']:,} "
                  f"frames, {result['solved_at_seconds']:.1f} s, and confirmed on fresh episodes")
        else:
            print(f"not solved: eval mean stayed below {config.stop_at_return:g}")
    print(f"checkpoint: {result['checkpoint']}")
    best_file = Path(result["checkpoint"]).parent / "best.pt"
    if best_file.is_file():
        print(f"best parameters: {best_file} (what `gorila evaluate {run_dir}` loads)")
    return 130 if result["interrupted"] else 0


def command_evaluate(args) -> int:
    from gorila.evaluation.checkpoint_evaluation import evaluate_checkpoint
    result = evaluate_checkpoint(args.path, episodes=args.episodes, epsilon=args.epsilon, seed=args.seed,
                                 protocol=args.protocol, starts=args.starts, max_frames=args.max_frames,
                                 say=lambda line: print(line, flush=True))
    print(f"checkpoint: {result['checkpoint']}")
    print(f"{result['env']}: mean {result['eval_return_mean']:.2f} +/- {result['eval_return_std']:.2f} over "
          f"{result['eval_episodes']} episodes ({result['protocol'] + ', ' if result['atari'] else ''}epsilon "
          f"{result['epsilon']:g}, {result['env_frames']:,} training frames, {result['wall_seconds']:.1f} s)")
    if result.get("normalised"):
        dqn = "-" if result["dqn_normalised"] is None else f"{result['dqn_normalised']:.1f}%"
        print(f"human-normalised {result['human_normalised']:.1f}%, DQN-normalised {dqn} "
              f"(published {result['normalised']['reference_protocol']} scores)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


def command_record_starts(args) -> int:
    from gorila.evaluation.record_starts import record_starts
    done = record_starts(args.env, args.out, args.count, args.trajectory, args.human, args.checkpoint,
                         args.seed, args.games)
    print(f"{done['count']} start points of {done['game']} ({done['source']} play, {min(done['frames']):,}-"
          f"{max(done['frames']):,} frames in): {done['out']}")
    return 0


def suite_plan(args):
    """The suite's plan and the Ray address its games run on (never passed to the games themselves)."""
    from gorila.envs import ATARI_GAMES
    from gorila.experiments.suite.plan import SuitePlan
    overrides = cli_overrides(args)
    for field, flag in (("env", "--games"), ("run_dir", "--out"), ("total_frames", "--frames-per-game")):
        if field in overrides:
            raise UserError(f"suite: give {flag} instead of {field}")
    address = overrides.pop("address", "")
    if args.parallel < 1 or (args.parallel > 1 and overrides.get("runtime") == "ray"):
        raise UserError("--parallel must be >= 1, and games run at once train on the local runtime")
    games = tuple(dict.fromkeys(g.strip() for g in args.games.split(",") if g.strip())) if args.games else ATARI_GAMES
    frames = args.frames_per_game if args.frames_per_game is not None else build_config(
        args.preset, args.config, overrides).total_frames
    return SuitePlan(Path(args.out), games, frames, args.preset, args.config, overrides, args.episodes,
                     ("noop", "human-starts") if args.starts else ("noop",), args.starts), address


def command_suite(args) -> int:
    from gorila.experiments.suite.plan import check_plan
    from gorila.experiments.suite.driver import run_suite
    plan, address = suite_plan(args)
    check_plan(plan)
    try:
        outcome = run_suite(plan, args.parallel, address, args.cpus_per_game)
    except KeyboardInterrupt:
        print(f"gorila: suite interrupted; the same command resumes it from {plan.out}", file=sys.stderr)
        return 130
    return 1 if outcome["failed"] else 0


def command_report(args) -> int:
    from gorila.experiments.report.page import make_report
    if not args.out and len(args.runs) > 1:
        raise UserError("report: several runs need --out DIR")
    text, _ = make_report(args.runs, Path(args.out or Path(args.runs[0]) / "report"), args.video, args.episodes)
    print(text)
    return 0


def command_bench(args) -> int:
    from gorila.experiments.bench import EXTRA_SECTIONS, SECTIONS, run_bench, write_json
    sections = args.sections or list(SECTIONS)
    known = SECTIONS + EXTRA_SECTIONS
    unknown = [name for name in sections if name not in known]
    if unknown:
        raise UserError(f"--sections: unknown {', '.join(unknown)} (choose from {', '.join(known)})")
    if args.seconds <= 0:
        raise UserError("--seconds must be > 0")
    if args.device == "cuda":
        from gorila.config import Config, learner_device
        learner_device(Config(device="cuda"))
    print(f"gorila bench: {', '.join(sections)}; {args.seconds:g} s per rate", flush=True)
    results = run_bench(sections, args.seconds, args.device, report=lambda line: print(line, flush=True))
    if args.json:
        write_json(results, args.json)
        print(f"figures: {args.json}")
    return 0


COMMANDS = {"train": command_train, "evaluate": command_evaluate, "suite": command_suite, "report": command_report,
            "bench": command_bench, "record-starts": command_record_starts}


def user_error_types() -> tuple[type[Exception], ...]:
    """Errors a user causes and can fix: `main` prints them as one line and exits with 2."""
    from gorila.records.checkpoints import CheckpointError
    from gorila.envs import EnvError
    from gorila.experiments.report.summary import ReportError
    from gorila.evaluation.start_points import StartPointError
    return UserError, ConfigError, EnvError, CheckpointError, StartPointError, ReportError


def main(argv: list[str] | None = None) -> int:
    from gorila.runtime.calls import WorkerError
    user_errors = user_error_types()
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except user_errors as error:
        print(f"gorila: error: {error}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("gorila: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # failures we did not foresee still end in one line (GORILA_DEBUG=1 for more)
        if os.environ.get("GORILA_DEBUG"):
            raise
        name = type(error).__name__
        if name == "ClusterError":
            print(f"gorila: error: {error}", file=sys.stderr, flush=True)
            sys.stdout.flush()
            # A cluster that cannot host the run is the user's to fix (exit 2); os._exit because a
            # half-made Ray connection can block the interpreter's exit handlers.
            os._exit(USAGE_ERROR)
        if isinstance(error, WorkerError):
            print(f"gorila: error: {error}", file=sys.stderr)
        else:
            print(f"gorila: error: {name}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
                  " (set GORILA_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


