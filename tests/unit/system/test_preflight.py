"""What `gorila train` refuses before it starts: fields against the environment and this machine, and
run directories that two launches could share or that cannot be written."""

import socket
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from gorila.components.replay import ReplayMemory
from gorila.components.replay.storage import StreamStorage
from gorila.config import Config, ConfigError, build_config
from gorila.envs import EnvError
from gorila.system import preflight as preflight_module
from gorila.system.builders import min_sample_size, replay_warmup
from gorila.system.planning import plan_run, runtime_resources
from gorila.system.preflight import (
    available_memory_bytes,
    check_address,
    check_devices,
    check_fits_env,
    check_node_memory,
    check_replay_memory,
    preflight,
    probe_env,
    replay_memory_need,
)
from tests.helpers import ATARI_INFO, CARTPOLE_INFO


def error_of(check, *args) -> str:
    with pytest.raises(ConfigError) as error:
        check(*args)
    return str(error.value)


def test_presets_pass_every_check():
    assert preflight(build_config("cartpole")) == CARTPOLE_INFO
    check_fits_env(build_config("atari"), ATARI_INFO)
    check_fits_env(build_config("gorila-paper"), ATARI_INFO)


def test_the_probe_plays_the_configs_action_set_and_refuses_atari_settings_elsewhere():
    assert probe_env(build_config("machado")).num_actions == 18  # Pong's minimal set has 6
    with pytest.raises(EnvError, match=r"^full_action_set: an Atari setting, and CartPole-v1 is no Atari game"):
        probe_env(build_config("cartpole", overrides={"full_action_set": True}))


def test_a_cnn_on_vector_observations_names_the_network():
    line = error_of(check_fits_env, build_config("cartpole", overrides={"network": "nature_cnn"}), CARTPOLE_INFO)
    assert line.startswith("network: nature_cnn cannot take CartPole-v1's observations of shape (4,)")


def test_a_network_too_large_to_build_is_measured_on_meta_and_an_ordinary_one_tried_for_real():
    from gorila.system.preflight import REAL_FORWARD_PARAMETERS, check_network

    n = 300_000  # 90G parameters, 360 GB: built for real, it could not be allocated here
    huge = build_config("cartpole", overrides={"hidden_sizes": f"{n},{n}"})
    assert check_network(huge, CARTPOLE_INFO) == 4 * n + n + n * n + n + n * 2 + 2
    assert check_network(huge, CARTPOLE_INFO) > REAL_FORWARD_PARAMETERS
    assert check_network(build_config("cartpole", overrides={"hidden_sizes": "1"}), CARTPOLE_INFO) == 9
    cnn = build_config("cartpole", overrides={"network": "nature_cnn"})  # tried for real: refused
    assert "cannot take CartPole-v1's observations" in error_of(check_network, cnn, CARTPOLE_INFO)


def test_learning_starts_beyond_the_replay_is_named_with_the_capacity_it_needs():
    line = error_of(check_fits_env, build_config("atari", overrides={"replay_capacity": 10_000}), ATARI_INFO)
    # DQN's 50,000 agent steps; twice that plus one stream's stack + n-step window
    assert line.startswith(
        "learning_starts: each replay memory must hold 50,000 sampleable transitions "
        "(learning_starts=50,000 agent steps)"
    )
    assert "raise replay_capacity to >= 100,005" in line
    check_fits_env(build_config("atari", overrides={"replay_capacity": 100_005}), ATARI_INFO)


def test_a_minibatch_beyond_the_replay_names_batch_size():
    config = build_config("cartpole", overrides={"batch_size": 200, "replay_capacity": 300, "learning_starts": 10})
    assert error_of(check_fits_env, config, CARTPOLE_INFO).startswith("batch_size: each replay memory must hold 200")


def test_more_env_copies_than_replay_slots_names_envs_per_actor():
    config = build_config("cartpole", overrides={"envs_per_actor": 64, "replay_capacity": 100})
    line = error_of(check_fits_env, config, CARTPOLE_INFO)
    assert line.startswith("replay_capacity: 100 transitions over 64 environment streams (envs_per_actor=64)")
    assert "raise replay_capacity to >= 320" in line


