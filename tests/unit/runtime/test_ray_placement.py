"""What the Ray runtime places, read without starting Ray: a host class per role with exactly its
contract's methods, built from any `make` (no annotation read), each role's Ray options, and a
restarted shard's host holding its calls until it is given its state."""

import inspect
import threading

import numpy as np
import pytest

from gorila.components.parameter_server import ParameterShard
from gorila.config import Config
from gorila.core import ReplayServer, ShardServer, contract_methods
from gorila.placement import ACTOR, BUNDLE, EVALUATOR, LEARNER, PARAMETER_SHARD, REPLAY, Role
from gorila.runtime.ray import Located, RayRuntime, WaitsForState, host_class
from gorila.runtime.ray.hosts import SHARDS
from gorila.system.planning import runtime_resources


@pytest.mark.parametrize("role", [PARAMETER_SHARD, REPLAY, EVALUATOR, ACTOR, LEARNER, BUNDLE], ids=lambda r: r.name)
def test_a_host_has_exactly_its_contracts_methods(role):
    host = host_class(role)
    own = {name for name, value in vars(host).items() if callable(value) and not name.startswith("_")}
    assert own == set(contract_methods(role.contract))
    assert issubclass(host, Located) and callable(host.node_id) and callable(host.process)
    for name, declared in contract_methods(role.contract).items():
        assert inspect.signature(getattr(host, name)) == inspect.signature(declared)


def test_a_host_forwards_to_what_make_built_whatever_make_is():
    class Shard:
        def pull(self):
            return "theta", 3, 1

        def secret(self):
            return "not in the contract"

    def make(version):  # no annotation: placement does not read one
        shard = Shard()
        shard.version = version
        return shard

    host = host_class(PARAMETER_SHARD)(make, 3)
    assert host.pull() == ("theta", 3, 1) and host.component.version == 3
    assert not hasattr(host, "secret") and host_class(PARAMETER_SHARD).__name__ == "ParameterShard"
    assert getattr(host, ShardServer.pull.__name__)() == ("theta", 3, 1)


def runtime_of(**settings) -> RayRuntime:
    """A RayRuntime given a config's resources, without starting Ray (a cpu device never asks Ray for GPUs)."""
    runtime = object.__new__(RayRuntime)
    runtime.resources = runtime_resources(Config(device="cpu", **settings))
    return runtime


def options(role, **settings) -> dict:
    """RayRuntime._options for a config's resources."""
    return runtime_of(**settings)._options(role)


def test_each_role_gets_the_ray_options_of_its_kind():
    server = {"num_cpus": 0.5, "max_restarts": -1, "max_task_retries": -1}
    for role in (PARAMETER_SHARD, REPLAY, EVALUATOR):  # callers wait through a restart
        assert options(role, server_cpus=0.5, learner_gpus=0.5) == server
    worker = {"num_cpus": 2.0, "max_restarts": -1, "max_task_retries": 0}
    assert options(ACTOR, worker_cpus=2.0, learner_gpus=0.5) == {**worker, "num_gpus": 0}
    for role in (LEARNER, BUNDLE):
        assert options(role, worker_cpus=2.0, learner_gpus=0.5) == {**worker, "num_gpus": 0.5}
    rounds = dict(server_cpus=0.5, synchronous_sgd=True, runtime="ray", bundled=False, replay="global", learners=4)
    assert options(PARAMETER_SHARD, **rounds) == {**server, "max_concurrency": 6}  # 4 learners wait, 2 driver calls
    assert options(REPLAY, **rounds) == server


def test_a_shard_holder_answers_as_many_shard_calls_at_once_as_a_round_has_learners_waiting():
    runtime = runtime_of(runtime="ray", actors=4, learners=4, param_shards=2)
    assert runtime._groups(BUNDLE.hosting_shards())[SHARDS] == 1
    runtime = runtime_of(runtime="ray", actors=4, learners=4, param_shards=2, synchronous_sgd=True)
    assert runtime._groups(BUNDLE.hosting_shards())[SHARDS] == 6


