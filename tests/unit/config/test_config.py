"""Config: presets, layering, validation that names the key; the CLI's one-line user errors."""

from dataclasses import replace

import pytest
import torch

from gorila import cli, make_config
from gorila.config import (
    PRESETS,
    Config,
    ConfigError,
    apply_overrides,
    build_config,
    save_yaml,
    scaled_preset,
    validate,
)
from gorila.config.scaling import actor_shares, describe_shares
from gorila.system import builders
from tests.helpers import ATARI_INFO, CARTPOLE_INFO


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_build_and_validate(preset):
    config = build_config(preset)
    assert isinstance(config, Config)
    for key, value in PRESETS[preset].items():
        assert getattr(config, key) == value
    assert validate(config) is config


def test_defaults_validate():
    assert validate(Config()) == Config()


def test_preset_then_file_then_overrides(tmp_path):
    path = tmp_path / "exp.yaml"
    path.write_text("batch_size: 16\ntotal-frames: 5_000\nhidden_sizes: [32, 16]\n")
    config = build_config("cartpole", str(path), {"batch_size": "8"})
    assert config.batch_size == 8  # the explicit override wins over the file
    assert config.total_frames == 5000  # from the file, hyphen spelling accepted
    assert config.hidden_sizes == (32, 16)
    assert config.n_step == 3  # from the preset


def test_saved_yaml_round_trips(tmp_path):
    config = build_config("cartpole", overrides={"hidden_sizes": "8,4", "seed": 7, "dueling": "true"})
    save_yaml(config, tmp_path / "config.yaml")
    assert build_config(file=str(tmp_path / "config.yaml")) == config


def test_unknown_yaml_key_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("batch_size: 16\nlearning_rat: 0.1\n")
    with pytest.raises(ConfigError, match="learning_rat: unknown config key") as error:
        build_config(file=str(path))
    assert str(path) in str(error.value)


def test_out_of_range_value_is_named(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("learning_rate: -1\n")
    with pytest.raises(ConfigError, match=r"^learning_rate must be > 0, got -1\.0$"):
        build_config(file=str(path))


@pytest.mark.parametrize(
    "key, value",
    [("actors", "two"), ("total_frames", 1.5), ("bundled", "maybe"), ("runtime", "cloud"), ("hidden_sizes", "a,b")],
)
def test_wrong_types_are_named(key, value):
    with pytest.raises(ConfigError, match=f"^{key} must"):
        build_config(overrides={key: value})


def test_a_fractional_int_from_the_command_line_is_rejected():
    with pytest.raises(ConfigError, match="^total_frames must be an integer, got .1.5.$"):
        build_config(overrides={"total_frames": "1.5"})


def test_numbers_from_the_command_line():
    config = apply_overrides(Config(), {"total_frames": "1e3", "replay_capacity": "50_000", "gamma": "0.5"})
    assert (config.total_frames, config.replay_capacity, config.gamma) == (1000, 50000, 0.5)


def test_bundled_needs_as_many_learners_as_actors():
    with pytest.raises(ConfigError, match="actors == learners"):
        build_config(overrides={"actors": 2, "learners": 1})
    assert build_config(overrides={"actors": 2, "learners": 1, "bundled": False}).learners == 1


def test_bundled_needs_local_replay():
    with pytest.raises(ConfigError, match="--no-bundled"):
        build_config(overrides={"replay": "global"})


def test_global_replay_cannot_have_more_shards_than_streams():
    base = {"bundled": False, "replay": "global", "actors": 2, "envs_per_actor": 2}
    assert build_config(overrides={**base, "replay_shards": 4}).replay_shards == 4
    with pytest.raises(ConfigError, match=r"^replay_shards must be <= actors \* envs_per_actor \(4\)"):
        build_config(overrides={**base, "replay_shards": 5})


# ---- the command line: user errors are one line on stderr and exit code 2 ------------------------


def run_cli(capsys, *argv):
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("gorila: error: ")
    return code, lines[0]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["train", "--no-such-flag"], "--no-such-flag"),
        (["train", "--set", "no_such_key=1"], "no_such_key: unknown config key"),
        (["train", "--set", "batch_size"], "--set expects KEY=VALUE"),
        (["train", "--set", "learning_rate=-1"], "learning_rate must be > 0"),
        (["train", "--config", "/nonexistent/exp.yaml"], "config file not found"),
        (["train", "--env", "NoSuchGame-v9"], "unknown environment 'NoSuchGame-v9'"),
        (["train", "--actors", "2"], "actors == learners"),
        (["frobnicate"], "frobnicate"),
    ],
)
def test_cli_user_errors_are_one_line(capsys, argv, words):
    code, line = run_cli(capsys, *argv)
    assert code == 2
    assert words in line


