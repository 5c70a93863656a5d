"""`gorila suite`: train and evaluate a list of Atari (or MinAtar) games, one run per game, and tabulate
the scores beside the published ones."""

from __future__ import annotations

import sys
from pathlib import Path

from gorila.cli.errors import UserError
from gorila.cli.flags import add_config_flags, cli_overrides, given
from gorila.config import PRESETS, build_config

EXAMPLES = """examples:
  gorila suite --games Pong,Breakout --frames-per-game 10_000_000 --out runs/s
  gorila suite --frames-per-game 10_000_000 --parallel 4   # 49 games, 4 at once
  gorila suite --starts starts/ --address HEAD_IP:6379 --parallel 16
  gorila suite --games MinAtar/Breakout,MinAtar/Freeway --seeds 0,1"""

# Config fields a suite sets per game itself, and the suite's flag that gives each instead.
REFUSED = {"env": "--games", "run_dir": "--out", "total_frames": "--frames-per-game"}


def add_parser(commands, argv: list[str]) -> None:
    """`gorila suite`: the games, frames per game, suite directory, parallelism, evaluation and config
    (every field but those of `REFUSED`, whose flags are accepted only to be refused by name)."""
    suite = commands.add_parser(
        "suite",
        help="train and evaluate a list of Atari or MinAtar games (the paper's table)",
        epilog=EXAMPLES,
        usage="gorila suite [--games LIST] [--frames-per-game N] [--out DIR]\n"
        "                    [options] [--FIELD VALUE ...]",
        description="Train one run per game, evaluate each run's final parameters, and "
        "write a results table beside the published DQN and Gorila scores; "
        "MinAtar games (each run as its -v0 id, the full action set) beside "
        "MinAtar's published DQN curves instead.",
    )
    suite.add_argument(
        "--games", metavar="LIST", help="comma-separated games, all Atari or all MinAtar (default: the paper's 49)"
    )
    suite.add_argument(
        "--frames-per-game", type=int, metavar="N", help="training frames per game (default: the config's total_frames)"
    )
    suite.add_argument(
        "--out", metavar="DIR", default="runs/suite", help="suite directory, one run per game (default runs/suite)"
    )
    suite.add_argument(
        "--seeds",
        metavar="LIST",
        help="comma-separated seeds: the suite once per seed, in DIR/seed-<k>, and a table over them (MinAtar games)",
    )
    suite.add_argument(
        "--parallel", type=int, default=1, metavar="K", help="games at once, as Ray tasks (default 1: here, in turn)"
    )
    suite.add_argument(
        "--cpus-per-game", type=float, default=1.0, metavar="X", help="Ray CPUs each game asks for (default 1)"
    )
    suite.add_argument(
        "--episodes", type=int, metavar="N", help="final evaluation episodes (default: the config's eval_episodes)"
    )
    suite.add_argument(
        "--starts",
        metavar="DIR",
        help="start points of each game, DIR/<game>.json (gorila record-starts; "
        "a FILE for one game): also evaluate with human starts",
    )
    suite.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        metavar="NAME",
        help=f"preset of every game ({', '.join(PRESETS)}; default: the games' kind's, as gorila "
        "train picks: atari, minatar)",
    )
    suite.add_argument("--config", metavar="FILE", help="YAML file of config fields for every game")
    suite.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help=f"override a config field (any but {', '.join(REFUSED)})",
    )
    add_config_flags(suite, argv, preset=help_preset(argv), hidden=REFUSED)


def help_preset(argv: list[str]) -> str:
    """The preset whose defaults the help shows: minatar for --games naming MinAtar games, else atari
    (read from the text, so that --help imports no environment package)."""
    return "minatar" if (given(argv, "--games") or "").strip().lower().startswith("minatar/") else "atari"


def suite_plan(args):
    """The suite's plan and the Ray address its games run on (never passed to the games themselves)."""
    from gorila.evaluation.scores import ATARI_GAMES, PUBLISHED_PROTOCOLS
    from gorila.experiments.suite.plan import SuitePlan, suite_game

    overrides = cli_overrides(args)
    for field, flag in REFUSED.items():
        if field in overrides:
            raise UserError(f"suite: give {flag} instead of {field}")
    address = overrides.pop("address", "")
    if args.parallel < 1 or (args.parallel > 1 and overrides.get("runtime") == "ray"):
        raise UserError("--parallel must be >= 1, and games run at once train on the local runtime")
    games = (
        tuple(dict.fromkeys(suite_game(g) for g in args.games.split(",") if g.strip())) if args.games else ATARI_GAMES
    )
    if not games:
        raise UserError("--games: no game named")
    # Without --preset each game starts from its kind's preset (atari, minatar), as `gorila train` does.
    frames = (
        args.frames_per_game
        if args.frames_per_game is not None
        else build_config(args.preset, args.config, {**overrides, "env": games[0]}).total_frames
    )
    return SuitePlan(
        Path(args.out),
        games,
        frames,
        args.preset,
        args.config,
        overrides,
        args.episodes,
        PUBLISHED_PROTOCOLS if args.starts else ("noop",),
        args.starts,
        suite_seeds(args.seeds, overrides),
    ), address


def suite_seeds(text: str | None, overrides: dict) -> tuple[int, ...]:
    """The seeds of --seeds (none: one suite, of the config's seed); a UserError for a bad list or
    one given with --seed."""
    if text is None:
        return ()
    if "seed" in overrides:
        raise UserError("suite: give --seeds or --seed, not both")
    try:
        seeds = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise UserError(f"--seeds: comma-separated whole numbers, got {text!r}") from None
    if not seeds:
        raise UserError("--seeds: no seed named")
    return seeds


def run(args) -> int:
    """Check the plan, run the games not yet done; 1 if a game failed, 130 if interrupted, else 0."""
    from gorila.experiments.suite.driver import run_suite
    from gorila.experiments.suite.plan import check_plan

    plan, address = suite_plan(args)
    check_plan(plan)
    try:
        outcome = run_suite(plan, args.parallel, address, args.cpus_per_game)
    except KeyboardInterrupt:
        print(f"gorila: suite interrupted; the same command resumes it from {plan.out}", file=sys.stderr)
        return 130
    return 1 if outcome["failed"] else 0
