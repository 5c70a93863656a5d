"""Checkpoints: tensors and plain data only, written atomically, loaded without executing code.

A checkpoint holds the resolved config, the environment's shape and the flat theta+ (and theta- where
known); a training checkpoint also holds what `gorila train --resume` needs (the shards' states,
the driver's counters, the evaluations). A run directory holds:

    checkpoints/ckpt-<frames>.pt   the last `keep` training checkpoints, each with a .sha256 beside it
    checkpoints/latest.pt          a link to the newest of them (not a second copy)
    checkpoints/best.pt            the parameters of the best evaluation, with that evaluation (and its .sha256)
    checkpoints/shards/shard-<i>.pt  each parameter shard's state as the driver last took it (a resumed
                                     run's shards start from the checkpoint's, written here first; a
                                     restarted shard is given its state from the driver's memory)
    checkpoints/replay/replay-<i>.npz  each replay memory's contents, with `save_replay`

`gorila evaluate RUN` loads `best.pt` when there is one. A checkpoint whose checksum does not match
is reported and the previous good one is used. Every file is written to a temporary name, synced,
renamed and its directory synced, so that a power loss or a node crash leaves the old file or the new
one, both whole (`gorila.records.durable`); a write that fails (a full disk) leaves no temporary and
no half-written checkpoint, and raises a WriteError naming the file. Each checkpoint records the
versions of gorila, torch and ale-py that wrote it (`version_note` says when they differ from this
process's).
"""

from __future__ import annotations

import functools
import hashlib
import pickle
import zipfile
from pathlib import Path
from typing import Callable

import torch

from gorila.core import ReplayHolder
from gorila.records.durable import WriteError, reason, replace, write_atomically, write_text_atomically
from gorila.records.metrics import truncate_metrics

FORMAT = "gorila-checkpoint-1"
LATEST = "latest.pt"
BEST = "best.pt"
PATTERN = "ckpt-*.pt"


class CheckpointError(ValueError):
    """A checkpoint is missing, unreadable or not a gorila checkpoint."""


def save_checkpoint(run_dir: str | Path, payload: dict, env_frames: int, keep: int = 3) -> Path:
    """Write checkpoints/ckpt-<frames>.pt (atomically, with its checksum), point latest.pt at it and
    delete all but the newest `keep` checkpoints."""
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"ckpt-{env_frames:012d}.pt"
    _write_checked(path, payload, env_frames)
    link = folder / f".{LATEST}.tmp"
    try:
        link.unlink(missing_ok=True)
        link.symlink_to(path.name)
        replace(link, folder / LATEST)
    except OSError as error:  # the checkpoint stands (a resume looks for ckpt-*.pt, not the link)
        link.unlink(missing_ok=True)
        raise WriteError(folder / LATEST, error.strerror or str(error)) from error
    for old in training_checkpoints(run_dir)[: -max(keep, 1)]:
        old.unlink(missing_ok=True)
        _checksum_file(old).unlink(missing_ok=True)
    return path


def checkpoint_frames(path: str | Path) -> int:
    """The frames a training checkpoint was written at, from its name (ckpt-<frames>.pt)."""
    return int(Path(path).stem.removeprefix("ckpt-"))


def training_checkpoints(run_dir: str | Path) -> list[Path]:
    """The run's ckpt-<frames>.pt files, oldest first."""
    return sorted((Path(run_dir) / "checkpoints").glob(PATTERN))


def remove_stale_temporaries(run_dir: str | Path) -> int:
    """Delete the temporary files a crash in the middle of a write left behind; how many there were."""
    stale = list((Path(run_dir) / "checkpoints").rglob("*.tmp"))
    for path in stale:
        path.unlink(missing_ok=True)
    return len(stale)


def load_latest_good(run_dir: str | Path, warn: Callable[[str], None] = print) -> dict:
    """The newest training checkpoint that reads back and matches its checksum (older ones are tried
    in turn, each failure reported through `warn`)."""
    candidates = training_checkpoints(run_dir)
    if not candidates:
        raise CheckpointError(f"no checkpoint to resume from in {Path(run_dir) / 'checkpoints'}")
    for path in reversed(candidates):
        try:
            payload = load_checkpoint(path)
        except CheckpointError as error:
            warn(f"skipping {path.name}: {error}")
            continue
        if "scheduler" in payload:
            payload["path"] = str(path)
            return payload
        warn(f"skipping {path.name}: written by an older gorila, it lacks the state a resume needs")
    raise CheckpointError(f"no usable checkpoint to resume from in {Path(run_dir) / 'checkpoints'}")


def shard_backup(run_dir: str | Path, index: int) -> Path:
    """Where parameter shard `index`'s last state is kept on the driver's disk."""
    return Path(run_dir) / "checkpoints" / "shards" / f"shard-{index}.pt"


def replay_file(run_dir: str | Path, index: int) -> Path:
    """Where replay memory `index`'s contents are saved (`save_replay`)."""
    return Path(run_dir) / "checkpoints" / "replay" / f"replay-{index}.npz"


def save_replays(calls, holders: list, run_dir: str | Path) -> None:
    """Each replay memory saves its contents to its `replay_file` (in its own process, on Ray); one
    whose write fails (a full disk) fails the checkpoint with a WriteError naming its file."""
    futures = [
        calls.call(holder, ReplayHolder.save_replay, str(replay_file(run_dir, i))) for i, holder in enumerate(holders)
    ]
    for index, future in enumerate(futures):
        try:
            calls.get([future])
        except Exception as error:
            cause = getattr(error, "cause", None) or error  # Ray's wrapper carries the component's error
            if isinstance(cause, OSError) and not calls.lost(error):
                raise WriteError(replay_file(run_dir, index), reason(cause)) from error
            raise


