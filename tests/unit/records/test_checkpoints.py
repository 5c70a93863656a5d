"""Checkpoints: rotation, a link for latest, checksums, falling back past a corrupt file, stale temporaries."""

import hashlib
import os
import stat

import pytest
import torch

from gorila.records.checkpoints import (
    CheckpointError,
    find_checkpoint,
    load_checkpoint,
    load_latest_good,
    remove_stale_temporaries,
    save_best,
    save_checkpoint,
    software_versions,
    training_checkpoints,
    version_note,
)


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
    data[len(data) // 2] ^= 0xFF  # one flipped byte: same size, wrong checksum
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


@pytest.mark.parametrize("damage", ["truncated", "zeroed"])
def test_a_truncated_or_zeroed_newest_checkpoint_is_skipped_with_a_line_naming_it(tmp_path, damage):
    save_checkpoint(tmp_path, payload(1), 100)
    newest = save_checkpoint(tmp_path, payload(2), 200)
    size = newest.stat().st_size
    newest.write_bytes(newest.read_bytes()[: size // 2] if damage == "truncated" else bytes(size))
    warnings = []
    assert load_latest_good(tmp_path, warn=warnings.append)["env_frames"] == 100
    assert len(warnings) == 1 and warnings[0].startswith("skipping ckpt-000000000200.pt: ")


def test_best_has_a_checksum_and_a_corrupt_best_is_refused(tmp_path):
    best = save_best(tmp_path, payload(3), 300)
    assert (tmp_path / "checkpoints" / "best.sha256").read_text().strip() == hashlib.sha256(
        best.read_bytes()
    ).hexdigest()
    assert load_checkpoint(tmp_path)["env_frames"] == 300
    data = bytearray(best.read_bytes())
    data[len(data) // 2] ^= 0xFF
    best.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="best.pt does not match its checksum"):
        load_checkpoint(tmp_path)


def test_every_file_and_its_directory_are_synced(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def recording_fsync(descriptor):
        synced.append("dir" if stat.S_ISDIR(os.fstat(descriptor).st_mode) else "file")
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    save_checkpoint(tmp_path, payload(1), 100)
    # the checkpoint, its checksum: each file synced, then its directory after the rename; then latest.pt's rename
    assert synced == ["file", "dir", "file", "dir", "dir"]


def test_checkpoints_record_versions_and_say_when_they_differ(tmp_path):
    path = save_checkpoint(tmp_path, payload(1), 100)
    written = load_checkpoint(path)
    assert written["versions"] == software_versions() and written["versions"]["torch"] == torch.__version__
    assert version_note(written, path) is None
    older = {**written, "versions": {**written["versions"], "torch": "1.0.0"}}
    assert version_note(older, path) == (
        f"ckpt-000000000100.pt was written with other versions: torch 1.0.0 -> {torch.__version__}"
    )
    legacy = {key: value for key, value in written.items() if key != "versions"}
    assert version_note(legacy, path) == "ckpt-000000000100.pt was written by a gorila that recorded no versions"


def test_a_checkpoint_in_a_format_this_gorila_cannot_read_is_refused_by_name(tmp_path):
    path = tmp_path / "future.pt"
    torch.save({"format": "gorila-checkpoint-9", "theta": torch.zeros(2)}, path)
    with pytest.raises(CheckpointError, match="is in format gorila-checkpoint-9, which this gorila"):
        load_checkpoint(path)
