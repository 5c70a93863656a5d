"""`gorila.load_q_network`: a checkpoint's Q-network as a ready module, with the meaning of each output
(ALE's action names for an Atari game, in the network's order), acting on one observation or a batch
as the saved agent does; `gorila.make_config` layers as `gorila train` does."""

from pathlib import Path

import numpy as np
import pytest
import torch

import gorila
from gorila.api import QNetwork
from gorila.evaluation.saved_agent import load_saved_agent
from tests.helpers import fresh_checkpoint


def test_an_atari_checkpoint_loads_with_its_minimal_action_set_in_order(tmp_path):
    run = fresh_checkpoint(tmp_path / "pong")
    q_network = gorila.load_q_network(run)
    assert q_network.action_names == ["NOOP", "FIRE", "RIGHT", "LEFT", "RIGHTFIRE", "LEFTFIRE"]
    frames = np.random.default_rng(0).integers(0, 255, (3, 4, 84, 84), dtype=np.uint8)
    saved = load_saved_agent(run).network
    with torch.no_grad():
        expected = saved(torch.as_tensor(frames))
    assert torch.equal(q_network(frames), expected) and q_network(frames[0]).shape == (6,)
    assert list(q_network.act(frames)) == expected.argmax(-1).tolist()
    assert q_network.act(frames[0]) == int(expected[0].argmax())


def test_the_full_action_set_names_all_18(tmp_path):
    run = fresh_checkpoint(tmp_path / "pong", preset="machado")
    names = gorila.load_q_network(run).action_names
    assert len(names) == 18 and names[:3] == ["NOOP", "FIRE", "UP"]


def test_make_config_layers_a_preset_and_fields_and_names_a_bad_one():
    config = gorila.make_config("atari", env="Breakout", learning_rate=1e-4)
    assert config.env == "Breakout" and config.learning_rate == 1e-4 and config.loss_reduction == "sum"
    with pytest.raises(gorila.ConfigError, match=r"^learning_rate must be > 0, got -1"):
        gorila.make_config("cartpole", learning_rate=-1)
    with pytest.raises(TypeError, match="train takes a gorila.Config"):
        gorila.train({"env": "CartPole-v1"})


def test_act_breaks_a_tie_at_random_with_an_rng_and_by_the_lowest_index_without():
    class Tied(torch.nn.Module):  # actions 1 and 2 tie for the best Q-value, action 0 is worse
        def forward(self, obs):
            return torch.tensor([[0.0, 1.0, 1.0]]).repeat(len(obs), 1)

    q = QNetwork(Tied(), (2,), "float32", ["a", "b", "c"], Path("x.pt"), "Tied-v0", 0)
    assert q.act(np.zeros(2)) == 1 and q.act(np.zeros((4, 2))).tolist() == [1, 1, 1, 1]
    drawn = q.act(np.zeros((400, 2)), np.random.default_rng(0))
    assert set(drawn.tolist()) == {1, 2} and 150 < (drawn == 2).sum() < 250
    assert q.act(np.zeros(2), np.random.default_rng(0)) in (1, 2)
