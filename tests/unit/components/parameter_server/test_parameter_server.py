"""The sharded parameter server: slicing, fan-out/fan-in, SGD per slice, staleness, theta-, state; each
client test both with shards in the client's process (called directly, with tensors) and with shards
reached as across a process boundary (arrays pickled both ways, as a message carries them)."""

import math
import pickle

import numpy as np
import pytest
import torch

from gorila.components.parameter_server import ParameterClient, ParameterShard, slice_bounds
from gorila.components.parameter_server.shard import momentum_for_staleness
from gorila.config import Config
from gorila.records.checkpoints import FORMAT, load_checkpoint
from gorila.records.metrics import parameter_server_stats, staleness_quantile
from gorila.runtime.calls import DirectCalls
from tests.helpers import wait_for

THETA0 = np.arange(10, dtype=np.float32) / 4 - 1.0  # 10 distinct values
GRAD = np.linspace(-2.0, 3.0, 10).astype(np.float32)
GRAD.flags.writeable = False  # a shard must never write into a caller's gradient


def g() -> np.ndarray:
    """A fresh writable copy of GRAD (see test_a_pushed_gradient_array_is_not_modified)."""
    return GRAD.copy()


class InAnotherProcess:
    """A shard as a client in another process reaches it: every argument and answer pickled."""

    def __init__(self, shard: ParameterShard):
        self.shard = shard

    def __getattr__(self, name):
        method = getattr(self.shard, name)
        return lambda *args: pickle.loads(pickle.dumps(method(*pickle.loads(pickle.dumps(args)))))


@pytest.fixture(params=["same process", "another process"])
def where(request):
    return request.param


def make_server(where, theta=THETA0, shards=3, **kwargs):
    bounds = slice_bounds(theta.size, shards)
    servers = [ParameterShard(i, theta[a:b], **kwargs) for i, (a, b) in enumerate(bounds)]
    handles = servers if where == "same process" else [InAnotherProcess(server) for server in servers]
    return servers, ParameterClient(handles, bounds, DirectCalls())


@pytest.mark.parametrize("size, shards", [(10, 3), (10, 1), (10, 10), (7, 4), (1_000_003, 31)])
def test_slice_bounds_cover_exactly_with_near_equal_sizes(size, shards):
    bounds = slice_bounds(size, shards)
    assert len(bounds) == shards
    assert bounds[0][0] == 0 and bounds[-1][1] == size
    assert all(stop == next_start for (_, stop), (next_start, _) in zip(bounds, bounds[1:]))
    sizes = [stop - start for start, stop in bounds]
    assert min(sizes) >= 1 and max(sizes) - min(sizes) <= 1


def test_slice_bounds_hand_example():
    assert slice_bounds(10, 3) == [(0, 3), (3, 7), (7, 10)]


@pytest.mark.parametrize("shards", [11, 0])
def test_slice_bounds_rejects_impossible_splits(shards):
    with pytest.raises(ValueError, match="param_shards"):
        slice_bounds(10, shards)


def test_client_round_trips_the_initial_vector(where):
    servers, client = make_server(where)
    flat, target_changed = client.pull()
    assert flat.dtype == torch.float32 and flat.device.type == "cpu"
    np.testing.assert_array_equal(flat, THETA0)
    np.testing.assert_array_equal(client.pull_target(), THETA0)
    assert client.versions.tolist() == [0, 0, 0]
    assert target_changed  # first pull: the client had seen no target yet
    assert client.pull()[1] is False


def test_sgd_through_the_client_updates_every_slice(where):
    servers, client = make_server(where, optimizer="sgd", learning_rate=0.5)
    client.push(g(), np.zeros(3, np.int64))
    client.drain()
    flat, _ = client.pull()
    np.testing.assert_allclose(flat, THETA0 - 0.5 * GRAD, rtol=0, atol=1e-6)
    for server, (a, b) in zip(servers, client.bounds):
        np.testing.assert_allclose(server.pull()[0], THETA0[a:b] - 0.5 * GRAD[a:b], rtol=0, atol=1e-6)
    assert client.versions.tolist() == [1, 1, 1]


