"""`main`: parse the command line, run its subcommand, and end every failure with one line on stderr
(exit code 2 for an error the user can fix, 1 for one we did not foresee, 130 on Ctrl-C).

Building the parser imports only the config schema: torch, Ray and the environments are imported by
the subcommand that runs, so `--help`, `--version` and a mistyped flag answer at once."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import textwrap

from gorila.cli import bench, evaluate, record_starts, report, suite, sweep, train
from gorila.cli.errors import RUN_FAILURE, USAGE_ERROR, UserError, run_failure_types, user_error_types
from gorila.config.parsing import closest_fields, did_you_mean
from gorila.runtime.calls import ClusterError
from gorila.system.signals import leave_after_stop, restore_signals, stop_honoured, stop_on_signals

COMMANDS = {
    "train": train,
    "evaluate": evaluate,
    "record-starts": record_starts,
    "suite": suite,
    "report": report,
    "sweep": sweep,
    "bench": bench,
}  # in the order `gorila --help` lists them


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help with room for a long flag beside its help, a switch shown as `--[no-]NAME`, and
    examples kept as written: a paragraph of a description or epilog with an indented line is printed
    as it is, others are filled to the width."""

    def __init__(self, prog):
        super().__init__(prog, max_help_position=28)

    def _format_action_invocation(self, action):
        if isinstance(action, argparse.BooleanOptionalAction):  # `--[no-]dueling` fits beside its help
            return "--[no-]" + action.option_strings[0].removeprefix("--")
        return super()._format_action_invocation(action)

    def _fill_text(self, text, width, indent):
        return "\n\n".join(
            paragraph
            if any(line.startswith(" ") for line in paragraph.splitlines())
            else textwrap.fill(" ".join(paragraph.split()), width, initial_indent=indent, subsequent_indent=indent)
            for paragraph in text.strip("\n").split("\n\n")
        )


class Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (the full usage is a screen long) and whose unknown
    flags get the nearest known ones as suggestions."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{"formatter_class": HelpFormatter, **kwargs})

    def error(self, message):
        raise UserError(f"{message} (see `{self.prog} --help`)")

    def parse_args(self, args=None, namespace=None):
        args, extras = self.parse_known_args(args, namespace)
        if extras:
            commands = getattr(self, "commands", None)
            command = commands.choices.get(args.command, self) if commands else self
            flags = [token for token in extras if token.startswith("-")] or extras
            command.error(
                f"unrecognized argument{'s' if len(extras) > 1 else ''}: {' '.join(extras)}"
                f"{did_you_mean(closest_flags(flags[0], known_flags(command)))}"
            )
        return args


def known_flags(parser: argparse.ArgumentParser) -> list[str]:
    """The flags `parser` lists in its help (not those it accepts only to refuse them)."""
    return [flag for action in parser._actions if action.help != argparse.SUPPRESS for flag in action.option_strings]


def closest_flags(token: str, flags: list[str]) -> list[str]:
    """The flags a mistyped `token` most likely meant: its dashed spelling alone when that is a flag
    (`--learning_rate`), else the flags of the config fields it is close to or an alias of (`--lr`) and
    the nearest flags; at most three."""
    dashed = "--" + token.partition("=")[0].lstrip("-").replace("_", "-")
    if dashed in flags:
        return [dashed]
    near = ["--" + field.replace("_", "-") for field in closest_fields(dashed)]
    return list(
        dict.fromkeys(
            [flag for flag in near if flag in flags] + difflib.get_close_matches(dashed, flags, n=3, cutoff=0.75)
        )
    )[:3]


class ShowVersion(argparse.Action):
    """`--version`: print `gorila <version>` (the installed package's, looked up only when asked) and exit 0."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print gorila's version and exit"
        )

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"gorila {version('gorila')}")
        except PackageNotFoundError:
            raise UserError("--version: the gorila package is not installed (pip install -e .)") from None
        parser.exit()


def build_parser(argv: list[str] | None = None) -> Parser:
    """The `gorila` parser: `--version`, and one subparser per module of `COMMANDS`, each added by its
    `add_parser`, which sees ARGV (default: sys.argv[1:]) so that its help can show the defaults of the
    preset named there."""
    parser = Parser(prog="gorila", description="Gorila: massively parallel DQN (Nair et al., 2015).")
    parser.add_argument("--version", action=ShowVersion)
    parser.commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        command.add_parser(parser.commands, sys.argv[1:] if argv is None else list(argv))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `gorila ARGV` (default: sys.argv[1:]) and return its exit code. Ctrl-C and SIGTERM stop it
    from its first moment (a shell starts a background job with SIGINT ignored until then). Run as the
    program (no ARGV given), a command that a stop ended exits with 130, at once on a further stop
    signal while the process ends (it shuts torch and Ray down for seconds), rather than dying of a
    KeyboardInterrupt there, or of the signal itself in the interpreter's teardown (`leave_after_stop`)."""
    previous = stop_on_signals()
    try:
        code = run_reporting_errors(argv)
    finally:
        restore_signals(previous)
    if code == 130 and argv is None:
        leave_after_stop(code)
    return code


def run_reporting_errors(argv: list[str] | None) -> int:
    """`parse_and_run`, with an interruption and every failure told in one line and an exit code."""
    try:
        return parse_and_run(argv)
    except KeyboardInterrupt:
        stop_honoured()
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
            print(
                f"gorila: error: {type(error).__name__}: "
                f"{str(error).strip().splitlines()[0] if str(error).strip() else ''}"
                " (set GORILA_DEBUG=1 for the traceback)",
                file=sys.stderr,
            )
        return RUN_FAILURE


def parse_and_run(argv: list[str] | None) -> int:
    """Parse ARGV and run its subcommand; an error the user can fix is one line on stderr and exit 2.

    The user-error types are imported after parsing, because some of their modules import torch."""
    try:
        args = build_parser(argv).parse_args(argv)
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
