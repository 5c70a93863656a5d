"""Runs on a two-node Ray cluster (two raylets on this machine): bundles land on different nodes, and
a parameter shard killed with kill -9 comes back with its state from the driver, not from a disk,
whether it runs apart or inside a bundle's process (shard placement `learners`), where the bundle
and its shard come back together.

Each node offers one CPU and each bundle asks for one (worker_cpus=1), so two bundles can only run
if Ray places one on each node; the shards and the evaluator ask for none (server_cpus=0).
"""

import os
import re
import shutil
import signal
import sys
import time

import numpy as np
import pytest
import ray
import ray.cloudpickle

from gorila.config import build_config
from gorila.core import ShardServer
from gorila.envs import make_vector_env
from gorila.messages import env_info
from gorila.placement import PARAMETER_SHARD
from gorila.records.checkpoints import load_latest_good
from gorila.records.metrics import read_metrics
from gorila.runtime.ray import RayRuntime
from gorila.system import builders, topology
from gorila.system.builders import initial_parameters
from gorila.system.driver import Driver
from gorila.system.planning import plan_run
from gorila.system.shard_states import ShardStates
from tests.helpers import from_the_driver, ray_cluster, wait_for

# The shard below is built inside Ray's worker processes, which cannot import this test module.
ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def cluster():
    with ray_cluster(nodes=2) as cluster:
        yield cluster


def test_two_bundles_on_two_nodes(cluster, tmp_path):
    node_ids = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
    assert len(node_ids) == 2
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="ray",
            address=cluster.address,
            actors=2,
            learners=2,
            param_shards=2,
            worker_cpus=1,
            server_cpus=0,
            total_frames=2000,
            learning_starts=200,
            batch_size=16,
            eval_every_frames=0,
            eval_episodes=2,
            hidden_sizes="16",
            checkpoint_every_frames=0,
            replay_capacity=5000,
            seed=5,
        )
    )
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    bundles = list(trainer.system.workers.values())
    assert len(bundles) == 2
    hosts = [trainer.runtime.where(handle) for handle in bundles]
    result = trainer.run()

    assert set(hosts) == node_ids  # one bundle on each node
    assert result["env_frames"] >= 2000 and result["updates"] > 0
    assert result["ps_applied"] > 0
    records = read_metrics(tmp_path / "run")
    assert [r["kind"] for r in records].count("eval") == 1


def shard_without_disk(config, plan, index, start, stop, backup=None):
    """A real shard on a node that cannot read the driver's disk: it never finds a backup file."""
    return builders.make_shard_of(config, plan, index, start, stop, None)


def kill(runtime, handle) -> tuple[str, int]:
    """kill -9 the process of `handle`; the (node, pid) it had."""
    process = runtime.processes([handle])[0]
    os.kill(process[1], signal.SIGKILL)
    return tuple(process)


def restorations(states: ShardStates, timeout: float = 60.0) -> list:
    """What the watch's thread reports having restored (it reports just after the shard has it), within
    `timeout` seconds of an idle machine."""
    found = []
    wait_for(lambda: found.extend(states.restored()) or found, timeout, poll=0.05)
    return found


