"""`gorila train --track` in real processes: an offline Weights & Biases run with the config and the
same scalars as metrics.jsonl and TensorBoard; the new train metrics (epsilon, q_mean, episode_length)
in all three; a resumed run continuing the same W&B run; and the one-line refusals when W&B cannot
start a run without asking (not installed, or no API key while online: it would prompt for one)."""

import json
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import time

import pytest
from wandb.proto import wandb_internal_pb2

from gorila.records.metrics import read_metrics
from tests.helpers import slowdown, wait_for

# A train record at every turn of the driver's loop (each takes far longer than a microsecond: a work
# item of the local runtime), so that a run's records are as many as its work items on any machine,
# not as many as its wall time allows (at 0.3 s, a fast machine ran 3,000 frames in fewer than 3).
TRAIN = ["train", "--preset", "cartpole", "--runtime", "local", "--log-every-seconds", "0.000001"]
EPSILON_END = 0.04  # the cartpole preset's, for its one actor


def clean_env(tmp_path, **extra) -> dict:
    """This test's gorila on the path, W&B's own folders in `tmp_path`, none of the caller's W&B settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("WANDB_")}
    return {
        **env,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "WANDB_DIR": str(tmp_path),
        "WANDB_CONFIG_DIR": str(tmp_path / "wandb-config"),
        "WANDB_CACHE_DIR": str(tmp_path / "wandb-cache"),
        "WANDB_DATA_DIR": str(tmp_path / "wandb-data"),
        **extra,
    }


def gorila(args, tmp_path, env, timeout=300, **options):
    """`gorila ARGS` run to its end, within `timeout` seconds of an idle machine."""
    return subprocess.run(
        [sys.executable, "-m", "gorila", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout * slowdown(),
        **options,
    )


def wandb_records(path) -> list:
    """The records of a W&B run file (`run-ID.wandb`): W&B's protobuf `Record`s in the LevelDB log
    format, 32 KiB blocks of chunks with a 7-byte header (checksum, length, type), after a 7-byte
    file header."""
    data, records, position, pending = path.read_bytes(), [], 7, b""
    while position + 7 <= len(data):
        if 32768 - position % 32768 < 7:  # a block's tail too short for a header is padding
            position += 32768 - position % 32768
            continue
        _, length, kind = struct.unpack("<IHB", data[position : position + 7])
        if kind == 0:
            break
        pending += data[position + 7 : position + 7 + length]
        position += 7 + length
        if kind in (1, 4):  # a whole record, or the last chunk of one
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            records.append(record)
            pending = b""
    return records


def wandb_run(run_dir) -> dict:
    """Each offline run W&B wrote in `run_dir`, oldest first: its id, config, history rows and exit code."""
    runs = []
    for folder in sorted((run_dir / "wandb").glob("offline-run-*")):
        (file,) = folder.glob("run-*.wandb")
        run = {"history": [], "exit_code": None}
        for record in wandb_records(file):
            kind = record.WhichOneof("record_type")
            if kind == "run":
                run["id"] = record.run.run_id
                run["config"] = {item.key: json.loads(item.value_json) for item in record.run.config.update}
            elif kind == "history":
                run["history"].append(
                    {item.key or "/".join(item.nested_key): json.loads(item.value_json) for item in record.history.item}
                )  # W&B splits `train/fps` at the /
            elif kind == "exit":
                run["exit_code"] = record.exit.exit_code
        runs.append(run)
    return runs


@pytest.fixture(scope="module")
def tracked_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("tracked")
    process = gorila(
        [*TRAIN, "--total-frames", "3000", "--track", "--run-dir", str(tmp_path / "run")],
        tmp_path,
        clean_env(tmp_path, WANDB_MODE="offline"),
    )
    assert process.returncode == 0, process.stderr[-3000:]
    return tmp_path / "run"


def test_a_tracked_run_writes_an_offline_wandb_run_with_the_config_and_the_metrics_scalars(tracked_run):
    (run,) = wandb_run(tracked_run)
    assert run["id"] == (tracked_run / "wandb-run-id").read_text().strip()
    assert run["config"]["env"] == "CartPole-v1" and run["config"]["total_frames"] == 3000
    assert run["config"]["track"] is True and run["exit_code"] == 0
    logged = [row for row in run["history"] if "train/fps" in row]
    trains = [r for r in read_metrics(tracked_run) if r["kind"] == "train"]
    assert [row["env_frames"] for row in logged] == [r["env_frames"] for r in trains]
    for row, record in zip(logged, trains):
        for key in ("fps", "loss", "epsilon", "q_mean", "episode_length", "ps_version"):
            if key in record:
                assert row[f"train/{key}"] == pytest.approx(record[key])
    (evaluation,) = [row for row in run["history"] if "eval/eval_return_mean" in row]
    (eval_record,) = [r for r in read_metrics(tracked_run) if r["kind"] == "eval"]
    assert evaluation["eval/eval_return_mean"] == eval_record["eval_return_mean"]
    assert evaluation["env_frames"] == eval_record["env_frames"]


def test_train_records_have_the_exploration_rate_the_mean_q_and_the_episode_length(tracked_run):
    trains = [r for r in read_metrics(tracked_run) if r["kind"] == "train"]
    assert len(trains) >= 3
    epsilons = [r["epsilon"] for r in trains]
    assert all(EPSILON_END <= e <= 1.0 for e in epsilons) and epsilons == sorted(epsilons, reverse=True)
    assert epsilons[0] > epsilons[-1] + 0.1  # 3,000 of the 8,000 steps epsilon anneals over
    assert all(8 <= r["episode_length"] <= 500 for r in trains)
    assert all(r["episode_length"] == pytest.approx(r["return_mean"]) for r in trains)  # CartPole: 1 a step
    learning = [r for r in trains if r.get("updates")]
    assert learning and all("q_mean" in r and 0 < r["q_mean"] < 100 for r in learning)  # returns <= 100 at gamma 0.99
    assert all("q_mean" not in r for r in trains if not r.get("updates"))  # no minibatch, no mean Q


def test_tensorboard_has_the_new_scalars_too(tracked_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tracked_run / "tensorboard")).Reload()
    trains = [r for r in read_metrics(tracked_run) if r["kind"] == "train"]
    for key in ("epsilon", "episode_length", "q_mean"):
        logged = {event.step: event.value for event in events.Scalars(f"train/{key}")}
        assert logged == {r["env_frames"]: pytest.approx(r[key]) for r in trains if key in r}


def test_an_interrupted_tracked_run_resumes_into_the_same_wandb_run(tmp_path):
    env = clean_env(tmp_path, WANDB_MODE="offline")
    run_dir = tmp_path / "run"
    # a budget far beyond where the Ctrl-C lands (right after the first train record), so that the run
    # cannot have ended before it; the resumed run then goes 3,000 frames further
    first = subprocess.Popen(
        [sys.executable, "-m", "gorila", *TRAIN, "--total-frames", "200000", "--track", "--run-dir", str(run_dir)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    metrics = run_dir / "metrics.jsonl"
    trained = lambda: first.poll() is not None or (metrics.is_file() and '"train"' in metrics.read_text())
    assert wait_for(trained, 120, poll=0.05) and first.poll() is None, "no train record, or the run ended"
    os.killpg(first.pid, signal.SIGINT)  # Ctrl-C: the whole group, wandb's service too
    assert first.wait(timeout=120 * slowdown()) == 130, first.stderr.read()[-3000:]
    stopped = read_metrics(run_dir)[-1]["env_frames"]
    assert stopped < 200_000

    resumed = gorila(["train", "--resume", str(run_dir), "--total-frames", str(stopped + 3000)], tmp_path, env)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    before, after = wandb_run(run_dir)
    assert before["id"] == after["id"] == (run_dir / "wandb-run-id").read_text().strip()
    assert (before["exit_code"], after["exit_code"]) == (130, 0)
    frames = [row["env_frames"] for row in after["history"] if "train/fps" in row]
    assert frames and min(frames) > stopped and max(frames) >= stopped + 3000


def test_without_wandb_a_tracked_run_is_refused_in_one_line_before_anything_starts(tmp_path):
    hide = "import sys; sys.modules['wandb'] = None; from gorila.cli import main; sys.exit(main())"
    process = subprocess.run(
        [sys.executable, "-c", hide, *TRAIN, "--track", "--run-dir", str(tmp_path / "run")],
        cwd=tmp_path,
        env=clean_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120 * slowdown(),
    )
    assert process.returncode == 2
    assert process.stderr.splitlines() == [
        "gorila: error: track: Weights & Biases is not installed (pip install 'gorila[track]')"
    ]
    assert not (tmp_path / "run").exists()


def on_a_terminal(args, cwd, env, timeout: float) -> tuple[int | None, str]:
    """Run `args` with stdin, stdout and stderr on a pseudo-terminal that nobody types into: its exit
    code (None when it still ran after `timeout`, as one waiting for an answer would) and its output."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(args, cwd=cwd, env=env, stdin=terminal, stdout=terminal, stderr=terminal)
    os.close(terminal)
    output, deadline = b"", time.time() + timeout
    try:
        while time.time() < deadline:
            if select.select([controller], [], [], 0.5)[0]:
                try:
                    output += os.read(controller, 4096)
                except OSError:  # EIO: the process and its children closed the terminal
                    break
        code = process.wait(timeout=max(deadline - time.time(), 0.1))
    except subprocess.TimeoutExpired:
        code = None
    finally:
        process.kill()
        process.wait()
        os.close(controller)
    return code, output.decode(errors="replace")


def test_online_without_an_api_key_a_tracked_run_is_refused_instead_of_prompting_for_one(tmp_path):
    """On a terminal W&B asks for a key and waits; the run is refused before that, in one line."""
    env = clean_env(tmp_path, HOME=str(tmp_path), NETRC=str(tmp_path / "no-netrc"))
    code, output = on_a_terminal(
        [sys.executable, "-m", "gorila", *TRAIN, "--track", "--run-dir", str(tmp_path / "run")],
        tmp_path,
        env,
        timeout=90 * slowdown(),
    )
    lines = [line for line in output.splitlines() if line.strip()]
    assert code == 2, output[-3000:]
    assert len(lines) == 1 and lines[0].startswith("gorila: error: track: Weights & Biases has no API key here")
    assert "wandb login" in lines[0] and "WANDB_MODE=offline" in lines[0]
    assert not (tmp_path / "run").exists()
