"""What clusters do to a run, on a Ray cluster of three nodes (three raylets on this machine,
`ray.cluster_utils.Cluster`): a node removed mid-run, every process on it at once, and nodes added.

Each node offers one CPU and each bundle asks for one, so that a lost node leaves no room for its
bundle: the run goes on smaller, says so, and grows back when a node joins. The shards and the
evaluator ask for no CPU and run apart (shard placement `apart`), so Ray places them again at once."""

import pytest

from gorila.config import build_config
from gorila.placement import WorkerId
from gorila.records.metrics import read_metrics
from gorila.system.driver import Driver
from gorila.system.scheduler import StopReason
from tests.helpers import from_the_driver, ray_cluster

INTERRUPTED = StopReason.INTERRUPTED


@pytest.fixture
def cluster():
    """A fresh cluster per test (they remove and add nodes): a head and two more nodes, one CPU each."""
    with ray_cluster(nodes=3) as cluster:
        yield cluster


def cartpole_on(cluster, **overrides):
    """The cartpole preset on `cluster`, one CPU per bundle, the shards and evaluator apart on none."""
    settings = dict(runtime="ray", address=cluster.address, worker_cpus=1, server_cpus=0, shard_placement="apart")
    return build_config("cartpole", overrides=dict(settings, param_shards=2, log_every_seconds=1, **overrides))


def node_of(cluster, trainer, worker):
    """The cluster node `worker` of `trainer` runs on."""
    node_id = trainer.runtime.where(trainer.system.workers[worker])
    return next(node for node in cluster.list_all_nodes() if node.node_id == node_id)


def test_a_node_lost_without_room_runs_the_run_smaller_until_a_node_joins_and_it_still_solves(
    cluster, tmp_path, capsys
):
    config = cartpole_on(cluster, actors=3, learners=3, restart_timeout_seconds=10)
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    # a bundle on a node other than the head (the driver's node stays); Ray chooses where each goes
    placed = {worker: node_of(cluster, trainer, worker) for worker in trainer.system.workers}
    lost_one, victim = next((w, node) for w, node in placed.items() if node.node_id != cluster.head_node.node_id)
    steps = trainer.scheduler.counters.worker_steps
    lost = from_the_driver(trainer, lambda: trainer.steps >= 2_000, lambda: cluster.remove_node(victim, False))
    joined = from_the_driver(
        trainer, lambda: lost_one in trainer.recovery.room, lambda: (cluster.add_node(num_cpus=1), steps[lost_one])
    )
    # no evaluation, so no solve that would end the run, before the lost bundle works again on the node
    # that joined (its budget is ten times the frames collected by then)
    due = trainer.evaluations.due
    trainer.evaluations.due = lambda at_steps: bool(joined) and steps[lost_one] > joined[0][1] and due(at_steps)
    result = trainer.run()
    said = capsys.readouterr().out

    assert lost and joined, "the run ended before the node was lost and another joined"
    assert f"{lost_one} has not come back" in said and "the run goes on with 2 of 3 bundles" in said, said
    assert f"{lost_one} is back: 3 of 3 bundles at work" in said, said
    assert steps[lost_one] > joined[0][1]  # it took work again after the node joined
    faults = [r for r in read_metrics(tmp_path / "run") if r["kind"] == "fault"]
    assert [r["component"] for r in faults if r["component"].startswith("bundle")] == [str(lost_one)], faults
    assert result["best_eval_return_mean"] >= 475.0 and result["solved_at_frames"], result


def test_a_run_allowed_more_bundles_places_one_on_a_node_that_joins(cluster, tmp_path, capsys):
    config = cartpole_on(cluster, actors=3, learners=3, max_bundles=4, eval_every_frames=0)
    trainer = Driver(config, tmp_path / "run", live_progress=False)
    steps = trainer.scheduler.counters.worker_steps
    added = from_the_driver(trainer, lambda: trainer.steps >= 2_000, lambda: cluster.add_node(num_cpus=1))
    # the run ends once the new bundle has reported work (a user's Ctrl-C, as it were)
    from_the_driver(trainer, lambda: steps[WorkerId("bundle", 3)] > 0, lambda: trainer.scheduler.stop(INTERRUPTED))
    result = trainer.run()
    said = capsys.readouterr().out

    assert added, "the run ended before the node joined"
    assert "bundle 3 joins on room the cluster gained" in said and "4 bundles (max_bundles=4)" in said, said
    assert steps[WorkerId("bundle", 3)] > 0  # the new bundle took work
    assert len(trainer.system.workers) == 4 and result["env_frames"] < config.total_frames