def test_global_replay_shards_are_sized_as_a_whole():
    base = dict(
        bundled=False,
        replay="global",
        actors=2,
        learners=1,
        envs_per_actor=2,
        replay_shards=2,
        learning_starts=1_000,
        batch_size=32,
    )
    line = error_of(
        check_fits_env, build_config("cartpole", overrides={**base, "replay_capacity": 1_000}), CARTPOLE_INFO
    )
    assert "raise replay_capacity to >= " in line
    needed = int(line.rsplit(">= ", 1)[1].split()[0].replace(",", ""))
    check_fits_env(build_config("cartpole", overrides={**base, "replay_capacity": needed}), CARTPOLE_INFO)


@pytest.mark.parametrize("stack, n_step, streams", [(1, 1, 1), (1, 3, 4), (4, 1, 1), (4, 3, 2)])
def test_the_capacity_rule_is_enough_even_for_one_step_episodes(stack, n_step, streams):
    """The rule promises that a replay of 2 N + S (n + k) entries reaches N sampleable ones, whatever
    the episodes: fill one with the worst case, an episode end at every other step."""
    needed = 50
    capacity = 2 * needed + streams * (n_step + stack)
    replay = ReplayMemory(capacity, streams, (3,), np.uint8, stack, n_step, min_size=needed)
    ids = np.arange(streams)
    for step in range(3 * capacity):
        last = np.full(streams, step % 2 == 1)
        replay.add(ids, np.zeros((streams, 3), np.uint8), np.zeros(streams), np.zeros(streams), last, last)
        if step >= capacity:
            assert replay.sampleable() >= needed
            assert replay.sample(8) is not None


def test_replay_warmup_counts_per_memory():
    bundled = build_config("cartpole", overrides={"actors": 2, "learners": 2})
    assert replay_warmup(bundled) == 500  # each bundle waits for its share of the preset's warm-up
    own = build_config("cartpole", overrides={"actors": 2, "learners": 2, "learning_starts": 1_000})
    assert replay_warmup(own) == 1_000  # or for the warm-up the run sets for each
    apart = build_config("cartpole", overrides={"actors": 4, "learners": 1, "bundled": False})
    assert replay_warmup(apart) == 250  # four local replays share it
    assert min_sample_size(apart, 10) == apart.batch_size


def test_bytes_per_entry_matches_the_arrays_a_storage_allocates():
    storage = StreamStorage(1_000, 2, (84, 84), np.uint8)
    per_stream_counters = 2 * storage.counts.nbytes  # counts and lasts totals: per stream, not per entry
    assert StreamStorage.bytes_per_entry((84, 84), np.uint8) * 1_000 == storage.nbytes() - per_stream_counters


def test_replay_memory_need_of_the_atari_preset():
    shared = replay_memory_need(plan_run(build_config("atari", overrides={"actors": 3, "learners": 3}), ATARI_INFO))
    assert shared[1] == 999_999  # the preset's 1M shared: 333,333 each
    whole = build_config("atari", overrides={"actors": 3, "learners": 3, "replay_capacity": 1_000_000})
    need, transitions, per_entry = replay_memory_need(plan_run(whole, ATARI_INFO))
    assert (transitions, per_entry) == (3_000_000, 84 * 84 + 18)  # each frame stored once
    assert need == 3_000_000 * (84 * 84 + 18)


def test_a_replay_larger_than_this_machine_is_refused_with_the_numbers(monkeypatch):
    # this machine's MemAvailable, fixed: the real one changes from one reading to the next
    monkeypatch.setattr(preflight_module, "available_memory_bytes", lambda: 20_000_000_000)
    config = lambda n: build_config(
        "atari", overrides={"actors": n, "learners": n, "runtime": "local", "replay_capacity": 1_000_000}
    )
    check_replay_memory(config(2), plan_run(config(2), ATARI_INFO))  # 2 x 1M transitions of 7,074 bytes: 14.1 GB
    assert error_of(check_replay_memory, config(3), plan_run(config(3), ATARI_INFO)) == (
        "replay_capacity: the replay needs 21.2 GB (3,000,000 transitions in 3 replay memories, 7,074 bytes each) "
        "but this machine has 20.0 GB available; lower replay_capacity or the number of actors"
    )