def test_cli_refuses_a_non_empty_run_dir_and_leaves_it_alone(capsys, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "notes.txt").write_text("mine\n")
    code, line = run_cli(capsys, "train", "--runtime", "local", "--total-frames", "5000", "--run-dir", str(run_dir))
    assert code == 2 and "already exists and is not empty" in line
    assert [p.name for p in run_dir.iterdir()] == ["notes.txt"]
    assert (run_dir / "notes.txt").read_text() == "mine\n"


def test_cli_evaluate_of_a_missing_path(capsys, tmp_path):
    code, line = run_cli(capsys, "evaluate", str(tmp_path / "nothing-here"))
    assert code == 2 and "checkpoint not found" in line
    code, line = run_cli(capsys, "evaluate", str(tmp_path))  # a directory with no checkpoint
    assert code == 2 and "no checkpoint in" in line


def test_cli_evaluate_of_a_garbage_file(capsys, tmp_path):
    garbage = tmp_path / "ckpt.pt"
    garbage.write_bytes(b"\x00not a checkpoint\x80\x81" * 10)
    code, line = run_cli(capsys, "evaluate", str(garbage))
    assert code == 2 and str(garbage) in line
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    code, line = run_cli(capsys, "evaluate", str(other))
    assert code == 2 and "is not a gorila checkpoint" in line


# CartPole MLP with hidden_sizes (1,): Linear(4, 1) + Linear(1, 2) = 5 + 4 = 9 parameters
TOO_MANY_SHARDS = [
    "train",
    "--runtime",
    "local",
    "--hidden-sizes",
    "1",
    "--param-shards",
    "10",
    "--total-frames",
    "100",
]


def test_cli_more_param_shards_than_parameters(capsys, tmp_path):
    code, line = run_cli(capsys, *TOO_MANY_SHARDS, "--run-dir", str(tmp_path / "run"))
    assert code == 2
    assert "param_shards: cannot split 9 parameters into 10 shards" in line
    # nothing was written, so the same --run-dir can be used once the flag is fixed
    assert not (tmp_path / "run").exists() or not any((tmp_path / "run").iterdir())


class NotPlainData:
    pass


def test_cli_evaluate_refuses_a_checkpoint_holding_objects(capsys, tmp_path):
    path = tmp_path / "objects.pt"
    torch.save({"format": "gorila-checkpoint-1", "thing": NotPlainData()}, path)
    code, line = run_cli(capsys, "evaluate", str(path))
    assert code == 2 and str(path) in line


def test_device_resolution_on_this_machine():
    from gorila.system.agent_builders import learner_device

    has_gpu = torch.cuda.is_available()
    assert learner_device(Config(device="cpu")) == "cpu"
    assert learner_device(Config(device="auto")) == ("cuda" if has_gpu else "cpu")
    if not has_gpu:
        with pytest.raises(ConfigError, match="device: cuda"):
            learner_device(Config(device="cuda"))


# ---- YAML values are checked against the field types, never cast ------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("run_dir:\n", "run_dir must be a string, got null"),  # not the string "None"
        ("actors: yes\n", "actors must be an integer, got True"),  # a YAML bool is not 1
        (
            "hidden_sizes: [64.7]\n",
            "hidden_sizes must be a list of integers (e.g. 64,64 or [64, 64]), got [64.7]",
        ),  # not 64
        ("learning_rate: true\n", "learning_rate must be a number, got True"),
        ("dueling: 1\n", "dueling must be true or false, got 1"),
        ("env: 7\n", "env must be a name or a callable, got 7"),
        ("runtime: null\n", "runtime must be one of ray, local, got null"),
        ("gamma: .nan\n", "gamma must be a number, got nan"),
        ("hidden_sizes: 64\n", "hidden_sizes must be a list of integers (e.g. 64,64 or [64, 64]), got 64"),
    ],
)
def test_yaml_values_of_the_wrong_type_are_named(tmp_path, text, words):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        build_config("cartpole", str(path))
    assert str(error.value) == words


