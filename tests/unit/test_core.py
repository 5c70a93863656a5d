"""The call contracts: each component implements its contract's methods with the same parameters,
every placed component is one of its role, and no cross-process call names its method by a string."""

import ast
import inspect
from pathlib import Path

import pytest

import gorila
from gorila.algorithms import DQN, PQN
from gorila.components.actor import Actor
from gorila.components.bundle import Bundle, RolloutBundle
from gorila.components.evaluator import Evaluator
from gorila.components.learner import Learner
from gorila.components.parameter_server import ParameterShard
from gorila.components.parameter_server.optimizers import UpdateRule
from gorila.components.replay import ReplayMemory
from gorila.components.replay.samplers import PrioritisedSampler, UniformSampler
from gorila.components.replay.storage import StreamStorage
from gorila.config import build_config
from gorila.config.derived import learner_processes
from gorila.core import (
    ActorLearnerAlgorithm,
    ActorWorker,
    Algorithm,
    BundleWorker,
    EvaluatorServer,
    LearnerWorker,
    ReplayServer,
    Saveable,
    ShardServer,
    contract_methods,
)
from gorila.envs import make_vector_env
from gorila.experiments.bench.common import Timed
from gorila.experiments.bench.stages import MeasuredLearner
from gorila.experiments.bench.system import MeasuredActor
from gorila.messages import env_info
from gorila.placement import ACTOR, BUNDLE, EVALUATOR, LEARNER, PARAMETER_SHARD, REPLAY
from gorila.runtime.calls import DirectCalls
from gorila.runtime.local import LocalRuntime
from gorila.system.planning import plan_run
from gorila.system.scheduler import Scheduler
from gorila.system.stop_rule import StopRule
from gorila.system.topology import build_system

IMPLEMENTATIONS = [
    (ParameterShard, ShardServer),
    (ReplayMemory, ReplayServer),
    (Evaluator, EvaluatorServer),
    (Actor, ActorWorker),
    (Learner, LearnerWorker),
    (Bundle, BundleWorker),
    (MeasuredLearner, Timed),
    (MeasuredActor, Timed),
    # everything a checkpoint or a restart carries over
    (ParameterShard, Saveable),
    (UpdateRule, Saveable),
    (StreamStorage, Saveable),
    (UniformSampler, Saveable),
    (PrioritisedSampler, Saveable),
    (Scheduler, Saveable),
    (StopRule, Saveable),
]
# implementations besides the placed roles': the algorithms, and PQN's bundle, placed in the bundle role
# but called as an actor only (it holds no replay memory to save)
BESIDES = [(RolloutBundle, ActorWorker), (DQN, ActorLearnerAlgorithm), (PQN, Algorithm)]
ROLES = [PARAMETER_SHARD, REPLAY, EVALUATOR, ACTOR, LEARNER, BUNDLE]


def parameters(function) -> list[tuple]:
    """What a caller relies on: each parameter's name, kind and default (annotations are for readers)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("component, contract", IMPLEMENTATIONS + BESIDES, ids=lambda c: c.__name__)
def test_each_component_implements_its_contract_with_the_same_parameters(component, contract):
    methods = contract_methods(contract)
    assert methods, f"{contract.__name__} declares no method"
    for name, declared in methods.items():
        assert callable(getattr(component, name, None)), f"{component.__name__} lacks {contract.__name__}.{name}"
        assert parameters(getattr(component, name)) == parameters(declared), f"{component.__name__}.{name}"
        assert declared.__doc__, f"{contract.__name__}.{name} says nothing of what it does"


def test_contracts_extend_each_other_with_the_same_functions():
    """A bundle is called like an actor and like a replay holder: through the same functions."""
    replay = {"save_replay": ReplayServer.save_replay, "replay_size": ReplayServer.replay_size}
    assert contract_methods(BundleWorker) == {**contract_methods(ActorWorker), **replay}
    assert set(contract_methods(LearnerWorker)) == {"run"}


@pytest.mark.parametrize(
    "topology",
    [
        dict(bundled=True, actors=2, learners=2),
        dict(bundled=False, actors=2, learners=3, replay="global", replay_shards=2),
    ],
    ids=["bundled", "global-replay"],
)
def test_every_component_the_topology_places_is_one_of_its_role(topology, tmp_path):
    config = build_config(
        overrides=dict(
            env="CartPole-v1",
            runtime="local",
            hidden_sizes="8",
            eval_episodes=1,
            total_frames=4_000,
            learning_starts=100,
            param_shards=2,
            **topology,
        )
    )
    with make_vector_env(config.env, 1) as probe:
        info = env_info(probe)
    placed = []

    class Recording(LocalRuntime):
        def place(self, role, make, *args):
            placed.append((role, make(*args)))
            return placed[-1][1]

    build_system(config, plan_run(config, info), Recording())
    classes = dict((contract, component) for component, contract in IMPLEMENTATIONS)
    for role, component in placed:
        assert role in ROLES and isinstance(component, classes[role.contract]), (role.name, type(component))
    counts = {role.name: sum(r is role for r, _ in placed) for role in ROLES}
    assert counts["parameter_shard"] == 2 and counts["evaluator"] == 1
    assert counts["learner"] + counts["bundle"] == learner_processes(config)
    for _, component in placed:
        if hasattr(component, "close"):
            component.close()


def test_roles_say_how_they_are_placed():
    assert [role.name for role in ROLES if role.server] == ["parameter_shard", "replay_memory", "evaluator"]
    assert [role.name for role in ROLES if role.learns] == ["learner", "bundle"]
    assert len({role.name for role in ROLES}) == len(ROLES)


def test_learner_processes_are_the_bundles_or_the_stand_alone_learners():
    assert learner_processes(build_config(overrides=dict(actors=3, learners=3))) == 3
    assert learner_processes(build_config(overrides=dict(bundled=False, actors=4, learners=2))) == 2


def string_named_calls(tree) -> list[int]:
    """Lines of `<calls>.call(target, "method", ...)`: a method named by a string literal."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "call"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ]


def test_no_call_names_its_method_by_a_string():
    root = Path(gorila.__file__).parent.parent
    offenders = {}
    for folder in ("gorila", "benchmarks", "examples"):
        for path in sorted((root / folder).rglob("*.py")):
            if lines := string_named_calls(ast.parse(path.read_text())):
                offenders[str(path.relative_to(root))] = lines
    assert offenders == {}, f"methods called by a string instead of their contract's function: {offenders}"
    assert string_named_calls(ast.parse('calls.call(shard, "pull")')) == [1]


def test_a_direct_call_runs_the_method_its_contract_names():
    shard = ParameterShard(0, [1.0, 2.0])
    future = DirectCalls().call(shard, ShardServer.pull)
    theta, version, target_version = DirectCalls().get([future])[0]
    assert theta.tolist() == [1.0, 2.0] and (version, target_version) == (0, 0)
