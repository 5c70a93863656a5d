"""The errors a user causes and can fix, which `gorila` prints as one line before exit code 2."""
from __future__ import annotations

from gorila.config import ConfigError

USAGE_ERROR = 2


class UserError(Exception):
    """Something the user can fix; printed as one line."""


def user_error_types() -> tuple[type[Exception], ...]:
    """Errors a user causes and can fix: `main` prints them as one line and exits with 2.

    Imported here, when called, because their modules import torch: `main` calls this only after the
    command line parsed, so `--help` and a mistyped flag stay fast."""
    from gorila.records.checkpoints import CheckpointError
    from gorila.envs import EnvError
    from gorila.experiments.report.summary import ReportError
    from gorila.evaluation.start_points import StartPointError
    return UserError, ConfigError, EnvError, CheckpointError, StartPointError, ReportError
