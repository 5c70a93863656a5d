"""`gorila train`: check the config, claim a run directory (or resume one) and train."""

from __future__ import annotations

import sys
import typing
from pathlib import Path

from gorila.cli.errors import UserError
from gorila.cli.flags import add_config_flags, cli_overrides, config_from_args
from gorila.cli.launch import LAUNCHED
from gorila.config import PRESETS, Config, build_config, preset_for_env, scaled_preset
from gorila.config.parsing import shares_line
from gorila.plugins import reference_of
from gorila.records.run_dirs import claim_run_dir

EXAMPLES = """examples:
  gorila train --preset cartpole --runtime local      # in one process
  gorila train --preset gorila-paper --scale 0.02 --env Breakout --address auto
  gorila train --resume runs/CartPole-v1-20261129-120000 --total-frames 500_000
  gorila train --env mypkg.envs:Corridor-v0 --network mypkg.nets:make_q  # yours"""

USAGE = (
    "gorila train [--preset NAME [--scale F]] [--config FILE]\n"
    "                    [--FIELD VALUE ...] [--set KEY=VALUE ...]\n"
    "       gorila train --resume RUN_DIR [--FIELD VALUE ...] [--set KEY=VALUE ...]"
)


def add_parser(commands, argv: list[str]) -> None:
    """`gorila train`: the preset, config file, `--set`, `--scale`, `--resume` and one flag per field,
    whose defaults shown are those of the preset `argv` names."""
    train = commands.add_parser(
        "train",
        help="train an agent",
        epilog=EXAMPLES,
        usage=USAGE,
        description="Train a Gorila DQN agent. Layers, last wins: --preset, then "
        "--config FILE, then the field flags and --set KEY=VALUE.",
    )
    train.add_argument(
        "--preset", choices=sorted(PRESETS), metavar="NAME", help=f"start from a preset ({', '.join(PRESETS)})"
    )
    train.add_argument(
        "--scale",
        type=float,
        metavar="F",
        default=None,
        help="run the preset on a cluster F times its size: bundles and shards times F, theta-'s "
        "period in server updates by the learners' ratio (e.g. --preset gorila-paper --scale "
        "0.02: 2 bundles, 1 shard, theta- every 1,200)",
    )
    train.add_argument("--config", metavar="FILE", help="YAML file of config fields")
    train.add_argument(
        "--set", metavar="KEY=VALUE", action="append", default=[], help="override any config field (repeatable)"
    )
    train.add_argument(
        "--resume",
        metavar="RUN_DIR",
        help="continue the run in RUN_DIR from its latest good checkpoint (its config, "
        "with any fields given here changed, e.g. a larger --total-frames)",
    )
    add_config_flags(train, argv)


def checked_train_config(args) -> tuple[Config, typing.Any]:
    """The config `gorila train ARGS` would run and its environment's `EnvInfo`, after every check that
    can be made before anything starts (values, fields against each other, the environment, this
    machine, the cluster address). A bad input raises one of `user_error_types()`."""
    from gorila.system.preflight import preflight

    config = config_from_args(args)
    return config, preflight(config)


def resumed_run(args) -> tuple[Config, Path, dict]:
    """The config, run dir and checkpoint payload of `--resume RUN_DIR`."""
    from gorila.api import latest_payload
    from gorila.records.checkpoints import version_note
    from gorila.system.preflight import preflight

    if args.preset or args.config or args.scale is not None:
        raise UserError(
            "--resume takes the run's own config; --preset, --config and --scale cannot be combined with it"
        )
    run_dir = Path(args.resume)
    payload = latest_payload(run_dir, "--resume", warn=lambda line: print(f"gorila: {line}", file=sys.stderr))
    note = version_note(payload, payload["path"])
    if note:
        print(f"gorila: note: {note}", file=sys.stderr)
    config = build_config(None, None, {**payload["config"], **cli_overrides(args), "run_dir": str(run_dir)})
    preflight(config)
    print(f"resuming {run_dir} from {Path(payload['path']).name} ({payload['env_frames']:,} frames)")
    return config, run_dir, payload


def run(args) -> int:
    """Train (or resume) and print the outcome; 130 if interrupted, else 0. A run directory this launch
    created and nothing wrote to is removed."""
    from gorila.system.training import run_in

    if args.resume:
        config, run_dir, payload = resumed_run(args)
        created = False
    else:
        (config, _), payload = checked_train_config(args), None
        if args.scale is not None:
            print(scaled_preset(args.preset, args.scale)[1])
        shared = shares_line(args.preset, args.config, cli_overrides(args), args.scale)
        if shared:
            print(shared)
        implied = None if args.preset else preset_for_env(config.env)
        if implied:
            print(
                f"no --preset given: {reference_of(config.env)} starts from the {implied} preset, the settings for its kind "
                f"of game (name --preset or set fields to change them)"
            )
        run_dir, created = claim_run_dir(config)
    result = run_in(config, run_dir, created=created, payload=payload, start_time=LAUNCHED).summary
    print_outcome(config, run_dir, result)
    return 130 if result["interrupted"] else 0


def print_outcome(config: Config, run_dir: Path, result: dict) -> None:
    """Frames, updates, wall time and best evaluation; solved or not; where the parameters are."""
    best = result["best_eval_return_mean"]
    print(
        f"done: {result['env_frames']:,} frames, {result['updates']:,} updates in {result['wall_time']:.1f} s; "
        + (f"best eval mean {best:.1f}" if best is not None else "no evaluation finished")
    )
    if config.stop_at_return:
        if "solved_at_seconds" in result:
            print(
                f"solved: eval mean >= {config.stop_at_return:g} reached after {result['solved_at_frames']:,} "
                f"frames, {result['solved_at_seconds']:.1f} s, and confirmed on fresh episodes"
            )
        else:
            print(f"not solved: eval mean stayed below {config.stop_at_return:g}")
    if config.stop_at_train_return:
        reached = result["stop_reason"] == "reached"
        print(
            f"training mean of the last 100 episodes {'reached' if reached else 'stayed below'} "
            f"{config.stop_at_train_return:g}" + (f" at {result['env_frames']:,} frames" if reached else "")
        )
    print(f"checkpoint: {result['checkpoint']}")
    best_file = Path(result["checkpoint"]).parent / "best.pt"
    if best_file.is_file():
        print(f"best parameters: {best_file} (what `gorila evaluate {run_dir}` loads)")
