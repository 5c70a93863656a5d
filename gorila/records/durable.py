"""Durable writes: every file of a run directory that must survive whole is written to a temporary
name, synced, renamed over the old one and its directory synced, so that a power loss or a node
crash leaves the old file or the new one, never half of either.

A write that fails (a full disk, a quota, a file-size limit) removes its temporary and raises
`WriteError`, which names the file: `gorila` prints it as one line and exits with 1.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO, Callable


class WriteError(OSError):
    """A file of the run could not be written; str() is `cannot write PATH: REASON`."""

    def __init__(self, path: str | Path, reason: str):
        super().__init__(f"cannot write {path}: {reason}")
        self.path = str(path)

    def __str__(self) -> str:
        return self.args[0]


def reason(error: BaseException) -> str:
    """Why a write failed, in words: the OSError's own words (`No space left on device`, `File too
    large`), also when a writer such as torch.save reported it as something else and kept the OSError
    only as its context."""
    seen = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.strerror:
            return seen.strerror
        seen = seen.__cause__ or seen.__context__
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0][:200]}" if text else type(error).__name__


def write_atomically(path: str | Path, write: Callable[[IO[bytes]], None]) -> Path:
    """Write `path` through `write(file)` on a temporary beside it, durably (see the module); on any
    failure the temporary is gone, the old `path` is untouched and WriteError names `path`."""
    path = Path(path)
    temporary = path.with_name(path.name + ".tmp")
    try:
        with open(temporary, "wb") as file:
            write(file)
            sync(file)
        replace(temporary, path)
    except Exception as error:
        with contextlib.suppress(OSError):  # the cleanup must not hide why the write failed
            temporary.unlink(missing_ok=True)
        if isinstance(error, WriteError):
            raise
        raise WriteError(path, reason(error)) from error
    return path


def write_text_atomically(path: str | Path, text: str) -> Path:
    return write_atomically(path, lambda file: file.write(text.encode()))


def sync(file) -> None:
    """The file's bytes on disk, not only in the page cache."""
    file.flush()
    os.fsync(file.fileno())


def replace(temporary: Path, path: Path) -> None:
    """Rename atomically (a crash leaves the old file or the new one, never half), then sync the
    directory so that the rename itself survives a power loss."""
    os.replace(temporary, path)
    descriptor = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
