"""The guard of an embedded Ray: what ends its processes when their driver dies without shutting Ray
down (kill -9, the OOM killer).

Ray's own fate sharing does most of it: the GCS, the raylet and Ray's other servers are started with
PR_SET_PDEATHSIG and die with the driver, and the workers exit within about two seconds of their
raylet. Two processes outlive it: the raylet's dashboard agent and runtime-env agent, which notice
the raylet's death at once but first try to report it to the GCS, already dead, with a fixed timeout
of 60 s (Ray 2.60, `process_watcher.report_raylet_error_logs`). So a driver that starts an embedded
Ray also starts this guard (`start`): one small process, without Ray, that notes the session's
processes while the driver lives (the driver's children that name the session directory, and all
their descendants) and, once the driver is gone, gives them GRACE_S to end by Ray's own means, then
kills those still there. When the session ends in order (`ray.shutdown`), the guard just exits.

Noting by ancestry misses a worker that the raylet starts in the last scan's second before the driver
dies: the raylet dies with the driver, the worker is an orphan that no ancestry reaches, and it waits on
the dead GCS for a minute. So at the driver's death the guard also reaches the raylet's workers by their
environment: Ray gives each worker its raylet's pid (RAY_RAYLET_PID), and their children inherit it.

It learns of the driver's death from its stdin, a pipe whose only writer is the driver: the kernel
closes it when the driver dies, however it dies.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from typing import Callable

SCAN_S = 1.0  # how often the session's processes are noted again (Ray starts workers as it goes)
GRACE_S = 3.0  # what Ray's own fate sharing gets before the guard kills what is left
_guards: list[subprocess.Popen] = []


def start(session_dir: str) -> None:
    """Start the guard of the embedded Ray whose session directory is `session_dir`."""
    _guards[:] = [guard for guard in _guards if guard.poll() is None]  # reap those whose session ended
    _guards.append(
        subprocess.Popen(
            [sys.executable, "-m", "gorila.runtime.session_guard", str(os.getpid()), session_dir],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            process_group=0,  # a stop sent to the run's process group is the driver's to act on, not the guard's
        )
    )


def processes() -> dict[int, tuple[int, int]]:
    """Every process's (parent pid, start time) from /proc (start times tell a reused pid apart)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields:
                found[int(entry)] = (int(fields[1]), int(fields[19]))
    return found


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state first), or None for a process that is gone."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            return file.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _names(pid: int, text: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return text.encode() in file.read()
    except OSError:
        return False


def session_processes(driver: int, session_dir: str) -> dict[int, int]:
    """pid -> start time of the driver's children naming `session_dir` (but this guard, which names it too)
    and of all their descendants."""
    return descendants(driver, lambda pid: pid != os.getpid() and _names(pid, session_dir))


def children(driver: int) -> set[int]:
    """The pids of the driver's children now."""
    return {pid for pid, (parent, _) in processes().items() if parent == driver}


def descendants(driver: int, chosen: Callable[[int], bool]) -> dict[int, int]:
    """pid -> start time of the driver's children that are `chosen`, and of all their descendants."""
    table = processes()
    below: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        below.setdefault(parent, []).append(pid)
    found, todo = {}, [pid for pid in below.get(driver, []) if chosen(pid)]
    while todo:
        pid = todo.pop()
        found[pid] = table[pid][1]
        todo.extend(below.get(pid, []))
    return found


def raylet_workers(noted: dict[int, int]) -> dict[int, int]:
    """pid -> start time of the processes whose environment names a noted process as their raylet
    (RAY_RAYLET_PID) and that started after it (a reused pid is no raylet of theirs)."""
    found = {}
    for pid, (_, started) in processes().items():
        raylet = raylet_pid(pid)
        if raylet in noted and started >= noted[raylet] and pid != os.getpid():
            found[pid] = started
    return found


def raylet_pid(pid: int) -> int | None:
    """The pid of the raylet that started process `pid` (RAY_RAYLET_PID in its environment), if any."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            variables = file.read().split(b"\0")
    except OSError:
        return None  # gone, or another user's
    for variable in variables:
        if variable.startswith(b"RAY_RAYLET_PID="):
            value = variable.split(b"=", 1)[1]
            return int(value) if value.isdigit() else None
    return None


def alive(pid: int, started: int) -> bool:
    """Is `pid` still the process noted (not a zombie, not a new process under a reused pid)?"""
    fields = _stat(pid)
    return bool(fields) and fields[0] != "Z" and int(fields[19]) == started


def end(noted: dict[int, int]) -> None:
    """The driver is gone: wait GRACE_S for the noted processes and their raylets' workers to end, then
    kill those that did not. `noted` gains the workers found."""
    deadline = time.monotonic() + GRACE_S
    while True:
        noted.update(raylet_workers(noted))  # again each round: one may have been mid-exec at the first
        if time.monotonic() >= deadline or not any(alive(pid, started) for pid, started in noted.items()):
            break
        time.sleep(0.2)
    for pid, started in noted.items():
        if alive(pid, started):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass  # it ended just now


def guard(driver: int, session_dir: str) -> None:
    """Note the session's processes until the driver dies (then `end` them) or the session ends in order."""
    noted: dict[int, int] = {}
    while True:
        readable, _, _ = select.select([sys.stdin], [], [], SCAN_S)
        if readable and not os.read(sys.stdin.fileno(), 1024):
            return end(noted)  # end of file: the driver died
        now = session_processes(driver, session_dir)
        if noted and not now:
            # the session's servers are gone: a shutdown if the driver lives, else its death
            return end(noted) if os.getppid() != driver else None
        noted.update(now)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the driver handles it
    guard(int(sys.argv[1]), sys.argv[2])
