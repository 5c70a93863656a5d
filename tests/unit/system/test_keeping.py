"""What the driver keeps of a run while it trains (`gorila.system.keeping.RunKeeping`), over a real
system on the local runtime: a checkpoint holding theta+, theta-, every shard's state, the driver's
state and the replay; the figures a train record takes; the shards' copies and backups when due."""

import time

import numpy as np
import torch

from gorila.config import build_config
from gorila.records.checkpoints import load_checkpoint, load_shard_backup, replay_file, shard_backup
from gorila.runtime.local import LocalRuntime
from gorila.system.builders import parameter_client
from gorila.system.keeping import RunKeeping
from gorila.system.planning import plan_run
from gorila.system.run_records import RunRecords
from gorila.system.scheduler import Scheduler, StopReason
from gorila.system.shard_states import ShardStates
from gorila.system.topology import build_system
from tests.helpers import CARTPOLE_INFO

CONFIG = build_config(
    overrides=dict(
        env="CartPole-v1",
        runtime="local",
        hidden_sizes="8",
        bundled=False,
        param_shards=2,
        replay_capacity=1_000,
        save_replay=True,
    )
)


def keeping(run_dir) -> RunKeeping:
    """A run 300 agent steps and 40 updates in, whose shard 0 has applied one gradient of ones, whose
    replay holds 5 entries and whose driver continues from 2 faults."""
    runtime, plan = LocalRuntime(), plan_run(CONFIG, CARTPOLE_INFO)
    system = build_system(CONFIG, plan, runtime)
    shard = system.shards[0]
    shard.apply(np.ones(shard.theta.numel(), np.float32), 0)
    for i in range(5):
        system.replays[0].add([0], np.full((1, 4), i, np.float32), [0], [1.0], [False], [False])
    scheduler = Scheduler(1_000, CONFIG.update_every, 1, 1, 0)
    scheduler.restore({"steps": 300, "updates": 40, "requested": {}, "worker_steps": {}})
    params = parameter_client(CONFIG, plan, system.shards, system.bounds, runtime.calls)
    records = RunRecords(CONFIG, plan, run_dir, time.time(), live_progress=False)
    state = lambda: {"faults": 2, "scheduler": scheduler.state()}
    return RunKeeping(CONFIG, plan, run_dir, runtime.calls, system, params, records, scheduler, state)


def test_a_checkpoint_holds_the_shards_the_driver_state_and_the_replay(tmp_path):
    kept = keeping(tmp_path)
    path = kept.checkpoint()
    assert path == tmp_path / "checkpoints" / "ckpt-000000000300.pt"  # CartPole: a frame per agent step
    payload = load_checkpoint(path)
    shards = kept.system.shards
    assert torch.equal(payload["theta"], torch.cat([shard.theta for shard in shards]))
    assert torch.equal(payload["target"], torch.cat([shard.target for shard in shards]))
    assert [state["version"] for state in payload["shards"]] == [1, 0]
    assert payload["updates"] == 40 and payload["faults"] == 2 and payload["scheduler"]["steps"] == 300
    with np.load(replay_file(tmp_path, 0)) as saved:
        assert saved["counts"].sum() == 5
    summary = kept.summary(path, StopReason.INTERRUPTED, {"best_eval_return_mean": 9.0})
    assert (summary["env_frames"], summary["updates"], summary["stop_reason"]) == (300, 40, "interrupted")
    assert summary["interrupted"] and summary["ps_version"] == 1 and summary["best_eval_return_mean"] == 9.0
    kept.records.metrics.close()


def test_a_train_record_counts_the_updates_the_shards_and_the_replay(tmp_path):
    kept = keeping(tmp_path)
    counted = kept.counted()
    assert counted["updates"] == 40 and counted["replay_size"] == 5
    assert (counted["ps_version"], counted["ps_applied"], counted["ps_discarded"]) == (1, 1, 0)
    kept.records.metrics.close()


def test_the_shards_are_copied_when_due_and_written_only_when_a_backup_is_due(tmp_path):
    kept = keeping(tmp_path)
    states = ShardStates(LocalRuntime(), kept.system.shards, None)
    kept.next_copy, kept.next_backup = time.time() + 60, time.time() + 120
    kept.copy_shards_when_due(states)
    assert states.latest is None  # not due yet
    kept.next_copy = time.time() - 1
    kept.copy_shards_when_due(states)
    copies, frames = states.latest
    assert frames == 300 and [copy["version"] for copy in copies] == [1, 0]
    assert not shard_backup(tmp_path, 0).exists()  # a backup is due less often
    kept.next_copy = kept.next_backup = time.time() - 1
    kept.copy_shards_when_due(states)
    assert [load_shard_backup(shard_backup(tmp_path, i))["version"] for i in range(2)] == [1, 0]
    assert kept.next_copy > time.time() and kept.next_backup > time.time()  # the next ones are due later
    kept.records.metrics.close()


def test_a_run_that_gives_up_writes_a_final_checkpoint_or_says_why_there_is_none(tmp_path, capsys):
    kept = keeping(tmp_path / "run")
    kept.final_checkpoint_after_failure()
    assert (
        f"writing a final checkpoint: {tmp_path / 'run' / 'checkpoints' / 'ckpt-000000000300.pt'}"
        in capsys.readouterr().out
    )
    blocked = keeping(tmp_path / "blocked")
    (tmp_path / "blocked" / "checkpoints").write_text("a file where the folder should be")
    blocked.final_checkpoint_after_failure()
    said = capsys.readouterr().out
    assert "no final checkpoint (" in said and "replay-0.npz: Not a directory" in said
    for each in (kept, blocked):
        each.records.metrics.close()
