"""Q-networks and the flat-vector view of their parameters."""

import numpy as np
import pytest
import torch

from gorila.agent.networks import (
    CellNorm,
    MLPQNetwork,
    NatureCNN,
    build_q_network,
    flat_gradients,
    flat_parameters,
    he_normal_init,
    load_flat_parameters,
    num_parameters,
)


def test_flat_parameters_round_trip():
    torch.manual_seed(0)
    source = MLPQNetwork(4, 2, (8, 6), dueling=True)
    torch.manual_seed(1)
    copy = MLPQNetwork(4, 2, (8, 6), dueling=True)
    flat = flat_parameters(source)
    assert flat.dtype == np.float32
    # 4*8+8 (torso) + 8*6+6+6*2+2 (advantage) + 8*6+6+6*1+1 (value) = 40 + 68 + 61
    assert flat.shape == (169,) == (num_parameters(source),)
    assert not np.array_equal(flat_parameters(copy), flat)
    load_flat_parameters(copy, flat)
    np.testing.assert_array_equal(flat_parameters(copy), flat)
    obs = torch.randn(5, 4)
    assert torch.equal(copy(obs), source(obs))
    flat[0] += 1.0  # a copy: editing it changes no network
    assert flat_parameters(source)[0] == flat[0] - 1.0


def test_flat_gradients_match_parameter_order_and_count():
    torch.manual_seed(0)
    model = MLPQNetwork(4, 3, (8,))
    assert flat_gradients(model).tolist() == [0.0] * num_parameters(model)  # no backward yet: zeros
    model(torch.randn(6, 4)).sum().backward()
    grads = flat_gradients(model)
    assert grads.shape == (num_parameters(model),) == (4 * 8 + 8 + 8 * 3 + 3,)
    expected = np.concatenate([p.grad.reshape(-1).numpy() for p in model.parameters()])
    np.testing.assert_array_equal(grads, expected)
    # the last layer's bias gradient of sum(Q) is the batch size for every action
    assert grads[-3:].tolist() == [6.0, 6.0, 6.0]


def test_nature_cnn_takes_uint8_frames_and_returns_one_q_value_per_action():
    torch.manual_seed(0)
    net = build_q_network("auto", (4, 84, 84), 6)
    assert isinstance(net, NatureCNN)
    frames = torch.randint(0, 256, (3, 4, 84, 84), dtype=torch.uint8)
    q = net(frames)
    assert q.shape == (3, 6) and q.dtype == torch.float32
    with torch.no_grad():  # the scaling to [0, 1] is the network's first operation
        torch.testing.assert_close(net.head(net.torso(frames.float() / 255.0)), q)
    # conv 4*32*64+32, 32*64*16+64, 64*64*9+64; fc 3136*512+512; out 512*6+6
    assert num_parameters(net) == 8_224 + 32_832 + 36_928 + 1_606_144 + 3_078
    laid_out = frames.contiguous(memory_format=torch.channels_last)  # replay's layout: the same Q-values
    torch.testing.assert_close(net(laid_out), q)


def test_build_q_network_picks_an_mlp_for_vectors_and_rejects_cnn_on_vectors():
    assert isinstance(build_q_network("auto", (4,), 2, (8,)), MLPQNetwork)
    with pytest.raises(ValueError, match="image observations"):
        build_q_network("nature_cnn", (4,), 2)


@pytest.mark.parametrize(
    "make", [lambda: MLPQNetwork(4, 3, (16, 8), dueling=True), lambda: NatureCNN(4, 5, dueling=True)]
)
def test_dueling_head_q_mean_over_actions_is_the_value_stream(make):
    torch.manual_seed(0)
    net = make()
    obs = (
        torch.randn(4, 4) if isinstance(net, MLPQNetwork) else torch.randint(0, 256, (2, 4, 84, 84), dtype=torch.uint8)
    )
    with torch.no_grad():
        features = net.torso(obs.float() / 255.0 if isinstance(net, NatureCNN) else obs)
        value = net.head.value(features)
        advantage = net.head.advantage(features)
        q = net(obs)
    torch.testing.assert_close(q.mean(dim=1, keepdim=True), value)
    torch.testing.assert_close(q, value + advantage - advantage.mean(dim=1, keepdim=True))
    assert not torch.allclose(q, q.mean(dim=1, keepdim=True).expand_as(q))  # actions still differ


@pytest.mark.parametrize("network, shape", [("mlp", (4,)), ("minatar_cnn", (4, 10, 10)), ("nature_cnn", (4, 84, 84))])
def test_layer_norm_adds_a_norm_to_every_hidden_layer_and_leaves_the_plain_network_as_it_was(network, shape):
    plain = build_q_network(network, shape, 3, (32, 32))
    normed = build_q_network(network, shape, 3, (32, 32), layer_norm=True)
    norms = [m for m in normed.modules() if isinstance(m, (torch.nn.LayerNorm))]
    hidden = {"mlp": 2, "minatar_cnn": 2, "nature_cnn": 4}[network]  # convolutions and dense layers
    assert len(norms) == hidden
    assert not any(isinstance(m, torch.nn.LayerNorm) for m in plain.modules())
    assert "head.advantage.2.weight" in plain.state_dict()  # checkpoints of plain networks still load
    x = torch.zeros((2, *shape), dtype=torch.uint8 if network == "nature_cnn" else torch.float32)
    assert normed(x).shape == plain(x).shape == (2, 3)


def test_a_cell_norm_normalises_each_cell_over_its_channels():
    maps = torch.randn(2, 16, 5, 5) * 3 + 1
    out = CellNorm(16)(maps)
    torch.testing.assert_close(out.mean(dim=1), torch.zeros(2, 5, 5), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.var(dim=1, unbiased=False), torch.ones(2, 5, 5), atol=1e-3, rtol=0)


@pytest.mark.parametrize("dueling", [False, True])
def test_he_normal_init_scales_each_kernel_by_its_fan_in_and_zeroes_the_biases(dueling):
    torch.manual_seed(0)
    model = build_q_network("minatar_cnn", (7, 10, 10), 6, dueling=dueling, layer_norm=True)
    he_normal_init(model)
    outputs = ["head.advantage.3"] + (["head.value.3"] if dueling else [])
    for name, layer in model.named_modules():
        if not isinstance(layer, (torch.nn.Linear, torch.nn.Conv2d)):
            continue
        fan_in = layer.weight[0].numel()
        gain = 1.0 if name in outputs else 2.0
        std = (gain / fan_in) ** 0.5
        assert float(layer.weight.std()) == pytest.approx(std, rel=0.25), name
        assert float(layer.weight.abs().max()) <= 2 * std / 0.8796 + 1e-6, name  # cut at two of its stds
        assert not layer.bias.any(), name


def test_a_config_with_he_normal_builds_its_network_so_and_the_default_leaves_torchs_init():
    from gorila.agent.networks import q_network_for
    from gorila.config import Config
    from gorila.messages import EnvInfo

    info = EnvInfo((4,), "float32", 2, frame_shape=(4,), stack=1, frames_per_step=1, is_atari=False)
    torch.manual_seed(0)
    default = q_network_for(Config(hidden_sizes=(64,)), info)
    torch.manual_seed(0)
    he = q_network_for(Config(hidden_sizes=(64,), weight_init="he_normal"), info)
    assert default.head.advantage[0].bias.abs().sum() > 0  # torch's init draws biases
    assert not he.head.advantage[0].bias.any()
    hidden = he.head.advantage[0].weight  # 64 units on the 4 inputs
    assert float(hidden.std()) == pytest.approx((2 / hidden.shape[1]) ** 0.5, rel=0.25)
