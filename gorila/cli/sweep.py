"""`gorila sweep`: a hyperparameter sweep over any config fields with Ray Tune, one run directory per
trial, on the embedded Ray or a cluster; a results table and figure."""

from __future__ import annotations

import sys
from pathlib import Path

from gorila.cli.errors import UserError
from gorila.cli.flags import add_config_flags, cli_overrides
from gorila.cli.suite import suite_seeds
from gorila.config import PRESETS
from gorila.experiments.sweep.space import METRICS

EXAMPLES = """examples:
  gorila sweep --preset cartpole --grid learning_rate=0.001,0.004 --seeds 0,1 --out runs/lr
  gorila sweep --preset minatar --env MinAtar/Breakout --total-frames 100_000 \\
      --grid batch_size=32,64 --random learning_rate=1e-4:1e-2:log --samples 4 --early-stop
  gorila sweep --preset cartpole --grid target_update_every=100,200,400 --address auto"""

# Config fields the sweep sets per trial, and the sweep's flag that gives each instead.
REFUSED = {"run_dir": "--out", "seed": "--seeds", "address": "--address (the sweep's cluster)"}


def add_parser(commands, argv: list[str]) -> None:
    """`gorila sweep`: the axes, seeds, samples, early stopping, parallelism, output and the config of
    every trial (every field but those of `REFUSED`)."""
    sweep = commands.add_parser(
        "sweep",
        help="sweep config fields with Ray Tune (grid or random search, early stopping)",
        epilog=EXAMPLES,
        usage="gorila sweep --grid FIELD=V1,V2 [--random FIELD=LOW:HIGH[:log]] [--seeds LIST]\n"
        "                    [--out DIR] [options] [--FIELD VALUE ...]",
        description="Train one run per point of the search space and seed, each on the local runtime in one "
        "Ray process (the embedded Ray, or a cluster with --address), each in its own run directory "
        "DIR/trials/<point>; then a table of the points, best first, and a figure of every trial's "
        "return against frames (DIR/results.md, results.json, results.png). A trial that fails is "
        "reported in the table, not fatal.",
    )
    sweep.add_argument(
        "--grid",
        metavar="FIELD=V1,V2",
        action="append",
        default=[],
        help="a config field and the values to try, every one (repeatable: the grid is their product)",
    )
    sweep.add_argument(
        "--random",
        metavar="FIELD=LOW:HIGH[:log]",
        action="append",
        default=[],
        help="a number field drawn uniformly (log-uniformly with :log) from [LOW, HIGH], --samples times (repeatable)",
    )
    sweep.add_argument("--samples", type=int, default=1, metavar="N", help="draws of the --random fields (default 1)")
    sweep.add_argument(
        "--seeds", metavar="LIST", default="0", help="comma-separated seeds: each point once per seed (default 0)"
    )
    sweep.add_argument(
        "--metric",
        default="return_mean",
        choices=METRICS,
        help="what ranks the points, higher better: the mean return of the last 100 training "
        "episodes (default), of the last 10, or the last evaluation's",
    )
    sweep.add_argument(
        "--early-stop",
        action="store_true",
        help="ASHA: end the trials whose metric trails at a quarter of the frames, then at each doubling (half go on)",
    )
    sweep.add_argument(
        "--concurrent",
        type=int,
        default=0,
        metavar="K",
        help="trials at once (default: as many as the Ray cluster has CPUs for)",
    )
    sweep.add_argument(
        "--cpus-per-trial", type=float, default=1.0, metavar="X", help="Ray CPUs each trial asks for (default 1)"
    )
    sweep.add_argument("--out", metavar="DIR", default="runs/sweep", help="sweep directory (default runs/sweep)")
    sweep.add_argument(
        "--preset", choices=sorted(PRESETS), metavar="NAME", help=f"preset of every trial ({', '.join(PRESETS)})"
    )
    sweep.add_argument("--config", metavar="FILE", help="YAML file of config fields for every trial")
    sweep.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help=f"override a config field of every trial (any but {', '.join(REFUSED)})",
    )
    add_config_flags(sweep, argv, hidden=("run_dir", "seed"))


def sweep_plan(args):
    """The plan of `gorila sweep ARGS` (not checked yet: `check_plan` does that)."""
    from gorila.experiments.sweep.driver import SweepPlan
    from gorila.experiments.sweep.space import grid_axis, random_axis

    fields = cli_overrides(args)
    address = fields.pop("address", "")
    for name, flag in REFUSED.items():
        if name in fields:
            raise UserError(f"sweep: give {flag} instead of {name}")
    axes = tuple(grid_axis(text) for text in args.grid) + tuple(random_axis(text) for text in args.random)
    if args.random and args.samples < 1 or not args.random and args.samples != 1:
        raise UserError("sweep: --samples N (>= 1) draws the --random fields; give it with --random")
    return SweepPlan(
        Path(args.out),
        axes,
        args.preset,
        args.config,
        fields,
        suite_seeds(args.seeds, {}),
        args.samples,
        args.metric,
        args.early_stop,
        args.concurrent,
        args.cpus_per_trial,
        address,
    )


def run(args) -> int:
    """Run the sweep; 1 if every trial failed, 130 if interrupted, else 0."""
    from gorila.experiments.sweep.driver import run_sweep

    plan = sweep_plan(args)
    try:
        result = run_sweep(plan, say=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(f"gorila: sweep interrupted; what finished is in {plan.out / 'results.md'}", file=sys.stderr)
        return 130
    print((plan.out / "results.md").read_text())
    return 1 if all(row["status"] == "failed" for row in result.rows) else 0
