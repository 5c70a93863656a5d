"""The errors `gorila` prints as one line: those a user causes and can fix (exit code 2), and the
foreseen failures of a run (exit code 1)."""

from __future__ import annotations

from gorila.config import ConfigError
from gorila.envs.registry import EnvError
from gorila.plugins import PluginError

USAGE_ERROR = 2
RUN_FAILURE = 1


class UserError(Exception):
    """Something the user can fix; printed as one line."""


def user_error_types() -> tuple[type[Exception], ...]:
    """Errors a user causes and can fix: `main` prints them as one line and exits with 2.

    The last three are imported here, when called, because their modules import torch: `main` calls
    this only after the command line parsed, so `--help` and a mistyped flag stay fast."""
    from gorila.evaluation.start_points import StartPointError
    from gorila.experiments.report.summary import ReportError
    from gorila.records.checkpoints import CheckpointError

    return UserError, ConfigError, EnvError, CheckpointError, StartPointError, ReportError, PluginError


def run_failure_types() -> tuple[type[Exception], ...]:
    """Foreseen failures of a run: a component failed (WorkerError), a file of the run could not be
    written (WriteError: a full disk, a quota, a file-size limit). `main` prints them as one line,
    which names the component or the file, and exits with 1."""
    from gorila.records.durable import WriteError
    from gorila.runtime.calls import WorkerError

    return WorkerError, WriteError
