"""DQN maths: n-step returns, TD targets (DQN vs double DQN), Huber loss, exploration schedules.

Every expected value below is computed by hand in the comment next to it.
"""

import numpy as np
import pytest
import torch

from gorila.agent import dqn


def fold(rewards, terminals, lasts, gamma):
    return dqn.n_step_return(np.array(rewards, np.float32), np.array(terminals, bool), np.array(lasts, bool), gamma)


def test_n_step_return_mid_episode_discounts_by_gamma_to_the_n():
    returns, discounts, steps = fold([[1.0, 2.0, 4.0]], [[False] * 3], [[False] * 3], gamma=0.5)
    assert returns.tolist() == [3.0]  # 1 + 0.5 * 2 + 0.25 * 4
    assert discounts.tolist() == [0.125]  # 0.5 ** 3
    assert steps.tolist() == [3]
    assert returns.dtype == np.float32 and discounts.dtype == np.float32 and steps.dtype == np.int64


def test_n_step_return_terminal_in_window_stops_sum_and_zeroes_discount():
    rewards = [[1.0, 2.0, 4.0], [1.0, 2.0, 4.0], [1.0, 2.0, 4.0]]
    terminals = [[False, True, False], [True, False, False], [False, True, False]]
    lasts = [[False, True, False], [True, False, False], [False, False, False]]  # row 3: a life loss
    returns, discounts, steps = fold(rewards, terminals, lasts, gamma=0.5)
    assert returns.tolist() == [2.0, 1.0, 2.0]  # 1 + 0.5 * 2 (the 4 after the terminal is not counted); 1
    assert discounts.tolist() == [0.0, 0.0, 0.0]
    assert steps.tolist() == [2, 1, 2]


def test_n_step_return_truncation_bootstraps_with_gamma_to_the_k():
    rewards = [[1.0, 2.0, 4.0], [1.0, 2.0, 4.0]]
    terminals = [[False] * 3, [False] * 3]
    lasts = [[True, False, False], [False, True, False]]
    returns, discounts, steps = fold(rewards, terminals, lasts, gamma=0.5)
    assert returns.tolist() == [1.0, 2.0]  # 1; 1 + 0.5 * 2
    assert discounts.tolist() == [0.5, 0.25]  # gamma ** k, k = 1, 2
    assert steps.tolist() == [1, 2]


def test_n_step_return_one_step_is_plain_dqn_target_parts():
    returns, discounts, steps = fold([[3.0], [3.0]], [[False], [True]], [[False], [True]], gamma=0.9)
    assert returns.tolist() == [3.0, 3.0]
    assert discounts.tolist() == [pytest.approx(0.9), 0.0]
    assert steps.tolist() == [1, 1]


# next-state Q-values where the target and online networks disagree on the best action
NEXT_Q_TARGET = torch.tensor([[1.0, 5.0], [3.0, 2.0]])
NEXT_Q_ONLINE = torch.tensor([[4.0, 0.0], [0.0, 7.0]])
REWARDS = torch.tensor([1.0, 1.0])
DISCOUNTS = torch.tensor([0.5, 1.0])


def test_td_targets_dqn_uses_the_target_networks_argmax():
    targets = dqn.td_targets(REWARDS, DISCOUNTS, NEXT_Q_TARGET)
    assert targets.tolist() == [3.5, 4.0]  # 1 + 0.5 * max(1, 5); 1 + 1 * max(3, 2)


def test_td_targets_double_dqn_evaluates_the_online_argmax_with_the_target_network():
    targets = dqn.td_targets(REWARDS, DISCOUNTS, NEXT_Q_TARGET, NEXT_Q_ONLINE)
    assert targets.tolist() == [1.5, 3.0]  # online picks a=0 -> 1 + 0.5 * 1; a=1 -> 1 + 1 * 2


def test_td_targets_zero_discount_ignores_the_bootstrap():
    targets = dqn.td_targets(torch.tensor([2.0]), torch.tensor([0.0]), torch.tensor([[100.0, -100.0]]))
    assert targets.tolist() == [2.0]