def test_whole_floats_are_integers_and_ints_are_floats(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("total_frames: 2.0e+5\nhidden_sizes: [32.0, 16]\nlearning_rate: 1\nrun_dir: runs/x\n")
    config = build_config("cartpole", str(path))
    assert (config.total_frames, config.hidden_sizes) == (200_000, (32, 16))
    assert config.learning_rate == 1.0 and isinstance(config.learning_rate, float)
    assert config.run_dir == "runs/x"


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"seed": -1}, "seed must lie in [0, 1073741823]"),
        ({"seed": 2**30}, "seed must lie in [0, 1073741823]"),
        ({"hidden_sizes": "64,7.5"}, "hidden_sizes must be a list of integers"),
        ({"address": "no-port"}, "address must be HOST:PORT or auto"),
        ({"address": "host:99999"}, "address must be HOST:PORT or auto"),
        ({"learner_gpus": "1.5"}, "learner_gpus must be a fraction in [0, 1] or a whole number"),
        ({"max_staleness": "-2"}, "max_staleness must be"),
    ],
)
def test_values_out_of_range_are_named(overrides, words):
    with pytest.raises(ConfigError) as error:
        build_config("cartpole", overrides=overrides)
    assert str(error.value).startswith(words)


def test_a_cluster_address_with_the_local_runtime_is_refused_in_one_line():
    with pytest.raises(ConfigError) as error:
        build_config("pqn", overrides={"address": "auto"})
    assert str(error.value).startswith("address: --address auto joins a Ray cluster, but runtime is local")
    assert "\n" not in str(error.value)
    assert build_config("pqn", overrides={"address": "auto", "runtime": "ray"}).address == "auto"


def test_atari_counts_replay_learning_start_and_exploration_in_agent_steps_as_dqn():
    config = build_config("atari")
    assert (config.replay_capacity, config.learning_starts, config.epsilon_decay_steps) == (
        1_000_000,
        50_000,
        1_000_000,
    )
    assert builders.replay_warmup(config) == 50_000  # not 50,000 frames = 12,500 steps


def test_an_actor_anneals_epsilon_over_agent_steps_on_atari():
    from gorila.system.agent_builders import actor_for

    class Theta:
        def pull(self, prefetch=False):
            return builders.initial_parameters(config, ATARI_INFO), False

    config = build_config(
        "atari", overrides={"env": "Breakout", "epsilon_decay_steps": 100, "runtime": "local", "learning_starts": 1_000}
    )
    actor = actor_for(config, ATARI_INFO, 0, Theta(), writer=None)
    for steps, epsilon in ((50, 1.0), (1_000, 1.0), (1_050, 0.55), (1_100, 0.1), (5_000, 0.1)):
        actor.steps = steps  # held at 1 until learning starts, then halfway from 1.0 to 0.1 at 200 frames on
        assert actor.epsilon == pytest.approx(epsilon)
    actor.env.close()
    unheld = actor_for(replace(config, epsilon_hold=False), ATARI_INFO, 0, Theta(), writer=None)
    unheld.steps = 50
    assert unheld.epsilon == pytest.approx(0.55)  # annealed from the first step
    unheld.env.close()


