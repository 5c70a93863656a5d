"""The Impala network (`gorila.agent.impala`, `networks.ImpalaCNN`) on Atari's and MinAtar's frames."""

import pytest
import torch

from gorila.agent.impala import ResidualBlock, impala_features
from gorila.agent.networks import ImpalaCNN, build_q_network, num_parameters

# Its convolutions by hand, for C input channels (weights 9 * in * out, one bias per output channel):
# stage 1: conv C -> 16 (144 C + 16), two blocks of two 16 -> 16 (2,320 each);
# stage 2: conv 16 -> 32 (4,640), four 32 -> 32 (9,248 each); stage 3: conv 32 -> 32 and four more (5 * 9,248)
CONVOLUTIONS = lambda channels: (144 * channels + 16 + 4 * 2_320) + (4_640 + 4 * 9_248) + 5 * 9_248


def test_on_atari_frames_it_gives_one_q_value_per_action_from_3872_features():
    torch.manual_seed(0)
    net = build_q_network("impala_cnn", (4, 84, 84), 6)
    assert isinstance(net, ImpalaCNN)
    frames = torch.randint(0, 256, (3, 4, 84, 84), dtype=torch.uint8)
    q = net(frames)
    assert q.shape == (3, 6) and q.dtype == torch.float32
    with torch.no_grad():  # 84 -> 42 -> 21 -> 11 under the three pools: 32 * 11 * 11 features
        features = net.torso(frames.float() / 255.0)  # the scaling to [0, 1] is the first operation
        assert features.shape == (3, 32 * 11 * 11) == (3, impala_features(84, 84))
        torch.testing.assert_close(net.head(features), q)
    # 97,744 in the convolutions; dense 3,872 * 256 + 256; out 256 * 6 + 6
    assert CONVOLUTIONS(4) == 97_744
    assert num_parameters(net) == 97_744 + 991_488 + 1_542 == 1_090_774
    torch.testing.assert_close(net(frames.contiguous(memory_format=torch.channels_last)), q)  # replay's layout


def test_on_minatar_frames_it_reads_cells_unscaled_from_32_2_2_features():
    torch.manual_seed(0)
    net = build_q_network("impala_cnn", (7, 10, 10), 5)
    cells = torch.rand(3, 7, 10, 10) < 0.2
    q = net(cells)
    assert q.shape == (3, 5)
    with torch.no_grad():  # 10 -> 5 -> 3 -> 2: 32 * 2 * 2 features
        features = net.torso(cells.float())
        assert features.shape == (3, 128) == (3, impala_features(10, 10))
        torch.testing.assert_close(net.head(features), q)
    # convolutions 144 * 7 + 16 + ... = 98,176; dense 128 * 256 + 256; out 256 * 5 + 5
    assert num_parameters(net) == CONVOLUTIONS(7) + 33_024 + 1_285 == 98_176 + 33_024 + 1_285


def test_a_residual_block_adds_its_branch_to_its_input():
    torch.manual_seed(0)
    block, x = ResidualBlock(4), torch.randn(2, 4, 5, 5)
    expected = x + block.conv1(torch.relu(block.conv0(torch.relu(x))))
    torch.testing.assert_close(block(x), expected)
    with torch.no_grad():  # a branch of zeros leaves the input as it is
        block.conv1.weight.zero_()
        block.conv1.bias.zero_()
    torch.testing.assert_close(block(x), x)


def test_dueling_is_an_option_and_layer_norm_and_vectors_are_refused():
    torch.manual_seed(0)
    net = build_q_network("impala_cnn", (4, 84, 84), 6, dueling=True)
    assert net.head.dueling and net(torch.zeros(1, 4, 84, 84, dtype=torch.uint8)).shape == (1, 6)
    with pytest.raises(ValueError, match="layer_norm"):
        build_q_network("impala_cnn", (4, 84, 84), 6, layer_norm=True)
    with pytest.raises(ValueError, match="image observations"):
        build_q_network("impala_cnn", (4,), 2)


def test_a_run_can_choose_it_by_name(tmp_path):
    """`--set network=impala_cnn` passes the config's checks and a short MinAtar run learns with it."""
    from gorila.config import build_config
    from gorila.system.driver import Driver

    overrides = dict(env="MinAtar/Breakout", network="impala_cnn", runtime="local", total_frames=1_200)
    overrides.update(learning_starts=400, batch_size=8, eval_every_frames=0, checkpoint_every_frames=0)
    trainer = Driver(build_config("minatar", overrides=overrides), tmp_path / "run", live_progress=False)
    result = trainer.run()
    assert result["updates"] > 0 and result["env_frames"] >= 1_200
    assert trainer.config.network == "impala_cnn"
