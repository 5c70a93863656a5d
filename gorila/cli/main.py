"""`main`: parse the command line, run its subcommand, and end every failure with one line on stderr
(exit code 2 for an error the user can fix, 1 for one we did not foresee, 130 on Ctrl-C)."""
from __future__ import annotations

import argparse
import os
import sys

from gorila.cli import bench, evaluate, record_starts, report, suite, train
from gorila.cli.errors import USAGE_ERROR, UserError, user_error_types

COMMANDS = {"train": train, "evaluate": evaluate, "record-starts": record_starts, "suite": suite,
            "report": report, "bench": bench}     # in the order `gorila --help` lists them


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (the full usage is a screen long)."""

    def error(self, message):
        raise UserError(f"{message} (see `{self.prog} --help`)")


def build_parser() -> Parser:
    """The `gorila` parser: one subparser per module of `COMMANDS`, each added by its `add_parser`."""
    parser = Parser(prog="gorila", description="Gorila: massively parallel DQN (Nair et al., 2015).")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `gorila ARGV` (default: sys.argv[1:]) and return its exit code."""
    from gorila.runtime.calls import WorkerError
    user_errors = user_error_types()
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command].run(args)
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