def test_huber_loss_is_quadratic_inside_delta_and_linear_outside():
    q = torch.tensor([1.0, 2.0])
    y = torch.tensor([1.5, 5.0])
    # |e| = 0.5 -> 0.5 * 0.25 = 0.125; |e| = 3 -> 1 * (3 - 0.5) = 2.5; mean 1.3125
    assert dqn.huber_loss(q, y, delta=1.0).item() == pytest.approx(1.3125)
    # delta 2: 0.125; 2 * (3 - 1) = 4; mean 2.0625
    assert dqn.huber_loss(q, y, delta=2.0).item() == pytest.approx(2.0625)


def test_dqn_loss_takes_the_q_value_of_the_action_taken_and_treats_targets_as_fixed():
    q_online = torch.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
    targets = torch.tensor([1.5, 5.0], requires_grad=True)
    loss = dqn.dqn_loss(q_online, torch.tensor([1, 0]), targets, huber_delta=1.0)
    assert loss.item() == pytest.approx(1.3125)  # q_taken = [1, 2], as in the Huber test
    loss.backward()
    assert targets.grad is None
    # d/dq of mean Huber: (q - y) / 2 inside delta -> -0.25; -delta / 2 outside -> -0.5; untaken: 0
    assert q_online.grad.tolist() == [[0.0, -0.25], [-0.5, 0.0]]


@pytest.mark.parametrize("reduction, scale", [("mean", 0.5), ("sum", 1.0)])
def test_weighted_dqn_loss_scales_each_transitions_term_and_gradient_by_its_weight(reduction, scale):
    q_online = torch.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
    weights = torch.tensor([1.0, 0.25])
    loss = dqn.dqn_loss(q_online, torch.tensor([1, 0]), torch.tensor([1.5, 5.0]), 1.0, reduction, weights)
    assert loss.item() == pytest.approx(scale * (0.125 + 0.25 * 2.5))  # Huber terms 0.125 and 2.5
    loss.backward()
    # the clipped errors -0.5 and -1, each times its weight (and / 2 for the mean)
    assert q_online.grad.tolist() == [[0.0, -0.5 * scale], [-0.25 * scale, 0.0]]


def test_unit_weights_give_the_unweighted_loss_and_td_errors_are_absolute():
    q_online = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
    actions, targets = torch.tensor([1, 0]), torch.tensor([1.5, -5.0])
    plain = dqn.dqn_loss(q_online, actions, targets)
    assert dqn.dqn_loss(q_online, actions, targets, weights=torch.ones(2)).item() == pytest.approx(plain.item())
    assert dqn.td_errors(q_online, actions, targets).tolist() == [0.5, 7.0]


def test_summed_dqn_loss_has_dqns_clipped_errors_as_its_gradient():
    q_online = torch.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
    loss = dqn.dqn_loss(q_online, torch.tensor([1, 0]), torch.tensor([1.5, 5.0]), huber_delta=1.0, reduction="sum")
    assert loss.item() == pytest.approx(2.625)  # 0.125 + 2.5
    loss.backward()
    # d/dq = -(y - q) clipped to [-1, 1]: -0.5 inside delta, -1 outside; DQN steps along minus this
    assert q_online.grad.tolist() == [[0.0, -0.5], [-1.0, 0.0]]


def test_linear_epsilon_endpoints_midpoint_and_hold():
    assert dqn.linear_epsilon(0, 1.0, 0.1, 100) == 1.0
    assert dqn.linear_epsilon(50, 1.0, 0.1, 100) == pytest.approx(0.55)
    assert dqn.linear_epsilon(100, 1.0, 0.1, 100) == pytest.approx(0.1)
    assert dqn.linear_epsilon(10_000, 1.0, 0.1, 100) == pytest.approx(0.1)
    assert dqn.linear_epsilon(5, 1.0, 0.1, 0) == 0.1


def test_epsilon_ladder_apex_values():
    assert dqn.epsilon_ladder(0, 8) == pytest.approx(0.4)
    assert dqn.epsilon_ladder(1, 8) == pytest.approx(0.4**2)  # 1 + 7 * 1 / 7
    assert dqn.epsilon_ladder(7, 8) == pytest.approx(0.4**8)
    assert dqn.epsilon_ladder(0, 1) == 0.4
    assert dqn.epsilon_ladder(0, 1, base=0.05) == 0.05
    ladder = [dqn.epsilon_ladder(i, 8) for i in range(8)]
    assert ladder == sorted(ladder, reverse=True)