def test_a_ladder_over_copies_gives_each_copy_its_rung_and_counts_each_copys_epsilon():
    import numpy as np

    from gorila.agent import dqn
    from gorila.system.agent_builders import actor_for, final_epsilon

    class Theta:
        def pull(self, prefetch=False):
            return builders.initial_parameters(config, CARTPOLE_INFO), False

    config = build_config(
        "cartpole",
        overrides={"actors": 2, "learners": 2, "envs_per_actor": 3, "epsilon_decay_steps": 0, "ladder_over": "copies"},
    )
    rungs = [dqn.epsilon_ladder(i, 6, config.ladder_base, config.ladder_alpha) for i in range(6)]
    np.testing.assert_allclose(final_epsilon(config, 0), rungs[:3])
    np.testing.assert_allclose(final_epsilon(config, 1), rungs[3:])  # actor 1's copies: rungs 3-5
    np.testing.assert_allclose(final_epsilon(config, 2), rungs[:3])  # a bundle that joined takes actor 0's
    assert final_epsilon(replace(config, ladder_over="actors"), 1) == dqn.epsilon_ladder(1, 2, config.ladder_base, 1.0)
    one = replace(config, actors=1, learners=1)
    assert len(final_epsilon(one, 0)) == 3 and final_epsilon(replace(one, ladder_over="actors"), 0) == one.epsilon_end
    actor = actor_for(config, CARTPOLE_INFO, 1, Theta(), writer=None)
    actor.writer = type("Sink", (), {"add": lambda self, *entry: None})()
    taken = sum(actor.step() for _ in range(5))
    assert taken == 15  # CartPole's first episodes outlast 5 steps
    assert actor.epsilon_sum == pytest.approx(5 * sum(rungs[3:]))
    actor.env.close()


def test_epsilon_is_held_for_each_actors_share_of_the_warm_up():
    from gorila.system.agent_builders import epsilon_hold_steps

    config = build_config("atari", overrides={"learning_starts": 1_000})
    assert epsilon_hold_steps(config) == 1_000  # a bundle fills its own replay
    apart = replace(config, bundled=False, actors=3, learners=1)
    assert epsilon_hold_steps(apart) == 334  # three actors fill the replays together
    assert epsilon_hold_steps(replace(config, epsilon_hold=False)) == 0


def test_the_atari_preset_counts_thetas_refresh_as_dqns_code():
    config = build_config("atari")
    assert config.target_update_every * config.update_every == 10_000  # DQN's target_q: agent steps
    assert (config.epsilon_hold, config.outlier_k) == (True, 0.0)  # DQN's ep; DQN has no filter
    assert build_config("gorila-paper").outlier_k == 5.0  # Gorila's filter


def test_a_config_made_in_python_for_a_game_starts_from_its_kinds_preset():
    assert Config(env="Pong") == make_config(env="Pong") == build_config("atari", overrides={"env": "Pong"})
    assert Config(env="MinAtar/Breakout") == build_config("minatar", overrides={"env": "MinAtar/Breakout"})
    given = Config(env="Pong", learning_rate=1e-4, optimizer="adam")  # fields given win, as --set's
    assert (given.learning_rate, given.optimizer, given.replay_capacity) == (1e-4, "adam", 1_000_000)
    assert Config(env="CartPole-v1") == Config()  # other kinds: the base config
    assert replace(Config(), env="Pong").optimizer == "adam"  # every field given: taken as given


@pytest.mark.parametrize("env, per_step", [("Pong", 4), ("CartPole-v1", 1)])
def test_a_config_written_in_frames_is_read_in_agent_steps(env, per_step):
    old = {"env": env, "epsilon_decay_frames": 1_000_000, "learning_starts": 50_000}  # an older run's config
    config = apply_overrides(Config(), old)
    assert config.epsilon_decay_steps == 1_000_000 // per_step
    assert config.learning_starts == 50_000 // per_step
    assert apply_overrides(Config(), {"env": env, "learning_starts": 50_000}).learning_starts == 50_000


def test_the_paper_preset_has_gorilas_own_settings():
    config = build_config("gorila-paper")
    assert (config.actors, config.learners, config.param_shards, config.bundled) == (100, 100, 31, True)
    assert (config.optimizer, config.target_update_every, config.loss_reduction) == ("adagrad", 60_000, "sum")
    assert (config.replay_capacity, config.learning_starts, config.epsilon_decay_steps) == (
        1_000_000,
        50_000,
        1_000_000,
    )
    assert config.fire_reset is False
    assert config.total_frames == 100 * 50_000_000  # DQN's 50M frames for each of the 100 bundles
    assert config.epsilon_ladder is False  # every actor anneals to 0.1, as DQN's


def test_the_machado_preset_is_the_atari_preset_under_machados_settings():
    machado, atari = build_config("machado"), build_config("atari")
    assert (machado.sticky_actions, machado.full_action_set, machado.life_loss_signal) == (0.25, True, False)
    assert (machado.max_episode_frames, machado.eval_max_frames) == (108_000, 108_000)
    assert (atari.sticky_actions, atari.full_action_set, atari.life_loss_signal) == (0.0, False, True)
    changed = {key for key in PRESETS["machado"] if PRESETS["machado"][key] != PRESETS["atari"].get(key)}
    assert changed == {"sticky_actions", "full_action_set", "life_loss_signal", "max_episode_frames", "eval_max_frames"}