def test_stale_gradients_are_discarded_and_counted(where):
    servers, client = make_server(where, optimizer="sgd", learning_rate=0.5, max_staleness=2)
    for _ in range(3):
        client.push(np.zeros(10, np.float32), client.versions)
        client.pull()
    assert client.versions.tolist() == [3, 3, 3]
    before = client.pull()[0]
    client.push(g(), np.zeros(3, np.int64))  # 3 versions behind: discarded
    np.testing.assert_array_equal(client.pull()[0], before)
    assert [s["discarded"] for s in client.stats()] == [1, 1, 1]
    assert [s["version"] for s in client.stats()] == [3, 3, 3]
    client.push(g(), np.ones(3, np.int64))  # 2 versions behind: applied
    np.testing.assert_allclose(client.pull()[0], before - 0.5 * GRAD, atol=1e-6)
    stats = client.stats()
    assert [s["discarded"] for s in stats] == [1, 1, 1]
    assert [s["applied"] for s in stats] == [4, 4, 4]
    assert stats[0]["mean_staleness"] == pytest.approx(2 / 4)  # staleness 0, 0, 0, 2
    assert stats[0]["staleness_counts"][:4] == [3, 0, 1, 0]  # the discarded one is not counted
    assert parameter_server_stats(stats)["ps_staleness_p95"] == 2


def test_a_batch_straddling_the_staleness_limit_applies_its_rows_until_the_limit_and_discards_the_rest(where):
    """Every row of a batch is computed on the same base version, and each row applied makes the next
    one a version older: at version 1 with base 0 and max_staleness 2, rows 0 and 1 (1 and 2 versions
    late) are applied, rows 2 and 3 (3 versions late, the version no longer moving) discarded."""
    servers, client = make_server(where, optimizer="sgd", learning_rate=1.0, max_staleness=2)
    client.push(np.zeros(10, np.float32), np.zeros(3, np.int64))  # version 1, staleness 0
    rows = np.stack([GRAD * (k + 1) for k in range(4)])
    client.push(rows, np.zeros(3, np.int64))
    np.testing.assert_allclose(client.pull()[0], THETA0 - GRAD - 2 * GRAD, atol=1e-6)
    for stats in client.stats():
        assert (stats["version"], stats["applied"], stats["discarded"]) == (3, 3, 2)
        assert stats["staleness_counts"][:4] == [1, 1, 1, 0]
    own = rows[:, : servers[0].theta.numel()]
    assert servers[0].apply_batch(own, 3) == 3  # 0, 1, 2 versions late, then 3
    assert servers[0].apply_batch(own, 3) == 0 and servers[0].stats()["discarded"] == 2 + 1 + 4


def test_the_staleness_quantile_reads_the_shards_histograms_together(tmp_path):
    low, high = [0] * 8, [0] * 8
    low[1], high[6] = 90, 10  # 90 gradients 1 version late on one shard, 10 six late on the other
    assert staleness_quantile([low, high], 0.9) == 1 and staleness_quantile([low, high], 0.95) == 6
    assert staleness_quantile([[0] * 8], 0.95) == 0 and staleness_quantile([None], 0.95) == 0
    shard = ParameterShard(0, THETA0, optimizer="sgd", learning_rate=0.1)
    for base in (0, 0, 0):  # 0, 1 and 2 versions late
        shard.apply(np.zeros(10, np.float32), base)
    saved = tmp_path / "shard.pt"
    torch.save({"format": FORMAT, "shard": shard.state()}, saved)  # a checkpoint holds tensors and plain data only
    copy = ParameterShard(0, THETA0, optimizer="sgd", learning_rate=0.1)
    copy.restore(load_checkpoint(saved)["shard"])
    assert copy.stats()["staleness_counts"][:3] == [1, 1, 1]  # a restored shard keeps its histogram


def test_zero_max_staleness_keeps_every_gradient():
    server = ParameterShard(0, THETA0, optimizer="sgd", learning_rate=1.0, max_staleness=0)
    for _ in range(5):
        server.apply(np.zeros(10, np.float32), 0)
    assert server.apply(g(), 0) is True
    assert server.stats()["discarded"] == 0


def test_target_network_refreshes_every_target_update_every_updates(where):
    servers, client = make_server(where, optimizer="sgd", learning_rate=0.5, target_update_every=2)
    client.pull()
    client.push(g(), client.versions)
    theta1, changed = client.pull()
    np.testing.assert_array_equal(client.pull_target(), THETA0)
    assert changed is False
    client.push(g(), client.versions)
    theta2, changed = client.pull()
    assert changed is True
    np.testing.assert_allclose(theta2, THETA0 - 1.0 * GRAD, atol=1e-6)
    np.testing.assert_array_equal(client.pull_target(), theta2)
    assert [s["target_version"] for s in client.stats()] == [1, 1, 1]


