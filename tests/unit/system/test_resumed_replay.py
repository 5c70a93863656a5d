"""The line a resumed run prints about its replay, worked out for the atari-fast preset on Pong (the
guide's example: docs/guides/atari.md) and for other topologies."""

from gorila.config import build_config
from gorila.messages import EnvInfo
from gorila.system.planning import plan_run
from gorila.system.resumed_replay import replay_line

PONG = EnvInfo((4, 84, 84), "uint8", 6, (84, 84), 4, 4, True)
CARTPOLE = EnvInfo((4,), "float32", 2, (4,), 1, 1, False)


def test_an_empty_atari_fast_replay_costs_learning_starts_then_its_capacity():
    config = build_config("atari-fast", overrides={"env": "Pong"})
    assert replay_line(config, plan_run(config, PONG), [0], []) == (
        "replay: empty (this run saves none: --set save_replay=true keeps it); learning waits until it holds "
        "20,000 transitions again (about 80,000 frames), and refills to its 500,000 in about 2,000,000 frames"
    )


def test_a_restored_replay_names_its_file_or_its_folder():
    config = build_config("atari-fast", overrides={"env": "Pong", "save_replay": True})
    line = replay_line(config, plan_run(config, PONG), [412_000], ["runs/pong/checkpoints/replay/replay-0.npz"])
    assert line == "replay: 412,000 transitions restored from runs/pong/checkpoints/replay/replay-0.npz"
    shards = build_config(
        overrides=dict(env="CartPole-v1", bundled=False, actors=2, learners=1, replay="global", replay_shards=2)
    )
    saved = ["run/checkpoints/replay/replay-0.npz", "run/checkpoints/replay/replay-1.npz"]
    assert replay_line(shards, plan_run(shards, CARTPOLE), [300, 200], saved) == (
        "replay: 500 transitions restored from run/checkpoints/replay (2 of 2 memories)"
    )


def test_a_run_that_saves_its_replay_but_had_none_saved_says_so():
    config = build_config("atari-fast", overrides={"env": "Pong", "save_replay": True})
    line = replay_line(config, plan_run(config, PONG), [0], [])
    assert line.startswith("replay: empty (no replay was saved with the checkpoint; save_replay keeps it from now on)")


def test_pqn_keeps_no_replay_and_says_nothing():
    pqn = build_config("pqn-cartpole")
    assert replay_line(pqn, plan_run(pqn, CARTPOLE), [0], []) is None
