"""The learner's outlier safeguard, alone and inside a Learner wired to real shards and a real replay."""

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from gorila.agent import dqn
from gorila.agent.networks import bfloat16_native, resolved_precision
from gorila.components.learner import LossOutlierFilter
from gorila.components.replay import ReplayMemory
from gorila.config import Config
from gorila.messages import Report
from gorila.runtime.calls import DirectCalls
from gorila.system import builders
from gorila.system.planning import plan_run
from tests.helpers import CARTPOLE_INFO


def warm(filter_, losses):
    for loss in losses:
        assert filter_.is_outlier(loss) is False


def test_filter_flags_a_far_loss_after_warmup():
    f = LossOutlierFilter(k=3.0, warmup=5)
    warm(f, [1.0, 2.0, 1.0, 2.0, 1.0])
    assert f.mean == pytest.approx(1.4)
    assert f.var == pytest.approx(0.24)  # population variance of the five
    edge = 1.4 + 3 * math.sqrt(0.24)  # 2.8697
    assert f.is_outlier(edge + 0.01) is True
    # the outlier is folded in clipped to the edge, with the running (decay 0.99) update
    assert f.mean == pytest.approx(1.4 + 0.01 * (edge - 1.4))
    assert f.var == pytest.approx(0.99 * (0.24 + 0.01 * (edge - 1.4) ** 2))
    assert f.count == 6
    assert f.is_outlier(2.9) is False  # the new edge is 2.941
    assert f.is_outlier(1e6) is True


def test_filter_does_not_flag_during_warmup():
    f = LossOutlierFilter(k=3.0, warmup=5)
    warm(f, [1.0, 2.0, 1.0, 2.0])
    assert f.is_outlier(1e6) is False  # 5th loss: still warming up
    assert f.count == 5
    assert f.mean == pytest.approx((6.0 + 1e6) / 5)


@pytest.mark.parametrize("loss", [math.nan, math.inf, -math.inf])
def test_filter_non_finite_losses_are_outliers_and_not_folded_in(loss):
    f = LossOutlierFilter(k=3.0, warmup=5)
    assert f.is_outlier(loss) is True  # even before warmup
    warm(f, [1.0, 2.0, 1.0, 2.0, 1.0])
    assert f.is_outlier(loss) is True
    assert f.count == 5 and f.mean == pytest.approx(1.4)


def test_filter_with_k_zero_is_off():
    f = LossOutlierFilter(k=0.0, warmup=2)
    warm(f, [1.0, 1.0, 1.0, 1e9])
    assert f.is_outlier(math.nan) is True


def make_replay(reward: float, seed: int = 0) -> ReplayMemory:
    """A one-stream CartPole-shaped replay of 40 ordinary steps, every reward equal to `reward`."""
    memory = ReplayMemory(100, 1, (4,), np.float32, stack=1, n_step=1, gamma=0.99, seed=seed, min_size=1)
    rng = np.random.default_rng(seed)
    for step in range(40):
        memory.add([0], rng.normal(size=(1, 4)).astype(np.float32), [step % 2], [reward], [False], [False])
    return memory


def make_learner(replay, **overrides):
    settings = dict(
        hidden_sizes=(8,),
        batch_size=8,
        optimizer="sgd",
        learning_rate=0.01,
        outlier_k=3.0,
        outlier_warmup=3,
        max_staleness=-1,
        param_shards=2,
        learner_sync_every=1,
        target_update_every=1000,
        seed=3,
    )
    config = Config(**{**settings, **overrides})
    theta = builders.initial_parameters(config, CARTPOLE_INFO)
    bounds = builders.parameter_bounds(config, theta.size)
    plan = plan_run(config, CARTPOLE_INFO)
    shards = [builders.make_shard(config, plan, i, theta[a:b]) for i, (a, b) in enumerate(bounds)]
    learner = builders.make_learner(config, plan, 0, shards, bounds, DirectCalls(), replay)
    return learner, shards


def versions(shards):
    return [shard.stats()["version"] for shard in shards]


def test_learner_pushes_ordinary_gradients():
    learner, shards = make_learner(make_replay(0.0))
    theta0 = np.concatenate([s.pull()[0] for s in shards])
    report = learner.run(3)
    assert report.updates == 3 and report.loss_count == 3 and report.dropped_outliers == 0
    assert versions(shards) == [3, 3]
    assert not np.array_equal(np.concatenate([s.pull()[0] for s in shards]), theta0)


