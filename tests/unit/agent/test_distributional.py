"""C51's maths (`gorila.agent.distributional`): the support, the categorical projection, the double-DQN
target, the cross-entropy loss and the expected Q-value.

Most cases use 5 atoms on [-2, 2] (z = -2, -1, 0, 1, 2; dz = 1); every expected value is worked out by
hand in the comment beside it.
"""

import math

import pytest
import torch

from gorila.agent import distributional as c51

ATOMS = c51.support(-2.0, 2.0, 5)


def project(probabilities, reward, discount):
    rows = torch.tensor([probabilities])
    return c51.project(rows, torch.tensor([reward]), torch.tensor([discount]), ATOMS)[0].tolist()


def test_the_default_support_is_51_atoms_from_minus_10_to_10():
    atoms = c51.support()
    assert atoms.shape == (51,) and atoms[0] == -10.0 and atoms[-1] == 10.0
    torch.testing.assert_close(atoms[1:] - atoms[:-1], torch.full((50,), 0.4))  # dz = 20 / 50
    assert ATOMS.tolist() == [-2.0, -1.0, 0.0, 1.0, 2.0]
    with pytest.raises(ValueError, match="at least 2 atoms"):
        c51.support(1.0, -1.0, 5)


def test_a_reward_of_one_atom_moves_every_atoms_mass_exactly_onto_the_next():
    # T z = z + 1 = -1, 0, 1, 2, (3 clipped to 2): each b lands on an atom, where Algorithm 1's two
    # shares (u - b) and (b - l) would both be 0 and the mass lost
    assert project([0.1, 0.2, 0.3, 0.4, 0.0], 1.0, 1.0) == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    # a discount shrinks the support: T z = 0.5 z = -1, -0.5, 0, 0.5, 1; the mass sits on z = -2, 0, 2
    assert project([0.2, 0.0, 0.5, 0.0, 0.3], 0.0, 0.5) == pytest.approx([0.0, 0.2, 0.5, 0.3, 0.0])


def test_a_target_atom_between_two_atoms_splits_its_mass_by_nearness():
    # T z = 0 + 0.25 lies a quarter of the way from 0 to 1: 0.75 to z = 0, 0.25 to z = 1
    assert project([0.0, 0.0, 1.0, 0.0, 0.0], 0.25, 1.0) == pytest.approx([0.0, 0.0, 0.75, 0.25, 0.0])
    # two atoms of 0.5 each: -1 + 0.25 -> 0.375 to -1, 0.125 to 0; 1 + 0.25 -> 0.375 to 1, 0.125 to 2
    assert project([0.0, 0.5, 0.0, 0.5, 0.0], 0.25, 1.0) == pytest.approx([0.0, 0.375, 0.125, 0.375, 0.125])


def test_target_atoms_beyond_the_support_are_clipped_to_its_ends():
    spread = [0.1, 0.2, 0.3, 0.2, 0.2]
    assert project(spread, 5.0, 1.0) == pytest.approx([0.0, 0.0, 0.0, 0.0, 1.0])  # z + 5 >= 3 > v_max
    assert project(spread, -7.0, 0.9) == pytest.approx([1.0, 0.0, 0.0, 0.0, 0.0])  # -7 + 0.9 z <= -5.2
    # 1.5 + z = -0.5, 0.5, 1.5 each split in halves; 2.5 and 3.5 clipped to 2: 0.3 / 2 + 0.2 + 0.2 = 0.55 there
    assert project(spread, 1.5, 1.0) == pytest.approx([0.0, 0.05, 0.15, 0.25, 0.55])


def test_a_terminal_transition_collapses_the_target_onto_its_reward():
    spread = [0.1, 0.2, 0.3, 0.2, 0.2]
    assert project(spread, -1.0, 0.0) == pytest.approx([0.0, 1.0, 0.0, 0.0, 0.0])
    assert project(spread, 0.5, 0.0) == pytest.approx([0.0, 0.0, 0.5, 0.5, 0.0])


def algorithm_1(probabilities, reward, discount, atoms):
    """Bellemare et al.'s Algorithm 1 as printed, one atom at a time, with a b that lands on an atom
    given all of its mass (there l = u, and the printed shares are both 0)."""
    v_min, v_max, n = float(atoms[0]), float(atoms[-1]), len(atoms)
    dz = (v_max - v_min) / (n - 1)
    m = [0.0] * n
    for j, z in enumerate(atoms.tolist()):
        b = (min(max(reward + discount * z, v_min), v_max) - v_min) / dz
        low, high = math.floor(b), math.ceil(b)
        if low == high:
            m[low] += probabilities[j]
        else:
            m[low] += probabilities[j] * (high - b)
            m[high] += probabilities[j] * (b - low)
    return m


