"""A checkpoint written before the Atari emulator settings existed loads as it was trained: DQN's
settings (no sticky actions, the minimal action set, the life-loss signal, 108,000-frame episodes)."""

import torch

from gorila.envs.factory import ATARI_SETTINGS
from gorila.evaluation.saved_agent import load_saved_agent
from gorila.records.checkpoints import load_checkpoint, save_checkpoint
from tests.helpers import fresh_checkpoint


def test_a_checkpoint_without_the_atari_settings_keeps_dqns(tmp_path):
    payload = load_checkpoint(fresh_checkpoint(tmp_path / "new"))
    for key in ATARI_SETTINGS:
        del payload["config"][key]
    save_checkpoint(tmp_path / "old", payload, 0)
    agent = load_saved_agent(tmp_path / "old")
    config = agent.config
    assert (config.sticky_actions, config.full_action_set, config.life_loss_signal, config.max_episode_frames) == (
        0.0,
        False,
        True,
        108_000,
    )
    assert agent.info.num_actions == 6  # Pong's minimal set


def test_a_machado_checkpoint_records_its_settings(tmp_path):
    agent = load_saved_agent(fresh_checkpoint(tmp_path / "run", preset="machado"))
    assert (agent.config.sticky_actions, agent.config.full_action_set, agent.config.life_loss_signal) == (
        0.25,
        True,
        False,
    )
    assert agent.info.num_actions == 18
    assert agent.network(torch.zeros((1, *agent.info.obs_shape), dtype=torch.uint8)).shape == (1, 18)
