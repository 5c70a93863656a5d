"""`gorila bench`: measure each stage of Gorila against its own limit, side by side."""

from __future__ import annotations

from gorila.cli.errors import UserError
from gorila.experiments.bench import EXTRA_SECTIONS, SECTIONS

EXAMPLES = """examples:
  gorila bench --json bench.json          # the six default sections, 7 minutes
  gorila bench --sections learner --device cuda --seconds 5
  gorila bench --sections scaling         # 1 to 16 actors, for many cores"""


def add_parser(commands, argv: list[str]) -> None:
    """`gorila bench`: the JSON file, the sections, the measuring window and the learner's device."""
    bench = commands.add_parser(
        "bench",
        help="measure each stage against its own limit (ratios, minutes)",
        description="Measure each stage of Gorila against its own limit, side by side.",
        epilog=EXAMPLES,
    )
    bench.add_argument("--json", metavar="FILE", help="also write every figure as JSON")
    bench.add_argument(
        "--sections",
        nargs="+",
        metavar="NAME",
        default=None,
        help=f"sections to measure, any of: {', '.join(SECTIONS + EXTRA_SECTIONS)} (default: all "
        f"but {' and '.join(EXTRA_SECTIONS)}, which are for machines with a GPU or many cores)",
    )
    bench.add_argument("--seconds", type=float, default=10.0, help="measuring window of each rate (default 10)")
    bench.add_argument("--device", choices=["cpu", "cuda"], default="cpu", help="where the learner benchmark runs")


def run(args) -> int:
    """Check the sections, window and device, run the sections, print and write the figures; 0."""
    from gorila.experiments.bench.runner import run_bench, write_json  # imports PyTorch: only to measure

    sections = args.sections or list(SECTIONS)
    known = SECTIONS + EXTRA_SECTIONS
    unknown = [name for name in sections if name not in known]
    if unknown:
        raise UserError(f"--sections: unknown {', '.join(unknown)} (choose from {', '.join(known)})")
    if args.seconds <= 0:
        raise UserError("--seconds must be > 0")
    if args.device == "cuda":
        from gorila.config import Config
        from gorila.system.agent_builders import learner_device

        learner_device(Config(device="cuda"))
    print(f"gorila bench: {', '.join(sections)}; {args.seconds:g} s per rate", flush=True)
    results = run_bench(sections, args.seconds, args.device, report=lambda line: print(line, flush=True))
    if args.json:
        write_json(results, args.json)
        print(f"figures: {args.json}")
    return 0