def test_learner_drops_an_outlier_loss_after_warmup_and_counts_it():
    learner, shards = make_learner(make_replay(0.0))
    assert learner.run(3).dropped_outliers == 0  # warmup: three ordinary losses
    assert versions(shards) == [3, 3]
    theta = np.concatenate([s.pull()[0] for s in shards])
    learner.replay = make_replay(1e6)  # every target is now ~1e6 away: loss ~1e6
    report = learner.run(1)
    assert replace(report, q_sum=0.0, q_count=0) == Report(updates=1, dropped_outliers=1)
    assert report.q_count == 8  # its minibatch's Q-values are still reported
    assert versions(shards) == [3, 3]
    np.testing.assert_array_equal(np.concatenate([s.pull()[0] for s in shards]), theta)


def test_learner_never_pushes_a_nan_loss_even_before_warmup():
    learner, shards = make_learner(make_replay(math.nan))
    theta = np.concatenate([s.pull()[0] for s in shards])
    report = learner.run(2)
    assert report.updates == 2 and report.dropped_outliers == 2 and report.loss_count == 0
    assert versions(shards) == [0, 0]
    np.testing.assert_array_equal(np.concatenate([s.pull()[0] for s in shards]), theta)


def test_learner_waits_for_a_warm_replay():
    empty = ReplayMemory(100, 1, (4,), np.float32, min_size=50)
    learner, shards = make_learner(empty)
    assert learner.run(5) == Report()
    assert versions(shards) == [0, 0]


def test_summed_loss_sends_batch_size_times_the_mean_gradient_and_logs_the_same_loss():
    batch = make_replay(1.0).sample(8)
    mean_learner, _ = make_learner(make_replay(1.0), max_grad_norm=0.0)
    sum_learner, _ = make_learner(make_replay(1.0), loss_reduction="sum", max_grad_norm=0.0)
    mean_loss, _, mean_gradient = mean_learner.gradient(batch)
    sum_loss, _, sum_gradient = sum_learner.gradient(batch)
    assert sum_loss == pytest.approx(mean_loss, rel=1e-6)  # logged per transition either way
    np.testing.assert_allclose(sum_gradient, 8 * mean_gradient, rtol=1e-4, atol=1e-6)
    assert np.abs(mean_gradient).max() > 0


def test_a_learner_reports_the_q_values_of_the_actions_in_its_minibatches():
    learner, _ = make_learner(make_replay(1.0))
    batch = make_replay(1.0).sample(8)  # the same seed: the minibatch the learner draws first
    learner.sync()  # theta+, which its first update reads
    with torch.no_grad():
        q_taken = dqn.taken_q(learner.online(torch.as_tensor(batch.obs)), torch.as_tensor(batch.actions))
    report = learner.run(1)
    assert report.q_count == 8 and report.q_sum == pytest.approx(float(q_taken.sum()), rel=1e-5)
    assert learner.run(2).q_count == 16  # counted afresh for each report


def online_theta(learner) -> np.ndarray:
    return np.concatenate([p.detach().numpy().ravel() for p in learner.online.parameters()])


def server_theta(shards) -> np.ndarray:
    return np.concatenate([s.pull()[0] for s in shards])


@pytest.mark.parametrize("refresh", ["pipelined", "synchronous"])
def test_a_refresh_after_a_push_has_the_gradient_in_it_only_when_synchronous(refresh):
    learner, shards = make_learner(make_replay(1.0), learner_refresh=refresh)
    before = server_theta(shards)
    learner.update()  # push gradient 1, refresh theta+
    after = server_theta(shards)
    assert versions(shards) == [1, 1] and not np.array_equal(before, after)
    # synchronous: the learner's copy includes gradient 1; pipelined: it is the one asked for at start
    np.testing.assert_array_equal(online_theta(learner), after if refresh == "synchronous" else before)
    learner.update()
    assert versions(shards) == [2, 2]
    expected = server_theta(shards) if refresh == "synchronous" else after  # one update behind
    np.testing.assert_array_equal(online_theta(learner), expected)
    learner.params.drain()  # nothing left in flight either way
    assert not learner.params.inflight