def test_greedy_with_epsilon_zero_is_argmax():
    q = np.array([[0.1, 0.9, 0.3], [5.0, -1.0, 4.9], [0.0, 0.0, 2.0]])
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert dqn.greedy_with_epsilon(q, 0.0, rng).tolist() == [1, 0, 2]


def test_greedy_with_epsilon_one_explores_every_action():
    q = np.tile(np.array([[0.0, 1.0, 0.0, 0.0]]), (400, 1))
    actions = dqn.greedy_with_epsilon(q, 1.0, np.random.default_rng(0))
    assert set(actions.tolist()) == {0, 1, 2, 3}


def test_clip_norm_matches_torch_and_leaves_small_gradients_alone():
    parameters = [torch.nn.Parameter(torch.zeros(3)), torch.nn.Parameter(torch.zeros(2))]
    parameters[0].grad = torch.tensor([3.0, 4.0, 0.0])
    parameters[1].grad = torch.tensor([12.0, 0.0])  # total norm 13
    flat = torch.cat([p.grad for p in parameters]).numpy().copy()
    torch.nn.utils.clip_grad_norm_(parameters, 6.5)
    np.testing.assert_allclose(dqn.clip_norm(flat, 6.5), torch.cat([p.grad for p in parameters]).numpy(), rtol=1e-6)
    assert np.linalg.norm(flat) == pytest.approx(6.5, rel=1e-5)
    small = np.array([0.3, 0.4], np.float32)
    np.testing.assert_array_equal(dqn.clip_norm(small.copy(), 1.0), small)
    np.testing.assert_array_equal(dqn.clip_norm(flat.copy() * 100, 0.0), flat * 100)


def test_epsilon_greedy_runs_the_network_only_for_rows_that_do_not_explore():
    asked = []

    def greedy(rows):
        asked.append(rows.copy())
        return np.full(int(rows.sum()), 7)

    actions = dqn.epsilon_greedy(greedy, 1000, 3, 0.5, np.random.default_rng(0))
    explored = actions != 7
    assert asked and (asked[0] == ~explored).all() and 400 < explored.sum() < 600
    asked.clear()
    assert (dqn.epsilon_greedy(greedy, 8, 3, 1.0, np.random.default_rng(0)) < 3).all() and not asked


def test_epsilon_greedy_draws_the_same_actions_as_from_all_q_values():
    q = np.random.default_rng(1).normal(size=(64, 5))
    rng = np.random.default_rng(2)  # argmax of every row, then the exploring rows redrawn
    expected = q.argmax(axis=1)
    explore = rng.random(64) < 0.3
    expected[explore] = rng.integers(0, 5, size=int(explore.sum()))
    lazily = dqn.epsilon_greedy(lambda rows: q[rows].argmax(axis=1), 64, 5, 0.3, np.random.default_rng(2))
    assert (expected == lazily).all() and explore.any() and not explore.all()


def test_greedy_actions_break_ties_at_random_among_the_tied_only():
    q = np.array([[0.0, 2.0, 1.0], [5.0, 5.0, -1.0], [3.0, 3.0, 3.0]])
    rng = np.random.default_rng(0)
    counts = np.zeros((3, 3), int)
    for _ in range(3_000):
        for row, action in enumerate(dqn.greedy_actions(q, rng)):
            counts[row, action] += 1
    assert counts[0].tolist() == [0, 3_000, 0]  # no tie: always the argmax
    assert counts[1, 2] == 0 and 1_400 < counts[1, 0] < 1_600  # 50/50 between the two tied maxima
    assert all(900 < n < 1_100 for n in counts[2])  # a third each
    assert dqn.greedy_actions(q).tolist() == [1, 0, 0]  # without a generator: the lowest index


def test_greedy_actions_draw_nothing_without_a_tie():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    dqn.greedy_actions(np.array([[0.0, 1.0], [2.0, 1.0]]), rng)
    assert rng.bit_generator.state == state


def test_a_huber_delta_of_zero_is_half_the_squared_error_unclipped():
    q, y = torch.tensor([0.0, 1.0, -3.0]), torch.tensor([5.0, 1.0, 0.0])
    assert dqn.huber_loss(q, y, 0.0).item() == pytest.approx((12.5 + 0 + 4.5) / 3)
    assert dqn.huber_loss(q, y, 0.0, "sum").item() == pytest.approx(17.0)