def test_a_restarted_shard_serves_nothing_before_the_driver_gives_it_its_last_state(cluster):
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="ray",
            address=cluster.address,
            hidden_sizes="16",
            server_cpus=0,
            shard_placement="apart",
        )
    )
    with make_vector_env(config.env, 1) as probe:
        info = env_info(probe)
    plan = plan_run(config, info)
    runtime = RayRuntime(plan.resources)
    try:
        size = initial_parameters(config, info).size
        shard = runtime.place(PARAMETER_SHARD, builders.make_shard_of, config, plan, 0, 0, size)
        grow = lambda: runtime.calls.get(
            [runtime.calls.call(shard, ShardServer.apply_batch, np.ones((5, size), np.float32), 0)]
        )
        grow()
        kept = runtime.calls.get([runtime.calls.call(shard, ShardServer.state)])[0]
        grow()  # the shard is now ahead of the state the driver kept
        before = kill(runtime, shard)
        killed_at = time.time()
        pull = runtime.calls.call(shard, ShardServer.pull)
        assert runtime.calls.wait([pull], timeout=3)[0] == [], "a restarted shard served before it had its state"
        states = ShardStates(runtime, [shard], [kept], 1234)  # the driver's copy: the watch starts
        theta, version, _ = runtime.calls.get([pull])[0]
        served_after = time.time() - killed_at
        assert version == kept["version"] == 5 and np.array_equal(theta, kept["theta"].numpy())
        [restored] = restorations(states)
        assert (restored.index, restored.env_frames, restored.error) == (0, 1234, "")
        assert restored.process != before and restored.process == tuple(runtime.processes([shard])[0])
        print(f"kill -9 to served with the kept state: {served_after:.1f} s (3 s of it held on purpose)")

        grow()  # and again: the watch stands for the next restart too
        states.keep([kept], 2345)
        kill(runtime, shard)
        killed_at = time.time()
        assert runtime.calls.get([runtime.calls.call(shard, ShardServer.pull)])[0][1] == kept["version"]
        print(f"second kill -9 to served with the kept state: {time.time() - killed_at:.1f} s")
        assert [r.env_frames for r in restorations(states)] == [2345]
    finally:
        runtime.shutdown()


def backed_up_cartpole(cluster, **overrides):
    """A small CartPole run on the cluster with two parameter shards whose states the driver takes
    every 0.5 s, no evaluation until the end, no checkpoint."""
    return build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="ray",
            address=cluster.address,
            param_shards=2,
            worker_cpus=1,
            server_cpus=0,
            learning_starts=200,
            batch_size=16,
            eval_every_frames=0,
            eval_episodes=2,
            hidden_sizes="16",
            checkpoint_every_frames=0,
            replay_capacity=5000,
            seed=5,
            shard_copy_every_seconds=0.5,
            log_every_seconds=0.5,
            **overrides,
        )
    )


def test_a_killed_shard_comes_back_with_the_drivers_state_and_the_run_carries_on(cluster, tmp_path, monkeypatch):
    monkeypatch.setattr(topology, "make_shard_of", shard_without_disk)
    config = backed_up_cartpole(cluster, actors=1, learners=1, shard_placement="apart", total_frames=8000)
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    result, seen, faults = run_killing_shard_0(trainer, tmp_path / "run")
    assert seen["served_version"] >= seen["kept_version"] > 0  # its state, not theta_0's
    assert [r["component"] for r in faults] == ["parameter shard 0"]
    restored_at = re.search(
        r"restored from the driver's state at ([\d,]+) frames, version ([\d,]+)", faults[0]["reason"]
    )
    assert restored_at and int(restored_at[1].replace(",", "")) >= seen["kept_frames"], faults[0]["reason"]
    assert int(restored_at[2].replace(",", "")) >= seen["kept_version"], faults[0]["reason"]
    assert result["env_frames"] >= 8000 and result["updates"] > seen["kept_version"]
    print(f"kill -9 to serving again: {seen['served_after']:.2f} s; restored to version {seen['kept_version']}")


def run_killing_shard_0(trainer, run_dir) -> tuple[dict, dict, list]:
    """Train to the end while the driver kills shard 0 once shard 0 has applied 20 updates; (the run's
    result, what the kill saw, the run's fault records)."""
    seen: dict = {}
    calls = trainer.runtime.calls
    applied = lambda: calls.get([calls.call(trainer.system.shards[0], ShardServer.stats)])[0]["version"]
    killed = from_the_driver(
        trainer,
        lambda: trainer.scheduler.counters.updates >= 20 and applied() >= 20,
        lambda: kill_shard_0_once_kept(trainer, run_dir, seen),
    )
    result = trainer.run()
    assert killed, f"shard 0 was never killed: {seen}"
    return result, seen, [r for r in read_metrics(run_dir) if r["kind"] == "fault"]


