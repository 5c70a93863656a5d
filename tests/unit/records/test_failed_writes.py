"""Writes that fail for want of space: a real limit on file size (RLIMIT_FSIZE, with SIGXFSZ ignored,
so that a write past it fails with EFBIG as on a full disk) makes torch.save, the checksum and the
metrics fail part-way. Each failure is a WriteError naming the file; nothing written before is lost
or cut short, and no temporary is left."""

import contextlib
import json
import resource
import signal

import pytest
import torch

from gorila.records.checkpoints import (
    load_checkpoint,
    load_latest_good,
    save_best,
    save_checkpoint,
    training_checkpoints,
)
from gorila.records.durable import WriteError
from gorila.records.metrics import MetricsWriter, read_metrics


@contextlib.contextmanager
def file_size_limit(limit: int):
    """No file of this process grows past `limit` bytes while inside."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


def payload(size: int) -> dict:
    return {"theta": torch.ones(size), "scheduler": {"steps": size}}


def leftovers(root) -> list:
    return sorted(p.name for p in root.rglob("*.tmp"))


def test_a_checkpoint_cut_short_is_a_write_error_naming_it_and_the_previous_one_stands(tmp_path):
    save_checkpoint(tmp_path, payload(1_000), 100)
    with file_size_limit(20_000), pytest.raises(WriteError) as caught:
        save_checkpoint(tmp_path, payload(10_000), 200)  # 40 kB of parameters: cut off at 20 kB
    assert str(caught.value) == f"cannot write {tmp_path}/checkpoints/ckpt-000000000200.pt: File too large"
    assert leftovers(tmp_path) == []
    assert [p.name for p in training_checkpoints(tmp_path)] == ["ckpt-000000000100.pt"]
    assert load_latest_good(tmp_path)["env_frames"] == 100
    assert load_checkpoint(tmp_path / "checkpoints" / "latest.pt")["env_frames"] == 100


def test_a_checkpoint_whose_checksum_cannot_be_written_is_removed_again(tmp_path):
    save_checkpoint(tmp_path, payload(10), 100)
    (tmp_path / "checkpoints" / "ckpt-000000000200.sha256.tmp").mkdir()  # a name that cannot be opened for writing
    with pytest.raises(WriteError, match=r"cannot write .*ckpt-000000000200\.sha256: Is a directory"):
        save_checkpoint(tmp_path, payload(20), 200)
    assert [p.name for p in training_checkpoints(tmp_path)] == ["ckpt-000000000100.pt"]
    assert load_latest_good(tmp_path)["env_frames"] == 100


def test_a_best_cut_short_leaves_the_previous_best(tmp_path):
    best = save_best(tmp_path, payload(1_000), 100)
    with file_size_limit(20_000), pytest.raises(WriteError, match="best.pt: File too large"):
        save_best(tmp_path, payload(10_000), 200)
    assert load_checkpoint(best)["env_frames"] == 100 and leftovers(tmp_path) == []


def test_a_metrics_record_cut_short_is_cut_back_off(tmp_path):
    metrics = MetricsWriter(tmp_path, tensorboard=False)
    with file_size_limit(1_000), pytest.raises(WriteError) as caught:
        for frames in range(1_000):
            metrics.write("train", frames, {"loss": 0.5, "note": "x" * 40})
    metrics.close()
    assert str(caught.value) == f"cannot write {tmp_path}/metrics.jsonl: File too large"
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert lines and all(json.loads(line)["kind"] == "train" for line in lines)  # every line whole
    assert [r["env_frames"] for r in read_metrics(tmp_path)] == list(range(len(lines)))
