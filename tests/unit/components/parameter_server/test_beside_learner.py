"""A shard beside its learner (shard placement `learners`): the learner's gradient reaches it as a
tensor on the learner's device and theta+ comes back as one, without a copy through numpy; the update
is the one a shard in another process makes, and the one written out by hand below.

Hand check, on a network small enough to follow: CartPole's 4 inputs, 4 hidden units, 2 actions; one
minibatch of 3 transitions; plain SGD at 0.1 so that theta_1 = theta_0 - 0.1 * dL/dtheta, where L is
the mean Huber loss of Q(s, a; theta_0) against R + gamma^n max_a' Q(s', a'; theta_0) (theta- is
theta_0 before any refresh) and the gradient is taken by autograd on a network built here."""

import copy

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from gorila.agent.networks import flat_parameters, load_flat_parameters, q_network_for
from gorila.components.learner import Learner
from gorila.components.parameter_server import ParameterClient, ParameterShard
from gorila.config import Config
from gorila.messages import Minibatch
from gorila.runtime.calls import DirectCalls
from gorila.system import builders
from gorila.system.planning import plan_run
from tests.helpers import CARTPOLE_INFO
from tests.unit.components.parameter_server.test_parameter_server import InAnotherProcess

CONFIG = Config(
    hidden_sizes=(4,),
    batch_size=3,
    optimizer="sgd",
    learning_rate=0.1,
    outlier_k=0.0,
    max_staleness=-1,
    param_shards=2,
    learner_sync_every=1,
    target_update_every=1000,
    seed=11,
    learner_refresh="synchronous",
    device="cpu",
)
BATCH = Minibatch(
    obs=np.array([[0.1, -0.2, 0.3, 0.0], [1.0, 0.5, -0.5, 0.2], [-0.3, 0.0, 0.2, 0.9]], np.float32),
    actions=np.array([0, 1, 1]),
    returns=np.array([1.0, 0.0, 1.0], np.float32),
    discounts=np.array([0.99, 0.99, 0.0], np.float32),
    next_obs=np.array([[0.2, -0.1, 0.3, 0.1], [0.9, 0.4, -0.4, 0.3], [0.0, 0.0, 0.0, 0.0]], np.float32),
)


class OneBatch:
    """A replay that always gives the same minibatch."""

    def sample(self, batch_size):
        return BATCH

    def update_priorities(self, streams, indices, td_errors):
        raise AssertionError("a uniform minibatch has no priorities")


def learner_with(where: str) -> tuple[Learner, list[ParameterShard]]:
    theta = builders.initial_parameters(CONFIG, CARTPOLE_INFO)
    bounds = builders.parameter_bounds(CONFIG, theta.size)
    plan = plan_run(CONFIG, CARTPOLE_INFO)
    shards = [builders.make_shard(CONFIG, plan, i, theta[a:b]) for i, (a, b) in enumerate(bounds)]
    handles = shards if where == "beside" else [InAnotherProcess(shard) for shard in shards]
    return builders.make_learner(CONFIG, plan, 0, handles, bounds, DirectCalls(), OneBatch()), shards


def by_hand(theta_0: np.ndarray) -> np.ndarray:
    """theta_1 of one SGD step on BATCH, written out."""
    online = q_network_for(CONFIG, CARTPOLE_INFO)
    load_flat_parameters(online, theta_0)
    target = copy.deepcopy(online)
    with torch.no_grad():
        bootstrap = (
            torch.as_tensor(BATCH.returns)
            + torch.as_tensor(BATCH.discounts) * target(torch.as_tensor(BATCH.next_obs)).max(dim=1).values
        )
    taken = online(torch.as_tensor(BATCH.obs)).gather(1, torch.as_tensor(BATCH.actions)[:, None])[:, 0]
    F.huber_loss(taken, bootstrap, delta=1.0).backward()
    gradient = torch.cat([p.grad.reshape(-1) for p in online.parameters()]).numpy()
    return theta_0 - 0.1 * gradient


def theta_of(shards) -> np.ndarray:
    return np.concatenate([shard.pull()[0] for shard in shards])


def test_an_update_through_shards_beside_the_learner_is_the_hand_computed_one_and_the_apart_one():
    theta_0 = builders.initial_parameters(CONFIG, CARTPOLE_INFO)
    beside, beside_shards = learner_with("beside")
    apart, apart_shards = learner_with("apart")
    assert beside.params.all_here and apart.params.none_here
    assert beside.update() and apart.update()
    expected = by_hand(theta_0)
    assert not np.allclose(expected, theta_0)
    np.testing.assert_allclose(theta_of(beside_shards), expected, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(theta_of(beside_shards), theta_of(apart_shards))
    for _ in range(5):  # and on: the two learners stay identical, update for update
        beside.update(), apart.update()
    np.testing.assert_array_equal(theta_of(beside_shards), theta_of(apart_shards))
    np.testing.assert_array_equal(flat_parameters(beside.online), theta_of(beside_shards))  # refreshed from them
    assert [s.version for s in beside_shards] == [6, 6]


def test_a_shard_beside_its_learner_takes_the_tensor_itself_and_gives_theta_as_a_tensor():
    """Nothing goes through numpy on the way: the shard receives the learner's own gradient tensor
    (a view of it, for the slice it owns) and the client hands theta+ back as a tensor on the
    learner's device."""
    learner, shards = learner_with("beside")
    received = []
    original = ParameterShard.apply_batch
    shards[0].apply_batch = lambda gradients, version: (
        received.append(gradients) or original(shards[0], gradients, version)
    )
    learner.update()
    assert torch.is_tensor(received[0]) and received[0].shape == (1, shards[0].theta.numel())
    theta, _ = learner.params.pull()
    assert torch.is_tensor(theta) and theta.device == learner.device


def test_staleness_is_enforced_by_a_shard_beside_its_learner():
    """A gradient computed on parameters more than max_staleness versions old is dropped, in the
    learner's own process as across one."""
    shard = ParameterShard(0, np.zeros(3, np.float32), optimizer="sgd", learning_rate=1.0, max_staleness=2)
    client = ParameterClient([shard], [(0, 3)], DirectCalls())
    for _ in range(3):
        client.push(torch.zeros(3), client.versions)
        client.pull()
    client.push(torch.ones(3), np.zeros(1, np.int64))  # computed at version 0, now 3: dropped
    assert shard.stats()["discarded"] == 1 and shard.version == 3
    client.push(torch.ones(3), np.ones(1, np.int64))  # 2 behind: applied
    np.testing.assert_array_equal(client.pull()[0].numpy(), -np.ones(3, np.float32))


@pytest.mark.parametrize(
    "device",
    [
        "cpu",
        pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")),
    ],
)
def test_a_shard_keeps_its_slice_and_moments_on_its_device_and_saves_them_for_any(device):
    shard = ParameterShard(0, np.ones(4, np.float32), optimizer="rmsprop", learning_rate=0.1, device=device)
    shard.apply(torch.full((4,), 0.5, device=device), 0)
    assert shard.theta.device.type == device and shard.optimizer.mean.device.type == device
    state = shard.state()
    assert state["theta"].device.type == "cpu" and state["optimizer"]["mean"].device.type == "cpu"
    again = ParameterShard(0, np.ones(4, np.float32), optimizer="rmsprop", learning_rate=0.1, device=device)
    again.restore(state)
    shard.apply(np.full(4, 0.25, np.float32), 1)
    again.apply(np.full(4, 0.25, np.float32), 1)
    assert torch.equal(shard.theta, again.theta) and again.theta.device.type == device
