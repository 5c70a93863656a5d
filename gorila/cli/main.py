"""`main`: parse the command line, run its subcommand, and end every failure with one line on stderr
(exit code 2 for an error the user can fix, 1 for one we did not foresee, 130 on Ctrl-C).

Building the parser imports only the config schema: torch, Ray and the environments are imported by
the subcommand that runs, so `--help`, `--version` and a mistyped flag answer at once."""
from __future__ import annotations

import argparse
import os
import sys

from gorila.cli import bench, evaluate, record_starts, report, suite, train
from gorila.cli.errors import RUN_FAILURE, USAGE_ERROR, UserError, run_failure_types, user_error_types
from gorila.runtime.calls import ClusterError

COMMANDS = {"train": train, "evaluate": evaluate, "record-starts": record_starts, "suite": suite,
            "report": report, "bench": bench}     # in the order `gorila --help` lists them


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (the full usage is a screen long)."""

    def error(self, message):
        raise UserError(f"{message} (see `{self.prog} --help`)")


class ShowVersion(argparse.Action):
    """`--version`: print `gorila <version>` (the installed package's, looked up only when asked) and exit 0."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print gorila's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version
        try:
            print(f"gorila {version('gorila')}")
        except PackageNotFoundError:
            raise UserError("--version: the gorila package is not installed (pip install -e .)") from None
        parser.exit()


def build_parser() -> Parser:
    """The `gorila` parser: `--version`, and one subparser per module of `COMMANDS`, each added by its
    `add_parser`."""
    parser = Parser(prog="gorila", description="Gorila: massively parallel DQN (Nair et al., 2015).")
    parser.add_argument("--version", action=ShowVersion)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `gorila ARGV` (default: sys.argv[1:]) and return its exit code."""
    try:
        return parse_and_run(argv)
    except KeyboardInterrupt:
        print("gorila: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # failures we did not foresee still end in one line (GORILA_DEBUG=1 for more)
        if os.environ.get("GORILA_DEBUG"):
            raise
        if isinstance(error, ClusterError):
            print(f"gorila: error: {error}", file=sys.stderr, flush=True)
            sys.stdout.flush()
            # A cluster that cannot host the run is the user's to fix (exit 2); os._exit because a
            # half-made Ray connection can block the interpreter's exit handlers.
            os._exit(USAGE_ERROR)
        if isinstance(error, run_failure_types()):
            print(f"gorila: error: {error}", file=sys.stderr)
        else:
            print(f"gorila: error: {type(error).__name__}: "
                  f"{str(error).strip().splitlines()[0] if str(error).strip() else ''}"
                  " (set GORILA_DEBUG=1 for the traceback)", file=sys.stderr)
        return RUN_FAILURE


def parse_and_run(argv: list[str] | None) -> int:
    """Parse ARGV and run its subcommand; an error the user can fix is one line on stderr and exit 2.

    The user-error types are imported after parsing, because some of their modules import torch."""
    try:
        args = build_parser().parse_args(argv)
    except UserError as error:
        return usage_error(error)
    user_errors = user_error_types()
    try:
        return COMMANDS[args.command].run(args)
    except user_errors as error:
        return usage_error(error)


def usage_error(error: Exception) -> int:
    """Print an error the user can fix as one line; its exit code."""
    print(f"gorila: error: {error}", file=sys.stderr)
    return USAGE_ERROR