def test_the_projection_is_algorithm_1_and_conserves_mass_on_random_inputs():
    generator = torch.Generator().manual_seed(0)
    atoms = c51.support()
    probabilities = torch.randn(64, 51, generator=generator).mul(3).softmax(dim=1)
    rewards = torch.empty(64).uniform_(-15, 15, generator=generator)
    discounts = torch.rand(64, generator=generator) * (torch.rand(64, generator=generator) > 0.2)  # some terminal
    projected = c51.project(probabilities, rewards, discounts, atoms)
    assert projected.shape == (64, 51) and projected.min() >= 0.0
    torch.testing.assert_close(projected.sum(dim=1), torch.ones(64))
    for row in (0, 7, 33):
        expected = algorithm_1(probabilities[row].tolist(), float(rewards[row]), float(discounts[row]), atoms)
        torch.testing.assert_close(projected[row], torch.tensor(expected), atol=1e-6, rtol=0)


def test_expected_q_is_the_mean_of_each_distribution():
    probabilities = torch.tensor([[[0.0, 0.0, 1.0, 0.0, 0.0], [0.1, 0.2, 0.3, 0.2, 0.2]]])  # [1, 2 actions, 5]
    # 0; -0.2 - 0.2 + 0 + 0.2 + 0.4 = 0.2
    assert c51.expected_q(probabilities, ATOMS).tolist() == [[0.0, pytest.approx(0.2)]]
    logits = probabilities.log()  # zeros become -inf: softmax gives them back as 0
    torch.testing.assert_close(c51.q_values(logits, ATOMS), torch.tensor([[0.0, 0.2]]))


def onehot_logits(*indices):
    """Logits of distributions each with all its mass on one atom ([A, 5])."""
    return torch.nn.functional.one_hot(torch.tensor(indices), 5).float().log()


def test_categorical_targets_project_the_target_networks_distribution_of_the_chosen_action():
    next_target = onehot_logits(4, 1)[None]  # Q_target(s', .) = 2, -1
    next_online = onehot_logits(0, 3)[None]  # Q_online(s', .) = -2, 1: it picks the other action
    rewards, discounts = torch.tensor([0.0]), torch.tensor([0.5])
    # C51: a* = 0, whose atom 2 maps to 0.5 * 2 = 1
    assert c51.categorical_targets(rewards, discounts, next_target, ATOMS).tolist() == [[0.0, 0.0, 0.0, 1.0, 0.0]]
    # double: the online network picks a* = 1, the target network's -1 maps to -0.5, half on -1 and 0
    double = c51.categorical_targets(rewards, discounts, next_target, ATOMS, next_online)
    assert double.tolist() == [[0.0, 0.5, 0.5, 0.0, 0.0]]


def test_taken_logits_pick_each_rows_action():
    logits = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(2, 3, 4)
    assert c51.taken_logits(logits, torch.tensor([2, 0])).tolist() == [[8, 9, 10, 11], [12, 13, 14, 15]]


# two transitions, two actions, three atoms: the actions taken (1, then 0) have p = (1/4, 1/4, 1/2) and
# the uniform distribution; the untaken actions' logits are large so that picking them would show
HALF = math.log(2.0)
LOGITS = torch.tensor([[[9.0, -9.0, 9.0], [0.0, 0.0, HALF]], [[0.0, 0.0, 0.0], [-9.0, 9.0, 9.0]]])
ACTIONS = torch.tensor([1, 0])
TARGETS = torch.tensor([[0.5, 0.0, 0.5], [1.0, 0.0, 0.0]])
# -(0.5 ln 1/4 + 0.5 ln 1/2) = 1.5 ln 2; -ln 1/3 = ln 3
CROSS_ENTROPIES = [1.5 * HALF, math.log(3.0)]


def test_cross_entropies_are_each_transitions_minus_sum_m_log_p():
    taken = c51.taken_logits(LOGITS, ACTIONS)
    assert c51.cross_entropies(taken, TARGETS).tolist() == pytest.approx(CROSS_ENTROPIES)


@pytest.mark.parametrize("reduction, weights", [("mean", None), ("sum", None), ("mean", [1.0, 0.5])])
def test_categorical_loss_weights_and_reduces_and_its_gradient_is_p_minus_m(reduction, weights):
    logits = LOGITS.clone().requires_grad_(True)
    targets = TARGETS.clone().requires_grad_(True)
    scale = torch.tensor(weights or [1.0, 1.0]) / (2.0 if reduction == "mean" else 1.0)
    loss = c51.categorical_loss(logits, ACTIONS, targets, reduction, None if weights is None else torch.tensor(weights))
    assert loss.item() == pytest.approx(float(scale @ torch.tensor(CROSS_ENTROPIES)))
    loss.backward()
    assert targets.grad is None  # the projected target is fixed
    # d(-sum m log softmax(l)) / dl = p - m: (1/4 - 1/2, 1/4, 1/2 - 1/2) and (1/3 - 1, 1/3, 1/3)
    expected = torch.zeros(2, 2, 3)
    expected[0, 1] = torch.tensor([-0.25, 0.25, 0.0]) * scale[0]
    expected[1, 0] = torch.tensor([-2 / 3, 1 / 3, 1 / 3]) * scale[1]
    torch.testing.assert_close(logits.grad, expected)