def save_shard_backups(run_dir: str | Path, states: list[dict], env_frames: int) -> None:
    for index, state in enumerate(states):
        path = shard_backup(run_dir, index)
        path.parent.mkdir(parents=True, exist_ok=True)
        _write(path, {"shard": state}, env_frames)


def load_shard_backup(path: str | Path) -> dict | None:
    """The shard state kept at `path`, or None when there is none (a fresh run)."""
    return load_checkpoint(path)["shard"] if Path(path).is_file() else None


def prepare_saved_states(
    run_dir: Path, param_shards: int, replays: int, resume: dict | None
) -> tuple[list[str], list[str]]:
    """Where each shard's state and each replay's contents are kept for restarts and resumes. A resumed
    run first puts the checkpoint's shard states there (and cuts the metrics back to the checkpoint);
    a new run removes whatever an earlier run left there, so that nothing of it is ever restored."""
    shards = [shard_backup(run_dir, i) for i in range(param_shards)]
    contents = [replay_file(run_dir, i) for i in range(replays)]
    if resume:
        remove_stale_temporaries(run_dir)
        save_shard_backups(run_dir, resume["shards"], resume["env_frames"])
        truncate_metrics(run_dir, resume["env_frames"], resume["wall_time"])
    else:
        for path in shards + contents:
            path.unlink(missing_ok=True)
    return [str(p) for p in shards], [str(p) for p in contents]


def save_best(run_dir: str | Path, payload: dict, env_frames: int) -> Path:
    """Write checkpoints/best.pt: the parameters of the best evaluation so far, with that evaluation."""
    path = Path(run_dir) / "checkpoints" / BEST
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_checked(path, payload, env_frames)
    return path


@functools.lru_cache(maxsize=1)
def software_versions() -> dict[str, str]:
    """The versions of what reads and writes a checkpoint: gorila, torch, ale-py ('' where not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in ("gorila", "torch", "ale-py"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = ""
    return found


def version_note(payload: dict, path) -> str | None:
    """One line naming the versions that differ between the checkpoint's writer and this process, or None
    (a checkpoint of an older gorila records none: it says so)."""
    written = payload.get("versions")
    if not isinstance(written, dict):
        return f"{Path(path).name} was written by a gorila that recorded no versions"
    here = software_versions()
    changed = [
        f"{name} {written.get(name) or '?'} -> {here[name] or '?'}" for name in here if written.get(name) != here[name]
    ]
    return f"{Path(path).name} was written with other versions: {', '.join(changed)}" if changed else None


def _write(path: Path, payload: dict, env_frames: int) -> None:
    full = {"format": FORMAT, "env_frames": int(env_frames), "versions": software_versions(), **payload}
    write_atomically(path, lambda file: torch.save(full, file))


def _write_checked(path: Path, payload: dict, env_frames: int) -> None:
    """The checkpoint and its checksum. A training checkpoint whose checksum cannot be written is
    removed again (a resume then takes the one before it, whole and verifiable); best.pt, which
    replaced the previous best already, loses its stale checksum instead of reading as corrupt."""
    _write(path, payload, env_frames)
    try:
        write_text_atomically(_checksum_file(path), _sha256(path) + "\n")
    except WriteError:
        (_checksum_file(path) if path.name == BEST else path).unlink(missing_ok=True)
        raise


def _checksum_file(path: Path) -> Path:
    return path.with_suffix(".sha256")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def find_checkpoint(path: str | Path) -> Path:
    """A checkpoint file, given one or a run directory (its best checkpoint, else its latest)."""
    path = Path(path)
    if path.is_dir():
        for candidate in (path / "checkpoints" / BEST, path / "checkpoints" / LATEST, path / BEST, path / LATEST):
            if candidate.is_file():
                return candidate
        raise CheckpointError(f"no checkpoint in {path} (expected {path / 'checkpoints' / LATEST})")
    if not path.is_file():
        raise CheckpointError(f"checkpoint not found: {path}")
    return path


def load_checkpoint(path: str | Path) -> dict:
    """Load a checkpoint with `weights_only=True`: unpickling can build tensors and plain data, nothing else."""
    path = find_checkpoint(path)
    checksum = _checksum_file(path.resolve())
    if checksum.is_file() and checksum.read_text().strip() != _sha256(path):
        raise CheckpointError(f"{path} does not match its checksum ({checksum.name}): the file is corrupt")
    if not zipfile.is_zipfile(path):
        raise CheckpointError(f"{path} is not a checkpoint file (not a PyTorch archive)")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, zipfile.BadZipFile, OSError, ValueError) as error:
        if "weights_only" in str(error):
            raise CheckpointError(
                f"refusing to load {path}: it holds objects other than tensors and plain "
                "data, and loading it could run code"
            ) from None
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"cannot read checkpoint {path}: {reason[:200]}") from None
    written = payload.get("format") if isinstance(payload, dict) else None
    if isinstance(written, str) and written.startswith("gorila-checkpoint-") and written != FORMAT:
        raise CheckpointError(
            f"{path} is in format {written}, which this gorila (format {FORMAT}) cannot "
            f"read; use the gorila version that wrote it"
        )
    if written != FORMAT:
        raise CheckpointError(f"{path} is not a gorila checkpoint")
    return payload
