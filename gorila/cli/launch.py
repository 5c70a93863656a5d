"""When the command was launched: metrics count wall time from here, so that what a user waits for
includes the command's start-up (imports, Ray). Set when `gorila.cli` is first imported."""

from __future__ import annotations

import time

LAUNCHED = time.time()
