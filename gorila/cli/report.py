"""`gorila report`: plots, an HTML page and a summary of runs and suite directories."""

from __future__ import annotations

from pathlib import Path

from gorila.cli.errors import UserError

EXAMPLES = """examples:
  gorila report runs/Pong-20261129-120000      # plots, index.html in RUN/report
  gorila report runs/suite --video             # per-game bars, a video per game
  gorila report runs/a runs/b --out reports/ab     # two runs' curves overlaid
  gorila report runs/Pong-20261129-120000 --target 18  # times to 18 from launch"""


def add_parser(commands, argv: list[str]) -> None:
    """`gorila report RUN...`: the report directory, videos and final-evaluation episodes."""
    report = commands.add_parser(
        "report",
        help="plots and an HTML page of runs and suites",
        epilog=EXAMPLES,
        description="Plots (return vs frames and wall time; per-game bars of a suite), "
        "index.html and a summary of runs and suite directories.",
    )
    report.add_argument("runs", nargs="+", metavar="RUN", help="run or suite directories")
    report.add_argument("--out", metavar="DIR", help="report directory (default: RUN/report for one RUN)")
    report.add_argument("--video", action="store_true", help="record an evaluation episode of each run (MP4 or GIF)")
    report.add_argument(
        "--episodes",
        type=int,
        default=None,
        help="episodes of a run's final evaluation when no suite stored one: the newest kept by "
        "gorila evaluate of that many, else a new one (default: the newest kept, else a new one "
        "of the run's eval_episodes)",
    )
    report.add_argument(
        "--target",
        type=float,
        default=None,
        metavar="T",
        help="the score each run is timed to from launch: the frames and seconds at which the training "
        "mean and the evaluations during training (DQN's protocol on an Atari game under the atari presets) "
        "first reached it (default: the run's stop_at_return, else its game's known target: Pong 18)",
    )


def run(args) -> int:
    """Write the report and print its summary; 0."""
    from gorila.experiments.report.page import make_report

    if not args.out and len(args.runs) > 1:
        raise UserError("report: several runs need --out DIR")
    text, _ = make_report(
        args.runs, Path(args.out or Path(args.runs[0]) / "report"), args.video, args.episodes, args.target
    )
    print(text)
    return 0