def test_shard_state_theta_is_a_snapshot():
    shard = ParameterShard(0, THETA0, optimizer="sgd", learning_rate=1.0)
    state = shard.state()
    shard.apply(g(), 0)
    np.testing.assert_array_equal(state["theta"].numpy(), THETA0)
    np.testing.assert_array_equal(state["target"].numpy(), THETA0)


def test_a_pushed_gradient_array_is_not_modified(where):
    servers, client = make_server(where, optimizer="sgd", learning_rate=0.5)
    gradient = g()
    client.push(gradient, client.versions)
    client.push(np.zeros(10, np.float32), client.versions)
    np.testing.assert_array_equal(gradient, GRAD)


@pytest.mark.parametrize("optimizer", ["sgd", "adagrad", "rmsprop", "adam"])
def test_a_restored_shard_continues_exactly_where_the_saved_one_was(optimizer):
    """theta+, theta-, versions and optimizer moments all travel: the next updates are identical."""
    rng = np.random.default_rng(0)
    gradients = rng.normal(size=(6, 5)).astype(np.float32)
    make = lambda: ParameterShard(
        0, np.ones(5, np.float32), optimizer=optimizer, learning_rate=0.1, target_update_every=4
    )
    original = make()
    for gradient in gradients[:3]:
        original.apply(gradient, original.version)
    restored = make()
    restored.restore(original.state())
    for gradient in gradients[3:]:
        original.apply(gradient, original.version)
        restored.apply(gradient, restored.version)
    assert torch.equal(original.theta, restored.theta) and torch.equal(original.target, restored.target)
    assert restored.stats() == original.stats()


def test_a_shard_restored_behind_its_learners_discards_their_gradients_from_versions_it_lost():
    """A shard restarted mid-run goes on from the driver's last copy, behind the versions its learners
    read: their gradients from those lost versions are discarded, not weighed as negative staleness
    (which took Adam's first-moment decay above 1 and theta+ with it)."""
    shard = ParameterShard(0, THETA0, optimizer="adam", learning_rate=0.1, staleness_momentum=True)
    for _ in range(3):
        shard.apply(g(), shard.version)
    copy = shard.state()  # the driver's copy, at version 3
    for _ in range(50):
        shard.apply(g(), shard.version)
    read = shard.version  # what a learner last read: version 53
    shard.restore(copy)
    theta = shard.theta.clone()
    assert [shard.apply(g(), read) for _ in range(200)] == [False] * 200
    assert torch.equal(shard.theta, theta) and shard.version == 3
    assert shard.stats()["discarded"] == 200 and shard.optimizer.beta1 <= 0.9
    assert shard.apply(g(), shard.version) is True  # once the learner has read the restored version
    assert shard.stats()["staleness_counts"][-1] == 0  # no negative staleness counted in the last bin


@pytest.mark.parametrize("staleness", [-1, -50])
def test_the_momentum_for_a_negative_staleness_is_adams_own(staleness):
    assert momentum_for_staleness(0.9, staleness) == 0.9


@pytest.mark.parametrize(
    "refresh, runtime, holds_every_shard, waits",
    [
        ("auto", "local", False, True),
        ("auto", "ray", False, False),
        ("auto", "ray", True, True),
        ("pipelined", "local", False, False),
        ("pipelined", "ray", True, False),
        ("synchronous", "ray", False, True),
    ],
)
def test_a_learner_waits_for_its_own_push_where_asked_and_by_default_only_where_every_shard_is_in_its_process(
    refresh, runtime, holds_every_shard, waits
):
    from gorila.config.derived import synchronous_refresh

    assert synchronous_refresh(Config(learner_refresh=refresh, runtime=runtime), holds_every_shard) is waits


def test_a_decaying_learning_rate_falls_linearly_to_zero_over_its_updates():
    shard = ParameterShard(0, np.zeros(1, np.float32), optimizer="sgd", learning_rate=1.0, decay_updates=4)
    moves = []
    for _ in range(6):
        before = shard.theta.item()
        shard.apply(np.ones(1, np.float32), shard.version)
        moves.append(before - shard.theta.item())
    assert moves == pytest.approx([1.0, 0.75, 0.5, 0.25, 0.0, 0.0])


