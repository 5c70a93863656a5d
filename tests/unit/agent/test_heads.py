"""Rainbow's distributional head (`gorila.agent.heads`) on the project's torsos: its shape, dueling over
atoms, its noisy layers."""

import pytest
import torch

from gorila.agent.distributional import q_values, support
from gorila.agent.heads import DistributionalHead, DistributionalQNetwork, build_distributional_network
from gorila.agent.networks import ImpalaCNN, MinAtarCNN, NatureCNN, build_q_network, num_parameters
from gorila.agent.noisy import NoisyLinear

SHAPES = {"mlp": (4,), "minatar_cnn": (7, 10, 10), "nature_cnn": (4, 84, 84), "impala_cnn": (4, 84, 84)}


def observations(shape, batch=2):
    return torch.randint(0, 2 if shape[-1] == 10 else 256, (batch, *shape), dtype=torch.uint8)


@pytest.mark.parametrize("network", SHAPES)
def test_a_distributional_network_keeps_its_torso_and_gives_logits_per_action_and_atom(network):
    torch.manual_seed(0)
    shape = SHAPES[network]
    net = build_distributional_network(network, shape, 3, num_atoms=11, hidden_sizes=(32, 32))
    logits = net(observations(shape).float() if network == "mlp" else observations(shape))
    assert logits.shape == (2, 3, 11)
    torch.testing.assert_close(logits.softmax(dim=-1).sum(dim=-1), torch.ones(2, 3))
    plain = build_q_network(network, shape, 3, (32, 32))
    torso = lambda model: sum(p.numel() for name, p in model.named_parameters() if not name.startswith("head."))
    assert torso(net) == torso(plain)  # the same torso as DQN's network
    # the head: hidden -> A * N outputs in place of hidden -> A
    hidden = plain.head.advantage[-1].in_features
    assert num_parameters(net) - num_parameters(plain) == hidden * 3 * 10 + 3 * 10


def test_dueling_over_atoms_adds_the_value_stream_to_the_advantages_less_their_mean_over_actions():
    torch.manual_seed(0)
    head = DistributionalHead(8, 4, 16, dueling=True, num_atoms=5)
    features = torch.randn(3, 8)
    with torch.no_grad():
        logits = head(features)
        value = head.value(features).view(3, 1, 5)
        advantage = head.advantage(features).view(3, 4, 5)
    torch.testing.assert_close(logits.mean(dim=1, keepdim=True), value)  # the mean advantage is removed
    torch.testing.assert_close(logits, value + advantage - advantage.mean(dim=1, keepdim=True))
    assert not torch.allclose(logits, logits.mean(dim=1, keepdim=True).expand_as(logits))  # actions differ


@pytest.mark.parametrize("dueling, layers", [(False, 2), (True, 4)])
def test_a_noisy_head_has_only_noisy_dense_layers_and_evaluation_mode_takes_their_noise_away(dueling, layers):
    torch.manual_seed(0)
    net = build_distributional_network("minatar_cnn", (7, 10, 10), 3, dueling=dueling, noisy=True)
    assert sum(isinstance(m, NoisyLinear) for m in net.head.modules()) == layers
    assert not any(isinstance(m, torch.nn.Linear) for m in net.head.modules())
    assert isinstance(net.torso[0], torch.nn.Conv2d)  # the torso is as it was
    obs = observations((7, 10, 10), 4)
    noisy = net(obs)
    for layer in net.head.modules():
        if isinstance(layer, NoisyLinear):
            layer.resample_noise()
    assert not torch.allclose(net(obs), noisy)
    net.eval()
    quiet = net(obs)
    for layer in net.head.modules():
        if isinstance(layer, NoisyLinear):
            layer.resample_noise()
    torch.testing.assert_close(net(obs), quiet)


def test_q_values_of_a_distributional_network_are_its_means_on_the_support():
    torch.manual_seed(0)
    net = build_distributional_network("nature_cnn", (4, 84, 84), 6, dueling=True)
    atoms = support()
    with torch.no_grad():
        logits = net(observations((4, 84, 84)))
        q = q_values(logits, atoms)
    assert q.shape == (2, 6) and float(q.abs().max()) <= 10.0
    torch.testing.assert_close(q[1, 2], (logits[1, 2].softmax(dim=0) * atoms).sum())


def test_the_builders_refuse_a_head_on_a_users_own_network_and_default_to_dqns_head():
    with pytest.raises(ValueError, match="its own head"):
        build_distributional_network(lambda shape, n: torch.nn.Linear(shape[0], n), (4,), 2)
    assert build_q_network("impala_cnn", (4, 84, 84), 3).head.__class__.__name__ == "QHead"
    assert {NatureCNN, MinAtarCNN, ImpalaCNN} == {
        type(build_distributional_network(n, SHAPES[n], 3)) for n in ("nature_cnn", "minatar_cnn", "impala_cnn")
    }


def test_a_distributional_q_network_acts_on_each_actions_mean_return():
    torch.manual_seed(0)
    atoms = support(-10.0, 10.0, 11)
    network = DistributionalQNetwork(build_distributional_network("mlp", (4,), 3, num_atoms=11), atoms)
    obs = torch.randn(5, 4)
    with torch.no_grad():
        torch.testing.assert_close(network(obs), q_values(network.logits(obs), atoms))
    assert network(obs).shape == (5, 3) and not network.noisy
    assert "atoms" not in network.state_dict()  # the support is fixed: not part of theta


def test_noisy_layers_draw_new_noise_at_every_pass_in_training_and_none_in_evaluation():
    torch.manual_seed(0)
    body = build_distributional_network("mlp", (4,), 3, num_atoms=11, noisy=True, sigma_0=0.5)
    network = DistributionalQNetwork(body, support(num_atoms=11))
    obs = torch.randn(5, 4)
    with torch.no_grad():
        assert network.noisy and not torch.equal(network(obs), network(obs))  # fresh noise each pass
        network.eval()
        assert torch.equal(network(obs), network(obs))
        for layer in (m for m in body.modules() if isinstance(m, NoisyLinear)):  # the mu-only layers
            layer.weight_sigma.zero_()
            layer.bias_sigma.zero_()
        evaluated = network(obs)
        network.train()
        torch.testing.assert_close(network(obs), evaluated)  # noise with sigma 0 adds nothing


def test_sigma_0_sets_the_noisy_layers_initial_noise_scale():
    body = build_distributional_network("mlp", (4,), 3, hidden_sizes=(16, 16), num_atoms=11, noisy=True, sigma_0=0.1)
    first = next(m for m in body.modules() if isinstance(m, NoisyLinear))
    assert first.in_features == 16  # the head's hidden layer, on the torso's 16 features
    torch.testing.assert_close(first.weight_sigma, torch.full_like(first.weight_sigma, 0.1 / 16**0.5))