@pytest.mark.skipif(not Path("/proc/meminfo").exists(), reason="reads Linux's /proc")
def test_the_available_memory_is_this_machines_memavailable():
    with open("/proc/meminfo") as meminfo:
        total = next(int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemTotal:"))
    assert 0 < available_memory_bytes() <= total


def test_a_cluster_node_given_more_replay_than_its_memory_is_refused_with_the_numbers():
    # 8 bundles of the atari preset with 1M transitions each (7,074 bytes a transition): 7.07 GB a bundle
    config = build_config(
        "atari", overrides={"actors": 8, "learners": 8, "replay_capacity": 1_000_000, "address": "auto"}
    )
    roomy = [{"node": "10.0.0.1", "cpus": 4.0, "memory": 40e9}, {"node": "10.0.0.2", "cpus": 4.0, "memory": 40e9}]
    plan = plan_run(config, ATARI_INFO)
    check_node_memory(config, plan, roomy)  # 4 bundles a node: 28.3 GB each
    small = [roomy[0], {"node": "10.0.0.2", "cpus": 4.0, "memory": 20e9}]
    line = error_of(check_node_memory, config, plan, small)
    assert line == (
        "replay_capacity: node 10.0.0.2 has room for 4 of the 8 replay memories, 28.3 GB once full, but 20.0 GB of "
        "memory for Ray's tasks; lower replay_capacity (each replay memory holds that many transitions) or raise "
        "worker_cpus so that fewer share a node"
    )
    fewer = replace(config, worker_cpus=2.0)
    check_node_memory(fewer, plan_run(fewer, ATARI_INFO), small)  # 2 bundles a node: 14.1 GB
    shared = build_config("atari", overrides={"actors": 8, "learners": 8, "address": "auto"})
    check_node_memory(shared, plan_run(shared, ATARI_INFO), small)  # the preset's 1M shared among the 8: 3.5 GB a node


def test_gpus_that_are_not_here_are_refused_at_once():
    present = torch.cuda.device_count()
    config = build_config("cartpole", overrides={"learner_gpus": 1, "actors": present + 1, "learners": present + 1})
    assert error_of(check_devices, runtime_resources(config)).startswith("learner_gpus: 1 per learner asks for")
    local = build_config("cartpole", overrides={"learner_gpus": 1, "runtime": "local"})
    check_devices(runtime_resources(local))  # Ray's setting only


def test_an_address_where_nothing_listens_is_named():
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    line = error_of(check_address, Config(address=f"127.0.0.1:{port}"))
    assert line.startswith(f"address: nothing answers at 127.0.0.1:{port}")


def wrong_width_network(obs_shape, num_actions):
    return torch.nn.Linear(obs_shape[0], num_actions + 1)


def not_a_module(obs_shape, num_actions):
    return "a network"


def raising_network(obs_shape, num_actions):
    raise KeyError("hidden")


@pytest.mark.parametrize(
    "network, message",
    [
        (wrong_width_network, "maps a batch of 1 observation to (1, 3), not (1, 2): one Q-value per action"),
        (not_a_module, "returned a str, not a torch.nn.Module"),
        (raising_network, "cannot take CartPole-v1's observations of shape (4,) ('hidden')"),
        (f"{__name__}:wrong_width_network", "maps a batch of 1 observation to (1, 3)"),
        (f"{__name__}:missing", f"network: '{__name__}' has no 'missing'"),
    ],
)
def test_a_users_network_that_cannot_serve_as_a_q_network_is_one_line(network, message):
    line = error_of(check_fits_env, build_config("cartpole", overrides={"network": network}), CARTPOLE_INFO)
    assert line.startswith("network: ") and message in line and "\n" not in line


def test_a_users_network_that_fits_passes_and_is_built_by_its_factory():
    from tests.integration.test_user_code import small_q_network

    config = build_config("cartpole", overrides={"network": small_q_network})
    assert preflight(config) == CARTPOLE_INFO