def test_a_prioritised_learner_weights_its_loss_and_sends_the_new_priorities_back():
    from gorila.components.replay.priorities import PriorityRule

    replay = ReplayMemory(100, 1, (4,), np.float32, seed=0, min_size=1, priority=PriorityRule(alpha=1.0, eps=1e-6))
    rng = np.random.default_rng(0)
    for step in range(40):
        replay.add([0], rng.normal(size=(1, 4)).astype(np.float32), [step % 2], [1.0], [False], [False])
    learner, _ = make_learner(replay, max_grad_norm=0.0)
    assert np.allclose(replay.sampler.tree.leaves[:39], 1.0)  # all new: the initial maximum
    batch = replay.sample(8)
    assert batch.weights is not None and batch.weights.max() == 1.0
    _, _, weighted = learner.gradient(batch)
    touched = np.unique(batch.indices)
    # |delta| = |1 + 0.99 max Q(s') - Q(s, a)| of an untrained network: near 1, never exactly the initial 1
    assert not np.isclose(replay.sampler.tree.leaves[touched], 1.0).any()
    _, _, unweighted = learner.gradient(replace(batch, weights=None, streams=None))
    halved = replace(batch, weights=np.full(8, 0.5, np.float32), streams=None)
    np.testing.assert_allclose(learner.gradient(halved)[2], 0.5 * unweighted, rtol=1e-4, atol=1e-7)
    assert learner.run(3).updates == 3


def test_the_outlier_test_reads_the_absolute_dqn_loss():
    """The statistic is the paper's mean |y - Q(s, a)| over the minibatch, computed here by hand."""
    learner, _ = make_learner(make_replay(3.0, seed=1))
    learner.sync()
    batch = learner.replay.sample(8)
    with torch.no_grad():
        q = learner.online(torch.as_tensor(batch.obs)).gather(1, torch.as_tensor(batch.actions)[:, None]).squeeze(1)
        bootstrap = learner.target(torch.as_tensor(batch.next_obs)).max(1).values
        y = torch.as_tensor(batch.returns) + torch.as_tensor(batch.discounts) * bootstrap
    loss, abs_error, _ = learner.gradient(batch)
    assert abs_error == pytest.approx(float((y - q).abs().mean()), rel=1e-5)
    assert abs_error > 1.0 and loss == pytest.approx(abs_error - 0.5, rel=0.05)  # Huber's linear arm, not |e|


@pytest.mark.parametrize("algorithm", ["dqn", "rainbow"])
def test_a_bfloat16_learner_sends_a_float32_gradient_near_the_float32_one_but_not_it(algorithm):
    batch = make_replay(1.0).sample(8)
    settings = dict(hidden_sizes=(64, 64), max_grad_norm=0.0, algorithm=algorithm)
    exact, _ = make_learner(make_replay(1.0), **settings)
    rounded, _ = make_learner(make_replay(1.0), **settings, learner_precision="bfloat16")
    assert rounded.precision == "bfloat16"  # the builder hands the config's precision over
    for learner in (exact, rounded):
        learner.sync()
    exact_loss, _, exact_gradient = exact.gradient(batch)
    rounded_loss, _, rounded_gradient = rounded.gradient(batch)
    assert rounded_gradient.dtype == torch.float32 and isinstance(rounded_loss, float)
    assert not torch.equal(rounded_gradient, exact_gradient)  # bfloat16 products round: autocast was on
    cosine = torch.nn.functional.cosine_similarity(rounded_gradient, exact_gradient, dim=0)
    assert float(cosine) > 0.99
    assert rounded_loss == pytest.approx(exact_loss, rel=0.05)


def test_an_auto_precision_learner_computes_in_what_this_machines_cpu_has_instructions_for():
    expected = "bfloat16" if bfloat16_native(torch.device("cpu")) else "float32"
    learner, _ = make_learner(make_replay(1.0), hidden_sizes=(64, 64), learner_precision="auto")
    assert learner.precision == expected


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ("fpu sse2 avx2 avx512f avx512bw avx512_bf16 amx_tile", True),  # x86 with AVX-512 BF16
        ("fpu avx512f amx_bf16 amx_tile", True),  # x86 with AMX
        ("fp asimd sve i8mm bf16", True),  # Arm's Features line
        ("fpu sse2 avx2 avx512f avx512bw avx512dq", False),  # AVX-512 without BF16: emulated
        ("fpu sse2 avx2", False),
    ],
)
def test_bfloat16_is_native_only_where_the_cpu_has_its_instructions(flags, native):
    assert bfloat16_native(torch.device("cpu"), cpu_flags=flags) is native


def test_a_precision_named_is_kept_whatever_the_device():
    for precision in ("float32", "bfloat16"):
        assert resolved_precision(precision, "cpu") == precision