def test_hosts_are_named_as_their_components_are_in_process_titles():
    """Ray titles a component's process `ray::<host class>.<method>`: what `pgrep -f ray::Bundle` and
    chaos scripts look for, so the names stay those of the components."""
    names = {role: host_class(role).__name__ for role in (PARAMETER_SHARD, REPLAY, EVALUATOR, ACTOR, LEARNER, BUNDLE)}
    assert names == {
        PARAMETER_SHARD: "ParameterShard",
        REPLAY: "ReplayMemory",
        EVALUATOR: "Evaluator",
        ACTOR: "Actor",
        LEARNER: "Learner",
        BUNDLE: "Bundle",
    }
    # Ray knows a class by its name: a bundle holding shards is another class, so another name
    assert host_class(BUNDLE.hosting_shards()).__name__ == "BundleHoldingShards"


def test_a_restarted_shards_host_serves_no_call_before_restore_gives_it_its_state():
    shard = ParameterShard(0, np.zeros(3, np.float32), optimizer="sgd", learning_rate=1.0)
    host = host_class(PARAMETER_SHARD)(lambda: shard)
    assert host.pull()[1] == 0  # a first start serves at once
    host._serving.clear()  # as a restarted process starts
    answers = []
    caller = threading.Thread(target=lambda: answers.append(host.pull()), daemon=True)
    caller.start()
    caller.join(0.3)
    assert caller.is_alive() and answers == []  # held, not answered from what it was built with
    ahead = ParameterShard(0, np.zeros(3, np.float32), optimizer="sgd", learning_rate=1.0)
    ahead.apply(np.ones(3, np.float32), 0)
    host.restore(ahead.state())
    caller.join(60)
    assert not caller.is_alive()
    theta, version, _ = answers[0]
    assert version == 1 and np.array_equal(theta, ahead.theta.numpy())


def test_only_a_role_that_waits_for_its_state_gets_the_waiting_host_and_it_needs_a_restore():
    assert issubclass(host_class(PARAMETER_SHARD), WaitsForState)
    assert not any(issubclass(host_class(role), WaitsForState) for role in (REPLAY, EVALUATOR, ACTOR, LEARNER, BUNDLE))
    with pytest.raises(TypeError, match="waits for its state but its contract has no restore"):
        host_class(Role("replay_memory", ReplayServer, server=True, waits_for_state=True))


def test_a_restarted_worker_answers_the_watch_once_for_each_shard_it_holds(monkeypatch):
    """The driver renews its standing call for a shard as soon as it has restored it: a process still
    waiting for its other shard's state must not answer that call again (it would be restored twice,
    its worker's death recorded twice)."""
    monkeypatch.setattr(Located, "process", lambda self: ("node", 7))

    class Worker:
        hosted_shards = {i: ParameterShard(i, np.zeros(3, np.float32), optimizer="sgd") for i in (0, 1)}

    host = host_class(LEARNER.hosting_shards())(Worker)
    host._serving.clear()  # as a restarted process starts
    state = ParameterShard(0, np.zeros(3, np.float32), optimizer="sgd").state()

    def standing(index) -> tuple[threading.Thread, list]:
        answers = []
        call = threading.Thread(target=lambda: answers.append(host.awaiting_state(index)), daemon=True)
        call.start()
        return call, answers

    assert host.awaiting_state(0) == ("node", 7) and host.awaiting_state(1) == ("node", 7)
    host.restore_shard(0, state)
    renewed = standing(0)
    assert host.awaiting_state(1) == ("node", 7)  # shard 1 still waits: answered
    host.restore_shard(1, state)
    renewed_too = standing(1)
    for call, answers in (renewed, renewed_too):
        call.join(0.3)
        assert call.is_alive() and answers == []  # neither shard is answered twice by this process
    host.stop_awaiting()
    for call, answers in (renewed, renewed_too):
        call.join(60)  # released: each returns at once
        assert not call.is_alive() and answers == [None]