def kill_shard_0_once_kept(trainer, run_dir, seen: dict) -> None:
    """Take the shards' states into the driver's keeping and their backup files (as its periodic
    backup does), delete the files and kill -9 shard 0; then time how long until it serves again, and
    with which version."""
    trainer.keeping.copy_shards(trainer.recovery.shard_states, write=True, timeout=None)  # however busy the machine
    assert (run_dir / "checkpoints" / "shards" / "shard-0.pt").exists()
    shutil.rmtree(run_dir / "checkpoints" / "shards")
    kept, seen["kept_frames"] = trainer.recovery.shard_states.latest
    seen["kept_version"] = kept[0]["version"]
    shard = trainer.system.shards[0]
    kill(trainer.runtime, shard)
    killed_at = time.time()
    calls = trainer.runtime.calls
    seen["served_version"] = calls.get([calls.call(shard, ShardServer.stats)])[0]["version"]
    seen["served_after"] = time.time() - killed_at


def test_a_resumed_run_gives_its_shards_the_checkpoints_state_without_the_disk(cluster, tmp_path, monkeypatch):
    """--resume on a cluster: the shards' first starts cannot read checkpoints/shards/ on their nodes;
    the driver gives them the checkpoint's states before any work is handed out."""
    settings = dict(
        env="CartPole-v1",
        runtime="ray",
        address=cluster.address,
        actors=1,
        learners=1,
        param_shards=2,
        shard_placement="apart",
        worker_cpus=1,
        server_cpus=0,
        total_frames=3000,
        learning_starts=200,
        batch_size=16,
        eval_every_frames=0,
        eval_episodes=2,
        hidden_sizes="16",
        checkpoint_every_frames=0,
        replay_capacity=5000,
        seed=5,
    )
    Driver(build_config(overrides=settings), tmp_path / "run", live_progress=False).run()
    payload = load_latest_good(tmp_path / "run")
    monkeypatch.setattr(topology, "make_shard_of", shard_without_disk)
    resumed = Driver(
        build_config(overrides={**settings, "total_frames": 4000}),
        tmp_path / "run",
        live_progress=False,
        resume=payload,
    )
    versions = [state["version"] for state in resumed.params.states()]
    assert versions == [state["version"] for state in payload["shards"]] and versions[0] > 0  # not theta_0's
    assert resumed.run()["env_frames"] >= 4000


def test_shards_inside_bundles_need_no_process_and_a_killed_bundle_brings_its_shard_back_with_the_drivers_state(
    cluster, tmp_path
):
    """Two bundles on two nodes, each holding one of the two shards in its own process: three processes in
    all (no shard process). kill -9 of bundle 0 after its shard's backup files are gone: the restarted
    bundle's shard serves again only with the driver's state (its version not back to 0), both faults
    are recorded, and the run reaches its budget."""
    config = backed_up_cartpole(cluster, actors=2, learners=2, shard_placement="learners", total_frames=12000)
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    assert len(trainer.runtime.handles) == 3  # two bundles and the evaluator
    bundle_0, bundle_1 = trainer.system.workers.values()
    processes = trainer.runtime.processes([*trainer.system.shards, bundle_0, bundle_1])
    assert processes[0] == processes[2] and processes[1] == processes[3] and processes[2] != processes[3]
    result, seen, faults = run_killing_shard_0(trainer, tmp_path / "run")
    assert seen["served_version"] >= seen["kept_version"] >= 20  # the driver's state, not theta_0's
    assert sorted(r["component"] for r in faults) == ["bundle 0", "parameter shard 0"], faults
    restored = next(r for r in faults if r["component"] == "parameter shard 0")
    assert "restored from the driver's state" in restored["reason"]
    assert result["env_frames"] >= 12000 and result["ps_applied"] > seen["kept_version"]
    print(
        f"kill -9 of bundle 0 to its shard serving again: {seen['served_after']:.2f} s; restored to version "
        f"{seen['kept_version']}"
    )
