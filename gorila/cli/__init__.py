"""`gorila train | evaluate | record-starts | suite | report | bench`: the command line, generated from `Config`.

Every config field is a flag (`--total-frames`, `--bundled/--no-bundled`, ...) whose help is the
field's docstring; `--preset`, `--config FILE` and `--set KEY=VALUE` layer on top in that order.
Errors a user can cause end with one line and exit code 2, never a traceback.

One module per subcommand (`train`, `evaluate`, `record_starts`, `suite`, `report`, `bench`), each with
`add_parser(commands)` and `run(args)`; `main` parses and dispatches; `flags` turns config fields into
flags and back; `errors` names the errors that are the user's to fix.
"""

from __future__ import annotations

from gorila.cli.launch import LAUNCHED  # first: the wall time of a run counts from the launch
from gorila.cli.main import main

__all__ = ["LAUNCHED", "main"]
