"""Where each component of a run last ran (`gorila.system.whereabouts`), with the local runtime
standing in for Ray where a test sets the node of each component and the nodes that left: a
component on a node that left was lost with it, one elsewhere died or was restarted, and each node's
leaving is said once, naming what ran there."""

from gorila.placement import WorkerId
from gorila.runtime.local import LocalRuntime
from gorila.system.topology import System
from gorila.system.whereabouts import Whereabouts

ACTOR, LEARNER = WorkerId("actor", 0), WorkerId("learner", 0)
NODE_A, NODE_B, NODE_C = "a1b2c3d4" + "0" * 48, "e5f6a7b8" + "1" * 48, "99998888" + "2" * 48


class OnNodes(LocalRuntime):
    """The local runtime, with each component's node and the nodes that left the cluster set by the test."""

    def __init__(self):
        super().__init__()
        self.node, self.left = {}, set()

    def processes(self, handles, timeout: float = 30.0) -> list:
        return [
            (self.node[id(handle)], 100 + i) if id(handle) in self.node else None for i, handle in enumerate(handles)
        ]

    def lost_nodes(self) -> set[str]:
        return set(self.left)


def placed(left: frozenset = frozenset()) -> tuple[Whereabouts, OnNodes, System]:
    """Actor 0 and parameter shard 0 on node A; learner 0, shard 1 and the evaluator on node B; the
    nodes `left` gone when the run starts."""
    system = System([object(), object()], [(0, 1), (1, 2)], {ACTOR: object(), LEARNER: object()}, evaluator=object())
    runtime = OnNodes()
    runtime.left = set(left)
    where = {ACTOR: NODE_A, LEARNER: NODE_B}
    runtime.node = {id(system.workers[w]): node for w, node in where.items()}
    runtime.node.update({id(system.shards[0]): NODE_A, id(system.shards[1]): NODE_B, id(system.evaluator): NODE_B})
    return Whereabouts(runtime, system), runtime, system


def test_a_component_on_a_node_that_left_was_lost_with_it_and_one_elsewhere_died_or_was_restarted():
    whereabouts, runtime, _ = placed()
    assert whereabouts.lost(ACTOR) == "died" and whereabouts.restarted(0) == "was restarted"
    runtime.left = {NODE_A}
    assert whereabouts.lost(ACTOR) == "was lost with its node a1b2c3d4"
    assert whereabouts.restarted(0) == "was lost with its node a1b2c3d4"
    assert whereabouts.lost(LEARNER) == "died" and whereabouts.restarted(1) == "was restarted"
    runtime.node[id(whereabouts.system.workers[ACTOR])] = NODE_C  # restarted on another node
    whereabouts.moved(ACTOR)
    assert whereabouts.lost(ACTOR) == "died"


def test_each_node_that_leaves_is_said_once_with_what_ran_there():
    whereabouts, runtime, _ = placed()
    lines = []
    whereabouts.say_gone(lines.append)
    assert lines == []
    runtime.left = {NODE_B}
    whereabouts.say_gone(lines.append)
    whereabouts.say_gone(lines.append)
    assert lines == ["node e5f6a7b8 left the cluster, with what ran there: learner 0, parameter shard 1, evaluator"]


def test_a_node_gone_before_the_run_started_is_not_said_again():
    whereabouts, runtime, _ = placed(left=frozenset({NODE_A}))
    lines = []
    whereabouts.say_gone(lines.append)
    runtime.left.add(NODE_B)
    whereabouts.say_gone(lines.append)
    assert len(lines) == 1 and lines[0].startswith("node e5f6a7b8 left the cluster")
