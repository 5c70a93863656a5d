"""The resident memory of a run's processes over its life, for `benchmarks/atari_baseline.py --memory`.

Every `--every` seconds (default 60) until PID exits, one line per process (PID and every process
under it, which on Ray are the raylet's workers only when PID started Ray itself):
`unix_time pid rss_kb command`.
Usage: python benchmarks/memwatch.py PID OUT [--every SECONDS] &
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from processes import children, resident_kb


def command_line(pid: int) -> str:
    """A process's command line, its first 80 characters; empty when it is gone."""
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:80]
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pid", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--every", type=float, default=60.0, help="seconds between samples")
    args = parser.parse_args()
    while alive(args.pid):
        now = int(time.time())
        lines = []
        for pid in [args.pid, *children(args.pid)]:
            rss = resident_kb(pid)
            if rss is not None:
                lines.append(f"{now} {pid} {rss} {command_line(pid)}\n")
        with args.out.open("a") as out:
            out.writelines(lines)
        time.sleep(args.every)


if __name__ == "__main__":
    main()
