"""Q(lambda) targets (`gorila.agent.q_lambda`) against hand-computed rollouts."""

import pytest
import torch

from gorila.agent.q_lambda import q_lambda_targets

F, T_ = False, True


def targets(rewards, terminals, lasts, next_max_q, gamma=0.5, lam=0.5):
    column = lambda values, dtype: torch.tensor(values, dtype=dtype).reshape(-1, 1)
    return (
        q_lambda_targets(
            column(rewards, torch.float32),
            column(terminals, torch.bool),
            column(lasts, torch.bool),
            column(next_max_q, torch.float32),
            gamma,
            lam,
        )
        .flatten()
        .tolist()
    )


def test_three_steps_by_hand():
    # G_2 = 1 + 0.5 * 8 = 5; G_1 = 0 + 0.5 * (0.5 * 6 + 0.5 * 5) = 2.75; G_0 = 2 + 0.5 * (0.5 * 4 + 0.5 * 2.75) = 3.6875
    assert targets([2, 0, 1], [F, F, F], [F, F, F], [4, 6, 8]) == pytest.approx([3.6875, 2.75, 5.0])


def test_lambda_zero_is_the_one_step_target_and_one_the_bootstrapped_return():
    rewards, next_max_q = [1, 2, 3], [10, 20, 30]
    assert targets(rewards, [F] * 3, [F] * 3, next_max_q, gamma=0.9, lam=0.0) == pytest.approx(
        [1 + 0.9 * 10, 2 + 0.9 * 20, 3 + 0.9 * 30]
    )
    assert targets(rewards, [F] * 3, [F] * 3, next_max_q, gamma=0.9, lam=1.0) == pytest.approx(
        [1 + 0.9 * 2 + 0.81 * 3 + 0.729 * 30, 2 + 0.9 * 3 + 0.81 * 30, 3 + 0.9 * 30]
    )


def test_a_terminal_stops_the_bootstrap_and_the_blend():
    # step 1 ends its episode (terminal): G_1 = r_1 = 3; G_0 blends with G_1 as usual; G_2 starts afresh
    assert targets([1, 3, 5], [F, T_, F], [F, T_, F], [4, 100, 2]) == pytest.approx(
        [1 + 0.5 * (0.5 * 4 + 0.5 * 3), 3.0, 5 + 0.5 * 2]
    )


def test_a_truncated_episode_bootstraps_from_its_final_observation_but_not_from_the_next_episode():
    # step 1 is truncated: G_1 = 3 + 0.5 * 100 (its final observation's value), not blended with G_2
    assert targets([1, 3, 5], [F, F, F], [F, T_, F], [4, 100, 2]) == pytest.approx(
        [1 + 0.5 * (0.5 * 4 + 0.5 * 53), 53.0, 6.0]
    )


def test_copies_are_independent_and_lambda_is_checked():
    rewards = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    flags = torch.zeros(2, 2, dtype=torch.bool)
    out = q_lambda_targets(rewards, flags, flags, torch.tensor([[2.0, 4.0], [6.0, 8.0]]), 0.5, 0.5)
    assert out[:, 0].tolist() == targets([1, 0], [F, F], [F, F], [2, 6])
    assert out[:, 1].tolist() == targets([0, 1], [F, F], [F, F], [4, 8])
    with pytest.raises(ValueError, match="lambda must lie in"):
        q_lambda_targets(rewards, flags, flags, rewards, 0.5, 1.5)


def test_copies_that_end_episodes_at_different_steps_each_cut_only_their_own_blend():
    """gamma = lambda = 0.5, three copies (columns): copy 0 ends its episode in a terminal at step 0,
    copy 1 is truncated at step 1, copy 2 never ends.
    copy 0: G_2 = 3 + 0.5 * 8 = 7; G_1 = 2 + 0.5 * (0.5 * 4 + 0.5 * 7) = 4.75; G_0 = 1 (terminal).
    copy 1: G_2 = 2 + 0.5 * 8 = 6; G_1 = 1 + 0.5 * 20 = 11 (truncated: its final observation's value);
            G_0 = 0 + 0.5 * (0.5 * 6 + 0.5 * 11) = 4.25.
    copy 2: as test_three_steps_by_hand."""
    rewards = torch.tensor([[1.0, 0.0, 2.0], [2.0, 1.0, 0.0], [3.0, 2.0, 1.0]])
    terminals = torch.tensor([[T_, F, F], [F, F, F], [F, F, F]])
    lasts = torch.tensor([[T_, F, F], [F, T_, F], [F, F, F]])
    next_max_q = torch.tensor([[10.0, 6.0, 4.0], [4.0, 20.0, 6.0], [8.0, 8.0, 8.0]])
    out = q_lambda_targets(rewards, terminals, lasts, next_max_q, 0.5, 0.5)
    expected = torch.tensor([[1.0, 4.25, 3.6875], [4.75, 11.0, 2.75], [7.0, 6.0, 5.0]])
    torch.testing.assert_close(out, expected)


@pytest.mark.parametrize("lam", [0.0, 0.5, 1.0])
def test_a_one_step_rollout_is_the_one_step_target_whatever_lambda(lam):
    # three copies, one step each: r + 0.5 * q, or r alone after a terminal; a truncation still bootstraps
    rewards, next_max_q = torch.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[4.0, 8.0, 6.0]])
    terminals, lasts = torch.tensor([[F, T_, F]]), torch.tensor([[F, T_, T_]])
    out = q_lambda_targets(rewards, terminals, lasts, next_max_q, 0.5, lam)
    torch.testing.assert_close(out, torch.tensor([[1 + 0.5 * 4, 2.0, 3 + 0.5 * 6]]))


def test_a_terminal_on_the_rollouts_last_step_bootstraps_nothing_there():
    # G_2 = 3; G_1 = 2 + 0.5 * (0.5 * 6 + 0.5 * 3) = 4.25; G_0 = 1 + 0.5 * (0.5 * 4 + 0.5 * 4.25) = 3.0625
    assert targets([1, 2, 3], [F, F, T_], [F, F, T_], [4, 6, 100]) == pytest.approx([3.0625, 4.25, 3.0])