def test_a_config_saved_before_the_atari_settings_reads_as_dqns():
    old = {
        key: value
        for key, value in build_config("atari").to_dict().items()
        if key not in ("sticky_actions", "full_action_set", "life_loss_signal", "max_episode_frames")
    }
    config = apply_overrides(Config(), old)
    assert (config.sticky_actions, config.full_action_set, config.life_loss_signal, config.max_episode_frames) == (
        0.0,
        False,
        True,
        108_000,
    )


@pytest.mark.parametrize("value", ["1.0", "-0.1"])
def test_sticky_actions_must_be_a_probability_below_one(value):
    with pytest.raises(ConfigError, match=r"^sticky_actions must lie in \[0, 1\), got"):
        build_config("atari", overrides={"sticky_actions": value})


def test_scale_shrinks_bundles_shards_and_thetas_period_and_says_so():
    config = build_config("gorila-paper", scale=0.02)
    assert (config.actors, config.learners, config.param_shards) == (2, 2, 1)
    assert config.target_update_every == 1_200  # 600 updates per learner, as with 100
    assert (config.replay_capacity, config.batch_size, config.learning_rate) == (1_000_000, 32, 1e-3)
    assert config.total_frames == 100_000_000  # 50M frames per bundle, as with 100
    line = scaled_preset("gorila-paper", 0.02)[1]
    assert line.startswith(
        "gorila-paper scaled by 0.02: 100 -> 2 actors, 100 -> 2 learners, 31 -> 1 parameter "
        "shards, 5,000,000,000 -> 100,000,000 frames in all (50,000,000 per actor, as at full size), "
        "60,000 -> 1,200 server updates between theta- refreshes (600 per learner"
    )
    assert build_config("gorila-paper", overrides={"param_shards": 3}, scale=0.02).param_shards == 3  # flags win
    atari = build_config("atari", scale=4)  # 1 -> 4 bundles: four times the work
    assert (atari.target_update_every, atari.total_frames) == (10_000, 200_000_000)
    assert build_config("gorila-paper", overrides={"total_frames": 2_000_000}, scale=0.1).total_frames == 2_000_000


@pytest.mark.parametrize(
    "overrides, size, threads",
    [
        (dict(synchronous_sgd=True, runtime="ray", actors=8, learners=8), 8, 10),
        (dict(synchronous_sgd=True, runtime="ray", bundled=False, actors=8, learners=3, replay="global"), 3, 5),
        (dict(synchronous_sgd=True, runtime="local", actors=8, learners=8), 1, 1),  # bundles take turns
        (dict(synchronous_sgd=False, runtime="ray", actors=8, learners=8), 1, 1),
    ],
)
def test_a_round_waits_for_every_learner_process_on_ray_only(overrides, size, threads):
    from gorila.config.derived import round_size, shard_threads, synchronous_refresh

    config = build_config("minatar", overrides=overrides)
    assert (round_size(config), shard_threads(config)) == (size, threads)
    assert size == 1 or synchronous_refresh(config)


@pytest.mark.parametrize(
    "overrides, words",
    [
        (dict(learner_refresh="pipelined"), "learner_refresh: pipelined computes each gradient without"),
        (dict(max_bundles=4), "max_bundles=4 grows the run by bundles, but synchronous_sgd's rounds"),
    ],
)
def test_synchronous_sgd_refuses_what_its_rounds_cannot_wait_for(overrides, words):
    with pytest.raises(ConfigError, match=words):
        build_config("minatar", overrides=dict(synchronous_sgd=True, runtime="ray", actors=2, learners=2, **overrides))


