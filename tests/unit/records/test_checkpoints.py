"""Checkpoints: rotation, a link for latest, checksums, falling back past a corrupt file, stale temporaries."""
import os

import pytest
import torch

from gorila.records.checkpoints import (CheckpointError, find_checkpoint, load_checkpoint, load_latest_good,
                               remove_stale_temporaries, save_checkpoint, training_checkpoints)


def payload(value: float) -> dict:
    return {"theta": torch.full((4,), value), "scheduler": {"steps": int(value)}}


def test_only_the_newest_are_kept_and_latest_points_at_the_newest(tmp_path):
    for frames in (100, 200, 300, 400):
        save_checkpoint(tmp_path, payload(frames), frames, keep=2)
    names = [p.name for p in training_checkpoints(tmp_path)]
    assert names == ["ckpt-000000000300.pt", "ckpt-000000000400.pt"]
    latest = tmp_path / "checkpoints" / "latest.pt"
    assert latest.is_symlink() and os.readlink(latest) == "ckpt-000000000400.pt"
    assert not (tmp_path / "checkpoints" / "ckpt-000000000100.sha256").exists()
    assert load_checkpoint(find_checkpoint(tmp_path))["env_frames"] == 400


def test_a_corrupt_latest_is_reported_and_the_previous_one_used(tmp_path):
    save_checkpoint(tmp_path, payload(1), 100)
    newest = save_checkpoint(tmp_path, payload(2), 200)
    data = bytearray(newest.read_bytes())
    data[len(data) // 2] ^= 0xFF                       # one flipped byte: same size, wrong checksum
    newest.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="checksum"):
        load_checkpoint(newest)
    warnings = []
    resumed = load_latest_good(tmp_path, warn=warnings.append)
    assert resumed["env_frames"] == 100 and resumed["path"].endswith("ckpt-000000000100.pt")
    assert len(warnings) == 1 and "ckpt-000000000200.pt" in warnings[0]


def test_nothing_to_resume_from_is_a_checkpoint_error(tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint to resume from"):
        load_latest_good(tmp_path)


def test_temporary_files_left_by_a_crash_are_removed(tmp_path):
    save_checkpoint(tmp_path, payload(1), 100)
    (tmp_path / "checkpoints" / "ckpt-000000000200.pt.tmp").write_bytes(b"half")
    assert remove_stale_temporaries(tmp_path) == 1
    assert not list((tmp_path / "checkpoints").glob("*.tmp"))
    assert len(training_checkpoints(tmp_path)) == 1
