"""Run directories: each launch claims its own (`claim_run_dir`), holds it locked for the run's life
(`RunLock`), and gives it back if it wrote nothing (`remove_if_empty`)."""

from __future__ import annotations

import fcntl
import itertools
import os
import re
import socket
import tempfile
import time
from pathlib import Path

from gorila.config import Config, ConfigError
from gorila.plugins import reference_of


def claim_run_dir(config: Config) -> tuple[Path, bool]:
    """Create the run directory now, and say whether this launch created it.

    Created at once, because creating is the only test of writability that does not lie (permissions,
    read-only mounts, a file in the way), and because `mkdir` is atomic: of two launches naming the
    same directory, exactly one gets it.
    """
    if config.run_dir:
        return claim_given(Path(config.run_dir))
    return claim_default(reference_of(config.env).rpartition(":")[2]), True  # a module's env by its own name


def claim_given(path: Path) -> tuple[Path, bool]:
    """An explicit --run-dir: made here, or an existing empty directory we can write in."""
    if path.exists():
        if not path.is_dir():
            raise ConfigError(f"run_dir: {path} is a file; choose another --run-dir")
        RunLock.refuse_if_held(path)
        if any(entry.name != LOCK for entry in path.iterdir()):
            raise ConfigError(f"run_dir: {path} already exists and is not empty; choose another --run-dir")
        try:
            with tempfile.TemporaryFile(dir=path):
                pass
        except OSError as error:
            raise ConfigError(f"run_dir: cannot write in {path} ({error.strerror or error})") from None
        return path, False
    try:
        path.mkdir(parents=True)
    except FileExistsError:
        raise ConfigError(f"run_dir: {path} was created by another launch just now; choose another --run-dir") from None
    except OSError as error:
        raise ConfigError(f"run_dir: cannot create {path} ({error.strerror or error})") from None
    return path, True


def claim_default(env: str) -> Path:
    """runs/<env>-<date>-<time>, or the first of -2, -3, ... after it that no other launch took."""
    base = Path("runs") / f"{re.sub(r'[/<>]', '_', env)}-{time.strftime('%Y%m%d-%H%M%S')}"
    for attempt in itertools.count(1):
        path = base if attempt == 1 else base.with_name(f"{base.name}-{attempt}")
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
            path.mkdir()
            return path
        except FileExistsError:
            continue
        except OSError as error:
            raise ConfigError(f"run_dir: cannot create {path} ({error.strerror or error}); pass --run-dir") from None
    raise AssertionError("unreachable")


LOCK = ".gorila.lock"


class RunLock:
    """An exclusive lock on a run directory, held for the run's life: the file `.gorila.lock` in it,
    locked with flock(2) and naming its holder. Two launches on one directory (an existing empty one,
    or a --resume beside a live run) cannot both hold it; the second is told who does. The kernel
    drops the lock when its process dies, so a run killed with kill -9 leaves a file that the next
    launch takes over."""

    def __init__(self, run_dir: str | Path):
        self.path = Path(run_dir) / LOCK
        self.file = _locked(self.path, run_dir)
        self.file.seek(0)
        self.file.truncate()
        self.file.write(
            f"gorila pid {os.getpid()} on {socket.gethostname()} since {time.strftime('%Y-%m-%d %H:%M:%S')}\n"
        )
        self.file.flush()

    @staticmethod
    def refuse_if_held(run_dir: str | Path) -> None:
        """ConfigError naming the holder when a live run holds `run_dir`'s lock; nothing otherwise."""
        path = Path(run_dir) / LOCK
        if path.is_file():
            file = _locked(path, run_dir)
            fcntl.flock(file, fcntl.LOCK_UN)
            file.close()

    def release(self) -> None:
        """Give the directory back; the lock file goes with it (it is no part of the run's records)."""
        self.path.unlink(missing_ok=True)
        fcntl.flock(self.file, fcntl.LOCK_UN)
        self.file.close()


def _locked(path: Path, run_dir):
    """`path` opened and flock'ed exclusively, or ConfigError naming the process that holds it."""
    file = open(path, "a+")
    try:
        fcntl.flock(file, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        file.seek(0)
        holder = file.read().strip() or "another gorila launch"
        file.close()
        raise ConfigError(
            f"run_dir: {run_dir} is in use by {holder}; wait for it to end or choose another --run-dir"
        ) from None
    return file


def remove_if_empty(path: Path) -> None:
    """A run that failed before writing anything leaves no directory behind (its name can be reused)."""
    try:
        path.rmdir()
    except OSError:
        pass  # not empty: the run wrote something a user may want
