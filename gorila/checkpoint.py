"""Checkpoints: tensors and plain data only, written atomically, loaded without executing code.

A checkpoint holds the resolved config, the environment's shape and the flat theta+ (and theta- where
known). A run directory holds `checkpoints/ckpt-<frames>.pt` and `latest.pt` (the parameters when it
was written) and `best.pt`: the parameters of the best evaluation, with that evaluation (and its
independent confirmation) in the payload. `gorila evaluate RUN` loads `best.pt` when there is one.
"""
from __future__ import annotations

import os
import pickle
import zipfile
from pathlib import Path

import torch

FORMAT = "gorila-checkpoint-1"
LATEST = "latest.pt"
BEST = "best.pt"


class CheckpointError(ValueError):
    """A checkpoint is missing, unreadable or not a gorila checkpoint."""


def save_checkpoint(run_dir: str | Path, payload: dict, env_frames: int) -> Path:
    """Write checkpoints/ckpt-<frames>.pt and checkpoints/latest.pt, each via a temporary file and rename."""
    folder = Path(run_dir) / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"ckpt-{env_frames:012d}.pt"
    for target in (path, folder / LATEST):
        _write(target, payload, env_frames)
    return path


def save_best(run_dir: str | Path, payload: dict, env_frames: int) -> Path:
    """Write checkpoints/best.pt: the parameters of the best evaluation so far, with that evaluation."""
    path = Path(run_dir) / "checkpoints" / BEST
    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, payload, env_frames)
    return path


def _write(path: Path, payload: dict, env_frames: int) -> None:
    temporary = path.with_suffix(".pt.tmp")
    torch.save({"format": FORMAT, "env_frames": int(env_frames), **payload}, temporary)
    os.replace(temporary, path)   # atomic: a crash leaves the old file or the new one, never half


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
    if not zipfile.is_zipfile(path):
        raise CheckpointError(f"{path} is not a checkpoint file (not a PyTorch archive)")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, zipfile.BadZipFile, OSError, ValueError) as error:
        if "weights_only" in str(error):
            raise CheckpointError(f"refusing to load {path}: it holds objects other than tensors and plain "
                                  "data, and loading it could run code") from None
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CheckpointError(f"cannot read checkpoint {path}: {reason[:200]}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a gorila checkpoint")
    return payload
