"""Run directories: each launch claims its own (`claim_run_dir`), and gives it back if it wrote nothing
(`remove_if_empty`)."""
from __future__ import annotations

import itertools
import tempfile
import time
from pathlib import Path

from gorila.config import Config, ConfigError


def claim_run_dir(config: Config) -> tuple[Path, bool]:
    """Create the run directory now, and say whether this launch created it.

    Created at once, because creating is the only test of writability that does not lie (permissions,
    read-only mounts, a file in the way), and because `mkdir` is atomic: of two launches naming the
    same directory, exactly one gets it.
    """
    if config.run_dir:
        return claim_given(Path(config.run_dir))
    return claim_default(config.env), True


def claim_given(path: Path) -> tuple[Path, bool]:
    """An explicit --run-dir: made here, or an existing empty directory we can write in."""
    if path.exists():
        if not path.is_dir():
            raise ConfigError(f"run_dir: {path} is a file; choose another --run-dir")
        if any(path.iterdir()):
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
    base = Path("runs") / f"{env.replace('/', '_')}-{time.strftime('%Y%m%d-%H%M%S')}"
    for attempt in itertools.count(1):
        path = base if attempt == 1 else base.with_name(f"{base.name}-{attempt}")
        try:
            base.parent.mkdir(parents=True, exist_ok=True)
            path.mkdir()
            return path
        except FileExistsError:
            continue
        except OSError as error:
            raise ConfigError(f"run_dir: cannot create {path} ({error.strerror or error}); "
                              "pass --run-dir") from None
    raise AssertionError("unreachable")


def remove_if_empty(path: Path) -> None:
    """A run that failed before writing anything leaves no directory behind (its name can be reused)."""
    try:
        path.rmdir()
    except OSError:
        pass            # not empty: the run wrote something a user may want
