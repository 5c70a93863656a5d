"""A run on a two-node Ray cluster (two raylets on this machine): bundles land on different nodes.

Each node offers one CPU and each bundle asks for one (worker_cpus=1), so two bundles can only run
if Ray places one on each node; the shards and the evaluator ask for none (server_cpus=0).
"""
import pytest
import ray
from ray.cluster_utils import Cluster

from gorila.config import build_config
from gorila.records.metrics import read_metrics
from gorila.system.trainer import Trainer


@pytest.fixture(scope="module")
def cluster():
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def test_two_bundles_on_two_nodes(cluster, tmp_path):
    node_ids = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
    assert len(node_ids) == 2
    config = build_config(overrides=dict(
        env="CartPole-v1", runtime="ray", address=cluster.address, actors=2, learners=2, param_shards=2,
        worker_cpus=1, server_cpus=0, total_frames=2000, learning_starts=200, batch_size=16,
        eval_every_frames=0, eval_episodes=2, hidden_sizes="16", checkpoint_every_frames=0,
        replay_capacity=5000, seed=5))
    trainer = Trainer(config, tmp_path / "run", live_progress=False)
    bundles = list(trainer.system.workers.values())
    assert len(bundles) == 2
    hosts = [trainer.runtime.where(handle) for handle in bundles]
    result = trainer.run()

    assert set(hosts) == node_ids                       # one bundle on each node
    assert result["env_frames"] >= 2000 and result["updates"] > 0
    assert result["ps_applied"] > 0
    records = read_metrics(tmp_path / "run")
    assert [r["kind"] for r in records].count("eval") == 1