def test_more_actors_share_a_preset_s_run_totals_and_keep_what_the_run_sets():
    pqn = build_config("pqn", overrides={"actors": 8, "learners": 8, "runtime": "ray"})
    assert (pqn.envs_per_actor, pqn.rollout_minibatches, pqn.epsilon_decay_steps) == (16, 4, 6_250)
    assert (pqn.rollout_steps, pqn.learning_rate, pqn.total_frames) == (32, 5e-4, 500_000)  # not shared
    rounds = build_config("pqn", overrides={"actors": 8, "learners": 8, "runtime": "ray", "synchronous_sgd": True})
    assert (rounds.envs_per_actor, rounds.rollout_minibatches) == (16, 32)  # 8 minibatches of 16 make one of 128
    turns = build_config("pqn", overrides={"actors": 8, "learners": 8, "synchronous_sgd": True})  # local: no rounds
    assert turns.rollout_minibatches == 4
    dqn_rounds = build_config(
        "minatar", overrides={"actors": 8, "learners": 8, "runtime": "ray", "synchronous_sgd": True}
    )
    assert (dqn_rounds.batch_size, dqn_rounds.update_every) == (32, 2)  # 8 x 32 every 16 agent steps in all
    assert (build_config("minatar", overrides={"actors": 8, "learners": 8}).batch_size) == 256  # no rounds: whole
    own = build_config("pqn", overrides={"actors": 8, "learners": 8, "envs_per_actor": 128})
    assert (own.envs_per_actor, own.rollout_minibatches) == (128, 4)
    many = build_config("pqn", overrides={"actors": 300, "learners": 300})
    assert (many.envs_per_actor, many.rollout_minibatches, many.epsilon_decay_steps) == (1, 1, 167)  # at least 1
    assert build_config("pqn").envs_per_actor == 128  # the preset's own one actor: nothing shared
    paper = build_config("gorila-paper", overrides={"env": "Pong", "actors": 8, "learners": 8})
    assert (paper.epsilon_decay_steps, paper.learning_starts) == (1_000_000, 50_000)  # whole DQN agents
    dqn = build_config("minatar", overrides={"actors": 8, "learners": 8})
    assert (dqn.replay_capacity, dqn.learning_starts, dqn.envs_per_actor) == (12_500, 625, 1)  # 4 / 8 -> 1
    apart = build_config("minatar", overrides={"actors": 4, "bundled": False, "replay": "global"})
    assert (apart.epsilon_decay_steps, apart.learning_starts, apart.replay_capacity) == (25_000, 5_000, 100_000)
    # outside bundles the warm-up counts all replay memories already; a global replay's capacity is the run's
    shares = actor_shares("pqn", PRESETS["pqn"], 8, given={"envs_per_actor"})
    assert describe_shares("pqn", 8, shares) == (
        "pqn shared among 8 actors: rollout_minibatches 32 -> 4, epsilon_decay_steps 50,000 -> 6,250 each (the "
        "preset's totals for the run; set a field to give each actor that value instead)"
    )


@pytest.mark.parametrize(
    "preset, scale, words",
    [
        (None, 0.5, "scale: --scale shrinks a preset; give --preset too"),
        ("gorila-paper", 0.0, "scale must be a number > 0, got 0.0"),
        ("gorila-paper", float("nan"), "scale must be a number > 0, got nan"),
    ],
)
def test_a_bad_scale_is_named(preset, scale, words):
    with pytest.raises(ConfigError, match=words.replace("(", r"\(")):
        build_config(preset, scale=scale)


def test_cli_scale_without_a_preset_is_one_line(capsys):
    assert cli.main(["train", "--scale", "0.5", "--runtime", "local"]) == 2
    assert capsys.readouterr().err.strip() == "gorila: error: scale: --scale shrinks a preset; give --preset too"


def test_set_takes_a_list_as_yaml_writes_it():
    assert build_config("cartpole", overrides={"hidden_sizes": "[256, 256]"}).hidden_sizes == (256, 256)
    assert build_config("cartpole", overrides={"hidden_sizes": "256,256"}).hidden_sizes == (256, 256)


