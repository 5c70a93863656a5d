"""`gorila train | evaluate | report | bench`: the command line, generated from `Config`.

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

from gorila.config import PRESETS, Config, ConfigError, build_config, field_docs, field_types  # noqa: E402

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
    train.add_argument("--preset", choices=sorted(PRESETS), help="start from a preset (cartpole, atari)")
    train.add_argument("--config", metavar="FILE", help="YAML file of config fields")
    train.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                       help="override any config field (repeatable)")
    train.add_argument("--resume", metavar="RUN_DIR",
                       help="continue the run in RUN_DIR from its latest good checkpoint (its config, "
                            "with any fields given here changed, e.g. a larger --total-frames)")
    add_config_flags(train)
    evaluate = commands.add_parser("evaluate", help="evaluate a checkpoint with null-op starts")
    evaluate.add_argument("path", help="run directory (its best checkpoint, else its latest) or checkpoint file")
    evaluate.add_argument("--episodes", type=int, default=None, help="episodes (default: the run's eval_episodes)")
    evaluate.add_argument("--epsilon", type=float, default=None, help="exploration rate (default: the run's eval_epsilon)")
    evaluate.add_argument("--seed", type=int, default=None, help="evaluation seed")
    evaluate.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    report = commands.add_parser("report", help="summarise a run and plot its learning curve")
    report.add_argument("run_dir")
    bench = commands.add_parser("bench", help="measure each stage against its own limit (ratios, minutes)",
                                description="Measure each stage of Gorila against its own limit, side by side.")
    bench.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    bench.add_argument("--sections", nargs="+", metavar="NAME", default=None,
                       help="some of: actor learner server replay end_to_end memory (default: all), scaling")
    bench.add_argument("--seconds", type=float, default=10.0, help="measuring window of each rate (default 10)")
    bench.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where the learner benchmark runs")
    return parser


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
    return build_config(args.preset, args.config, cli_overrides(args))


def choose_run_dir(config: Config) -> Path:
    if config.run_dir:
        path = Path(config.run_dir)
        if path.exists() and (not path.is_dir() or any(path.iterdir())):
            raise UserError(f"run directory {path} already exists and is not empty; choose another --run-dir")
        return path
    slug = config.env.replace("/", "_")
    return Path("runs") / f"{slug}-{time.strftime('%Y%m%d-%H%M%S')}"


def resumed_run(args) -> tuple[Config, Path, dict]:
    """The config, run dir and checkpoint payload of `--resume RUN_DIR`."""
    from gorila.checkpoint import load_latest_good
    if args.preset or args.config:
        raise UserError("--resume takes the run's own config; --preset and --config cannot be combined with it")
    run_dir = Path(args.resume)
    if not (run_dir / "checkpoints").is_dir():
        raise UserError(f"--resume: {run_dir} is not a run directory (no checkpoints/ in it)")
    payload = load_latest_good(run_dir, warn=lambda line: print(f"gorila: {line}", file=sys.stderr))
    config = build_config(None, None, {**payload["config"], **cli_overrides(args), "run_dir": str(run_dir)})
    print(f"resuming {run_dir} from {Path(payload['path']).name} ({payload['env_frames']:,} frames)")
    return config, run_dir, payload


def command_train(args) -> int:
    from gorila.envs import resolve_env
    from gorila.trainer import Trainer
    if args.resume:
        config, run_dir, payload = resumed_run(args)
    else:
        config, payload = config_from_args(args), None
    resolve_env(config.env)        # an unknown env fails here, before anything is written
    run_dir = run_dir if payload else choose_run_dir(config)
    result = Trainer(config, run_dir, start_time=LAUNCHED, resume=payload).run()
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
    from gorila.evaluate import evaluate_checkpoint
    result = evaluate_checkpoint(args.path, episodes=args.episodes, epsilon=args.epsilon, seed=args.seed)
    print(f"checkpoint: {result['checkpoint']}")
    print(f"{result['env']}: mean {result['eval_return_mean']:.2f} +/- {result['eval_return_std']:.2f} over "
          f"{result['eval_episodes']} episodes ({'null-op starts, ' if result['atari'] else ''}epsilon {result['epsilon']:g}, "
          f"{result['env_frames']:,} training frames)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


def command_report(args) -> int:
    from gorila.report import report_run
    print(report_run(args.run_dir))
    return 0


def command_bench(args) -> int:
    from gorila.bench import EXTRA_SECTIONS, SECTIONS, run_bench, write_json
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


COMMANDS = {"train": command_train, "evaluate": command_evaluate, "report": command_report, "bench": command_bench}


def main(argv: list[str] | None = None) -> int:
    from gorila.checkpoint import CheckpointError
    from gorila.envs import EnvError
    from gorila.runtime.calls import WorkerError
    user_errors = (UserError, ConfigError, EnvError, CheckpointError)
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
            os._exit(1)   # a half-made Ray connection can block the interpreter's exit handlers
        if isinstance(error, WorkerError):
            print(f"gorila: error: {error}", file=sys.stderr)
        else:
            print(f"gorila: error: {name}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}"
                  " (set GORILA_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