@pytest.mark.parametrize("staleness, beta1", [(0, 0.9), (1, 0.8), (4, 0.5), (9, 0.0), (30, 0.0)])
def test_stale_gradients_take_their_own_momentum_out_of_adams(staleness, beta1):
    # (1 - beta1_s) / (1 + s) = 1 - 0.9: 1 + s learners in flight are momentum 1 - 1/(1 + s) already
    shard = ParameterShard(0, THETA0, optimizer="adam", learning_rate=0.1, staleness_momentum=True)
    shard.version = 1_000  # gradients computed `staleness` versions ago, for long enough to be the running mean
    for _ in range(2_000):
        shard.apply(np.zeros(10, np.float32), shard.version - staleness)
    assert shard.recent_staleness == pytest.approx(staleness, abs=1e-6)
    assert shard.optimizer.beta1 == pytest.approx(beta1, abs=1e-6)
    assert shard.stats()["adam_beta1"] == shard.optimizer.beta1
    assert parameter_server_stats([shard.stats()], every_shard=True)["ps_adam_beta1"] == pytest.approx(beta1, abs=1e-4)
    kept = ParameterShard(0, THETA0, optimizer="adam", learning_rate=0.1)  # not asked: Adam's own 0.9
    kept.apply(np.zeros(10, np.float32), -staleness)
    assert kept.optimizer.beta1 == 0.9


def test_a_learner_that_waits_for_its_own_gradient_keeps_adams_momentum_and_its_steps_exactly():
    asked = ParameterShard(0, THETA0, optimizer="radam", learning_rate=0.1, staleness_momentum=True)
    plain = ParameterShard(0, THETA0, optimizer="radam", learning_rate=0.1)
    for step in range(12):
        asked.apply(g() * (step + 1), asked.version)
        plain.apply(g() * (step + 1), plain.version)
    assert asked.optimizer.beta1 == 0.9 and torch.equal(asked.theta, plain.theta)
    assert "ps_adam_beta1" not in parameter_server_stats(
        [ParameterShard(0, THETA0, optimizer="adagrad").stats()], every_shard=True
    )  # AdaGrad has no momentum to take


def test_adams_bias_correction_follows_a_changing_first_moment_decay_by_hand():
    # beta1 0.9 then 0.5: m = 0.5 (0.1 g1) + 0.5 g2, its weight 1 - 0.9 * 0.5 = 0.55, so m_hat = m / 0.55
    shard = ParameterShard(0, np.zeros(1, np.float32), optimizer="adam", learning_rate=1.0, optimizer_eps=1e-12)
    shard.apply(np.array([2.0], np.float32), 0)
    shard.optimizer.beta1 = 0.5
    shard.apply(np.array([4.0], np.float32), 1)
    first = 0.5 * (0.1 * 2.0) + 0.5 * 4.0
    second = 0.999 * 0.001 * 4.0 + 0.001 * 16.0
    second_hat = second / (1 - 0.999**2)
    assert shard.optimizer.first_weight == pytest.approx(0.55)
    assert shard.theta.item() == pytest.approx(-1.0 - (first / 0.55) / math.sqrt(second_hat), rel=1e-5)


def test_a_shard_saved_before_the_first_moments_weight_was_kept_restores_its_bias_correction():
    shard = ParameterShard(0, THETA0, optimizer="adam", learning_rate=0.1)
    for _ in range(3):
        shard.apply(g(), shard.version)
    state = shard.state()
    del state["optimizer"]["first_weight"], state["recent_staleness"]  # as written by earlier versions
    restored = ParameterShard(0, THETA0, optimizer="adam", learning_rate=0.1)
    restored.restore(state)
    assert restored.optimizer.first_weight == pytest.approx(1 - 0.9**3) and restored.recent_staleness == 0.0


class BeingRestarted:
    """A shard whose process was lost and is being restarted: no call of it is answered in time."""

    def __getattr__(self, name):
        def unanswered(*args):
            raise TimeoutError(f"{name} not answered")

        return unanswered