def test_a_game_without_a_preset_starts_from_its_kinds_preset():
    breakout = build_config(overrides={"env": "Breakout"})
    atari = build_config("atari", overrides={"env": "Breakout"})
    assert breakout == atari  # DQN's RMSProp, clipped rewards, 1M replay
    assert (breakout.optimizer, breakout.learning_rate, breakout.clip_rewards) == ("rmsprop", 2.5e-4, True)
    assert build_config(overrides={"env": "MinAtar/Breakout"}) == build_config(
        "minatar", overrides={"env": "MinAtar/Breakout"}
    )
    assert build_config(overrides={"env": "CartPole-v1"}) == Config()  # other kinds: the base config
    assert build_config("cartpole", overrides={"env": "Pong"}).optimizer == "adam"  # a named preset wins
    assert build_config(overrides={"env": "Pong", "optimizer": "adam"}).optimizer == "adam"  # fields win


def test_a_yaml_file_naming_a_game_starts_from_its_kinds_preset(tmp_path):
    path = tmp_path / "pong.yaml"
    path.write_text("env: Pong\nlearning_rate: 1.0e-4\n")
    config = build_config(file=str(path))
    assert (config.optimizer, config.learning_rate, config.replay_capacity) == ("rmsprop", 1e-4, 1_000_000)


def test_the_cli_says_which_preset_a_game_started_from(capsys, tmp_path):
    code = cli.main(
        [
            "train",
            "--env",
            "Breakout",
            "--runtime",
            "local",
            "--total-frames",
            "4000",
            "--learning-starts",
            "100",
            "--replay-capacity",
            "2000",
            "--eval-every-frames",
            "0",
            "--eval-episodes",
            "1",
            "--run-dir",
            str(tmp_path / "run"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.splitlines()[0] == (
        "no --preset given: Breakout starts from the atari preset, the settings for its "
        "kind of game (name --preset or set fields to change them)"
    )


def test_the_apex_preset_is_prioritised_global_replay_and_builds_a_network_for_cartpole():
    from gorila.agent.networks import q_network_for

    config = build_config("apex", overrides={"env": "CartPole-v1"})
    assert (config.bundled, config.replay, config.prioritised, config.learners) == (False, "global", True, 1)
    assert (config.n_step, config.double_dqn, config.dueling, config.epsilon_ladder) == (3, True, True, True)
    assert (config.priority_alpha, config.priority_beta, config.ladder_base, config.ladder_alpha) == (
        0.6,
        0.4,
        0.4,
        7.0,
    )
    assert q_network_for(config, CARTPOLE_INFO)(torch.zeros(3, 4)).shape == (3, 2)


def test_env_kwargs_from_flags_set_and_yaml_are_typed_by_yaml(tmp_path):
    from gorila.cli.flags import config_from_args
    from gorila.cli.main import build_parser

    args = build_parser().parse_args(
        ["train", "--env-kwargs", "length=7", "--env-kwargs", "name=x", "--env-kwargs", "sizes=[1, 2]"]
    )
    assert config_from_args(args).env_kwargs == {"length": 7, "name": "x", "sizes": [1, 2]}
    assert build_config(overrides={"env_kwargs": "{length: 7, slip: 0.1}"}).env_kwargs == {"length": 7, "slip": 0.1}
    (tmp_path / "c.yaml").write_text("env_kwargs:\n  length: 7\n")
    assert build_config(file=str(tmp_path / "c.yaml")).env_kwargs == {"length": 7}
    for bad in ("length", "=7", "[1, 2]"):
        with pytest.raises(ConfigError, match=r"^env_kwargs must be a mapping of names to values"):
            build_config(overrides={"env_kwargs": bad})


def test_a_callable_env_and_network_are_saved_by_their_reference_and_read_back(tmp_path):
    from tests.integration.test_user_code import make_signpost, small_q_network

    config = build_config(
        "cartpole", overrides={"env": make_signpost, "network": small_q_network, "env_kwargs": {"length": 7}}
    )
    assert config.env is make_signpost and config.network is small_q_network
    save_yaml(config, tmp_path / "config.yaml")
    again = build_config(file=str(tmp_path / "config.yaml"))
    assert again.env == "tests.integration.test_user_code:make_signpost"
    assert again.network == "tests.integration.test_user_code:small_q_network" and again.env_kwargs == {"length": 7}
    with pytest.raises(
        ConfigError, match=r"^network must be one of auto, mlp, nature_cnn, minatar_cnn, impala_cnn, a package"
    ):
        build_config(overrides={"network": "resnet"})
    with pytest.raises(ConfigError, match=r"^env must be a name or a callable, got 3"):
        build_config(overrides={"env": 3})
