"""The train window: how the workers' reports become a train record's rates and means."""

import pytest

from gorila.messages import Report
from gorila.records.metrics import TrainWindow


def test_a_window_averages_epsilon_over_agent_steps_and_q_over_sampled_transitions():
    window = TrainWindow(now=0.0)
    window.add(Report(steps=100, epsilon_sum=90.0))  # an actor at 0.9
    window.add(Report(steps=300, epsilon_sum=30.0))  # one three times as busy at 0.1
    window.add(Report(updates=2, q_sum=64.0, q_count=64))  # a learner: two minibatches of 32
    window.add(Report(updates=1, q_sum=-8.0, q_count=32))
    stats = window.close(now=2.0, frames_per_step=4)
    assert stats["epsilon"] == pytest.approx(120.0 / 400)
    assert stats["q_mean"] == pytest.approx(56.0 / 96)
    assert stats["fps"] == pytest.approx(400 * 4 / 2.0)


def test_episode_lengths_are_averaged_over_the_same_episodes_as_the_returns():
    window = TrainWindow()
    window.add(Report(steps=10, episode_returns=(1.0, 3.0), episode_lengths=(10, 30)))
    first = window.close(now=1.0, frames_per_step=1)
    assert (first["return_mean"], first["episode_length"]) == (2.0, 20.0)
    window.add(Report(steps=10, episode_returns=tuple([5.0] * 100), episode_lengths=tuple([50] * 100)))
    second = window.close(now=2.0, frames_per_step=1)
    assert (second["return_mean"], second["episode_length"]) == (5.0, 50.0)  # the last 100 episodes


def test_a_window_with_nothing_to_average_has_none_and_epsilon_and_q_start_again_at_each_window():
    window = TrainWindow()
    empty = window.close(now=1.0, frames_per_step=1)
    assert empty["epsilon"] is empty["q_mean"] is empty["episode_length"] is None
    window.add(Report(steps=10, epsilon_sum=5.0, q_sum=3.0, q_count=3))
    assert window.close(now=2.0, frames_per_step=1)["epsilon"] == 0.5
    window.add(Report(steps=10, epsilon_sum=1.0))
    later = window.close(now=3.0, frames_per_step=1)
    assert later["epsilon"] == 0.1 and later["q_mean"] is None


def test_the_training_target_is_reached_only_by_the_mean_of_a_full_window_of_100_episodes():
    window = TrainWindow()
    window.add(Report(steps=10, episode_returns=tuple([9.0] * 99)))
    assert not window.reached(8.0), "99 episodes are not the last 100"
    window.add(Report(steps=10, episode_returns=(0.0,)))
    assert window.reached(8.0) and not window.reached(8.92)  # (99 * 9 + 0) / 100 = 8.91
    assert not window.reached(0.0), "0 sets no target"
    window.add(Report(steps=10, episode_returns=tuple([-5.0] * 50)))
    assert window.reached(1.9) and not window.reached(1.92)  # the last 100: 49 nines, the 0, 50 of -5: 1.91