def test_while_a_shard_does_not_answer_the_record_keeps_the_newest_version_of_the_others_and_no_sums():
    servers, client = make_server("another process")
    client.push(g(), client.versions)
    client.drain()
    client.shards[1] = BeingRestarted()

    answered = client.answered_stats(timeout=0.1)

    assert [s["shard"] for s in answered] == [0, 2]
    assert parameter_server_stats(answered, every_shard=False) == {"ps_version": 1, "ps_target_version": 0}
    assert parameter_server_stats(answered)["ps_applied"] == 2
    assert parameter_server_stats([], every_shard=False) == {}


def in_threads(*calls) -> list:
    """Run each call in a thread of its own, as the learners' calls reach a shard; their results."""
    import threading

    results = [None] * len(calls)

    def run(index, call):
        results[index] = call()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads), "a learner is still waiting for its round"
    return results


def test_a_round_applies_the_mean_of_every_learners_gradient_as_one_update():
    shard = ParameterShard(0, THETA0, optimizer="sgd", learning_rate=1.0, round_size=3, round_timeout=20.0)
    gradients = [g() * k for k in (1.0, 2.0, 6.0)]
    applied = in_threads(*[lambda gradient=gradient: shard.apply(gradient, 0) for gradient in gradients])
    assert applied == [True, True, True] and shard.version == 1
    np.testing.assert_allclose(shard.theta.numpy(), THETA0 - 3.0 * GRAD, rtol=1e-6)  # the mean, once
    assert shard.stats()["applied"] == 3 and shard.stats()["mean_staleness"] == 0.0


def test_a_round_goes_on_without_a_missing_learner_after_its_timeout_and_waits_for_it_again_once_it_is_back():
    import time

    shard = ParameterShard(0, THETA0, optimizer="sgd", learning_rate=1.0, round_size=2, round_timeout=0.3)
    began = time.monotonic()
    assert shard.apply(g(), 0) is True  # the other learner never comes: applied alone after the timeout
    assert shard.version == 1 and time.monotonic() - began >= 0.3
    # from here a round that waited for a learner would take a minute: none of the calls below may
    shard.rounds.timeout = 60.0
    began = time.monotonic()
    assert shard.apply(g(), 1) is True  # not waited for any more: applied at once
    assert shard.version == 2 and time.monotonic() - began < 30
    # the missing learner comes back with a gradient on an older version: its learner is waited for again,
    # and the current learner's gradient, sent once the late one waits in the round, completes that round
    joined = lambda: wait_for(lambda: shard.rounds.count == 1, 30, poll=0.01)
    late, current = in_threads(lambda: shard.apply(g() * 3.0, 1), lambda: joined() and shard.apply(g(), 2))
    assert (late, current) == (True, True) and shard.version == 3
    np.testing.assert_allclose(shard.theta.numpy(), THETA0 - 4.0 * GRAD, rtol=1e-6)  # 1 + 1 + mean(3, 1)


def test_a_restore_drops_the_round_in_progress_and_its_learners_calls_say_so():
    shard = ParameterShard(0, THETA0, optimizer="sgd", learning_rate=1.0, round_size=2, round_timeout=20.0)
    saved = shard.state()
    waiting_in_the_round = lambda: wait_for(lambda: shard.rounds.count == 1, 30, poll=0.01)
    waiting, _ = in_threads(lambda: shard.apply(g(), 0), lambda: waiting_in_the_round() and shard.restore(saved))
    assert waiting is False and shard.version == 0
    np.testing.assert_allclose(shard.theta.numpy(), THETA0)


def test_learners_in_rounds_each_read_back_their_rounds_theta_plus_from_every_shard():
    servers = [
        ParameterShard(i, THETA0[a:b], optimizer="sgd", learning_rate=1.0, round_size=2, round_timeout=20.0)
        for i, (a, b) in enumerate(slice_bounds(THETA0.size, 2))
    ]
    clients = [
        ParameterClient([InAnotherProcess(s) for s in servers], slice_bounds(10, 2), DirectCalls()) for _ in "ab"
    ]
    push = lambda client, k: client.push_and_pull(torch.from_numpy(g() * k).unsqueeze(0), client.versions.copy())[0]
    read = in_threads(lambda: push(clients[0], 1.0), lambda: push(clients[1], 3.0))
    for theta in read:
        np.testing.assert_allclose(theta.numpy(), THETA0 - 2.0 * GRAD, rtol=1e-6)
    assert [server.version for server in servers] == [1, 1]
