"""A run whose files cannot grow: `gorila train` ends with one line naming the file it could not write
and exit code 1, after trying a final checkpoint; what it wrote before stays whole.

The disk fills for real in a child process: a limit on file size (RLIMIT_FSIZE, SIGXFSZ ignored), so
that a write past it fails with EFBIG in the middle of torch.save or np.savez, as ENOSPC does on a
full disk (mounting a small tmpfs would need root).
"""

import json
import re
import resource
import signal
import subprocess
import sys

import pytest

from gorila.records.checkpoints import checkpoint_frames, load_checkpoint, training_checkpoints
from tests.helpers import slowdown

# A CartPole checkpoint of the preset's network is 116 kB; its saved replay grows past 150 kB by
# about 8,000 frames, so under 150 kB the first checkpoints are written whole and a later one fails.
CHECKPOINT_FITS, CHECKPOINT_DOES_NOT = 150_000, 100_000


def limited_to(size: int):
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, not the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


def train(run_dir, size: int, *flags: str) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "gorila",
        "train",
        "--preset",
        "cartpole",
        "--runtime",
        "local",
        "--run-dir",
        str(run_dir),
        "--total-frames",
        "60000",
        "--checkpoint-every-frames",
        "1000",
        "--eval-every-frames",
        "0",
        "--log-every-seconds",
        "1",
        *flags,
    ]
    return subprocess.run(
        command, preexec_fn=limited_to(size), capture_output=True, text=True, timeout=240 * slowdown()
    )


@pytest.mark.parametrize(
    "size, flags, failing",
    [
        (CHECKPOINT_FITS, ["--save-replay"], r"checkpoints/replay/replay-0\.npz"),
        (CHECKPOINT_DOES_NOT, [], r"checkpoints/ckpt-\d{12}\.pt"),  # the first, at about 1,000 frames
    ],
    ids=["replay-grows-past-the-limit", "first-checkpoint-too-large"],
)
def test_a_full_disk_ends_the_run_with_one_line_naming_the_file(tmp_path, size, flags, failing):
    run_dir = tmp_path / "run"
    result = train(run_dir, size, *flags)
    assert result.returncode == 1, result.stderr
    line = f"cannot write {re.escape(str(run_dir))}/{failing}: File too large"
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and re.fullmatch(f"gorila: error: {line}", errors[0]), result.stderr
    assert re.search(f"no final checkpoint \\(WriteError: {line}\\)", result.stdout)  # it was tried
    assert list(run_dir.rglob("*.tmp")) == []
    for checkpoint in training_checkpoints(run_dir):  # each whole, matching its checksum
        assert load_checkpoint(checkpoint)["env_frames"] == checkpoint_frames(checkpoint)
    records = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]  # all whole
    assert all(record["kind"] == "train" for record in records)
    if size == CHECKPOINT_FITS:
        assert len(training_checkpoints(run_dir)) == 3 and records
