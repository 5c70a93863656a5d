"""A run's schedules against its budget: refused when learners could not start, and the launch line
and epsilon warning with their numbers (all computed by hand below)."""

import pytest

from gorila.config import ConfigError, build_config
from gorila.system.agent_builders import epsilon_schedule
from gorila.system.budget import check_learning_start, describe_schedule, epsilon_at_end, epsilon_warning
from gorila.system.builders import replay_warmup
from gorila.system.planning import plan_run
from gorila.system.preflight import check_fits_env
from tests.helpers import ATARI_INFO, CARTPOLE_INFO, MINATAR_INFO


def paper(**overrides):
    return build_config("gorila-paper", overrides={"env": "Breakout", **overrides}, scale=0.1)


def test_the_paper_preset_at_any_scale_ends_epsilon_and_starts_learning_inside_its_budget():
    for scale in (0.01, 0.02, 0.1, 0.5, 1.0):
        config = build_config("gorila-paper", overrides={"env": "Breakout"}, scale=scale)
        check_learning_start(config, plan_run(config, ATARI_INFO))
        assert epsilon_warning(config, plan_run(config, ATARI_INFO)) is None
        assert epsilon_at_end(config, plan_run(config, ATARI_INFO)) == pytest.approx(0.1)


def test_bundles_that_could_never_sample_are_refused_with_the_numbers():
    # 2,000,000 frames = 500,000 agent steps for 10 bundles: 50,000 each, all of them warm-up
    config = paper(replay_capacity=200_000, total_frames=2_000_000)
    with pytest.raises(ConfigError) as error:
        check_fits_env(config, ATARI_INFO)
    assert str(error.value) == (
        "learning_starts: each bundle's replay must hold 50,000 transitions before learning starts, but receives "
        "only 50,000 agent steps of total_frames=2,000,000 (10 bundles, 4 frames per step): no update would be "
        "made; raise total_frames (e.g. to 8,000,000) or lower learning_starts below 50,000"
    )
    starts = paper(replay_capacity=200_000, total_frames=2_000_004 * 4)
    check_learning_start(starts, plan_run(starts, ATARI_INFO))  # 50,000.1 each: starts


def test_stand_alone_replays_share_the_warm_up():
    # global replay: 2 shards each wait for 500 of the 1,000; 1,000 CartPole steps give each 500
    fields = dict(
        bundled=False, actors=3, learners=1, replay="global", replay_shards=2, learning_starts=1_000, batch_size=32
    )
    short, enough = (
        build_config("cartpole", overrides={**fields, "total_frames": frames}) for frames in (1_000, 1_002)
    )
    with pytest.raises(ConfigError, match="each of the 2 replay memories must hold 500 transitions"):
        check_learning_start(short, plan_run(short, CARTPOLE_INFO))
    check_learning_start(enough, plan_run(enough, CARTPOLE_INFO))


def test_a_minibatch_larger_than_the_budget_names_batch_size():
    config = build_config("cartpole", overrides={"total_frames": 50, "learning_starts": 0, "batch_size": 64})
    with pytest.raises(ConfigError, match="^batch_size: each bundle's replay must hold 64 transitions"):
        check_learning_start(config, plan_run(config, CARTPOLE_INFO))


def test_the_launch_line_says_when_epsilon_ends_and_learning_starts():
    config = build_config("gorila-paper", overrides={"env": "Breakout"}, scale=0.02)
    # 100M frames / 4 = 25M agent steps, 12.5M per bundle; 25M / 4 = 6.25M updates / 1,200 = 5,208
    assert describe_schedule(config, plan_run(config, ATARI_INFO)) == (
        "schedule: each of the 2 bundles takes about 12,500,000 agent steps; epsilon 1 -> 0.1 over the "
        "1,000,000 after its first 50,000 (8%); learning starts once its replay holds 50,000 (0.4%); theta- every 1,200 server updates "
        "(about 5,208 times in the run)"
    )
    apart = build_config("cartpole", overrides={"bundled": False, "actors": 4, "learners": 1, "total_frames": 40_000})
    assert describe_schedule(apart, plan_run(apart, CARTPOLE_INFO)) == (
        "schedule: each of the 4 actors takes about 10,000 agent steps; epsilon 1 -> the ladder's rungs over its "
        "first 2,000 (20%); learning starts once the replay memories hold 1,000 in all (2.5% of what each "
        "receives); theta- every 128 server updates (about 78 times in the run)"
    )


def test_bundles_share_the_preset_s_exploration_and_warm_up_unless_the_run_sets_them():
    # 8 bundles, 1,000,000 frames: 125,000 agent steps each. The minatar preset's anneal and warm-up are
    # its one agent's, shared: each anneals over 100,000 / 8 = 12,500 of its steps and its replay starts
    # at 5,000 / 8 = 625 (and steps 4 / 8 -> 1 copy); set by the run, each bundle counts them alone.
    fields = {"actors": 8, "learners": 8, "total_frames": 1_000_000}
    shared = build_config("minatar", overrides=fields)
    assert describe_schedule(shared, plan_run(shared, MINATAR_INFO)) == (
        "schedule: each of the 8 bundles takes about 125,000 agent steps; epsilon 1 -> 0.1 over its first 12,500 "
        "(10%); learning starts once its replay holds 625 (0.5%); theta- every 125 server updates (about 500 "
        "times in the run)"
    )
    assert (shared.envs_per_actor, epsilon_schedule(shared, 7).end_step, replay_warmup(shared)) == (1, 12_500, 625)
    own = build_config("minatar", overrides={**fields, "epsilon_decay_steps": 100_000, "learning_starts": 5_000})
    assert describe_schedule(own, plan_run(own, MINATAR_INFO)) == (
        "schedule: each of the 8 bundles takes about 125,000 agent steps; epsilon 1 -> 0.1 over its first 100,000 "
        "(80%); learning starts once its replay holds 5,000 (4%); theta- every 125 server updates (about 500 "
        "times in the run)"
    )


def test_epsilon_that_cannot_finish_is_warned_about_with_the_numbers():
    # one bundle, 400,000 frames = 100,000 agent steps, the first 50,000 held at 1, then 50,000 of a
    # 1,000,000-step anneal: 1 - 0.9 * 0.05 = 0.955
    config = build_config("atari", overrides={"env": "Breakout", "total_frames": 400_000})
    assert epsilon_at_end(config, plan_run(config, ATARI_INFO)) == pytest.approx(0.955)
    assert epsilon_warning(config, plan_run(config, ATARI_INFO)) == (
        "warning: epsilon will not finish annealing: each actor takes about 100,000 agent steps and epsilon anneals "
        "over 1,000,000 of them after holding it for 50,000, so it ends the run at 0.955 instead of 0.1; raise "
        "total_frames to >= 4,200,000 or lower epsilon_decay_steps to <= 50,000"
    )
    enough = build_config("atari", overrides={"env": "Breakout", "total_frames": 4_200_000})
    assert epsilon_warning(enough, plan_run(enough, ATARI_INFO)) is None
    unheld = build_config("atari", overrides={"env": "Breakout", "total_frames": 400_000, "epsilon_hold": False})
    assert epsilon_at_end(unheld, plan_run(unheld, ATARI_INFO)) == pytest.approx(0.91)  # 1 - 0.9 * 0.1
