"""Noisy linear layers (`gorila.agent.noisy`): factorised noise, the paper's initialisation, evaluation
without noise and resampling."""

import pytest
import torch
import torch.nn.functional as F

from gorila.agent.noisy import NoisyLinear, factorised_noise, resample_noise, signed_sqrt


def test_signed_sqrt_keeps_the_sign_and_takes_the_root_of_the_size():
    assert signed_sqrt(torch.tensor([4.0, -9.0, 0.0, 0.25])).tolist() == [2.0, -3.0, 0.0, 0.5]


def test_factorised_noise_is_the_outer_product_of_p_plus_q_scaled_normals():
    weight, bias = factorised_noise(3, 2, torch.Generator().manual_seed(0))
    assert weight.shape == (2, 3) and bias.shape == (2,)
    normals = torch.Generator().manual_seed(0)
    eps_in = signed_sqrt(torch.randn(3, generator=normals))  # drawn first
    eps_out = signed_sqrt(torch.randn(2, generator=normals))
    torch.testing.assert_close(bias, eps_out)
    torch.testing.assert_close(weight, eps_out[:, None] * eps_in[None, :])
    assert torch.linalg.matrix_rank(factorised_noise(8, 5)[0]) == 1  # p + q draws, not p * q


def test_the_initialisation_is_the_papers_for_factorised_noise():
    torch.manual_seed(0)
    layer = NoisyLinear(16, 8)  # p = 16: mu in U[-1/4, 1/4], sigma = 0.5 / 4
    for mu in (layer.weight_mu, layer.bias_mu):
        assert float(mu.abs().max()) <= 0.25 and float(mu.abs().max()) > 0.2  # fills the range
        assert float(mu.min()) < 0 < float(mu.max())
    assert set(layer.weight_sigma.flatten().tolist()) == {0.125} == set(layer.bias_sigma.tolist())
    assert NoisyLinear(4, 2, sigma_0=0.1).weight_sigma.flatten().tolist() == pytest.approx([0.05] * 8)  # 0.1 / 2
    # mu and sigma are its parameters (2pq + 2q), the noise is neither a parameter nor saved
    assert sum(p.numel() for p in layer.parameters()) == 2 * 16 * 8 + 2 * 8
    assert sorted(layer.state_dict()) == ["bias_mu", "bias_sigma", "weight_mu", "weight_sigma"]


def test_in_training_mode_the_layer_uses_its_noise_until_it_is_resampled():
    torch.manual_seed(0)
    layer, x = NoisyLinear(5, 3), torch.randn(4, 5)
    weight = layer.weight_mu + layer.weight_sigma * layer.weight_epsilon
    bias = layer.bias_mu + layer.bias_sigma * layer.bias_epsilon
    first = layer(x)
    torch.testing.assert_close(first, F.linear(x, weight, bias))
    assert not torch.allclose(first, F.linear(x, layer.weight_mu, layer.bias_mu))  # the noise counts
    torch.testing.assert_close(layer(x), first)  # the same noise until resampled
    layer.resample_noise()
    assert not torch.allclose(layer(x), first)


def test_in_evaluation_mode_the_layer_is_its_mu_only_layer_whatever_its_noise():
    torch.manual_seed(0)
    layer, x = NoisyLinear(5, 3).eval(), torch.randn(4, 5)
    plain = F.linear(x, layer.weight_mu, layer.bias_mu)
    torch.testing.assert_close(layer(x), plain)
    layer.resample_noise()
    torch.testing.assert_close(layer(x), plain)
    assert not torch.allclose(layer.train()(x), plain)


def test_sigma_is_learnt_through_the_noise():
    torch.manual_seed(0)
    layer = NoisyLinear(5, 3)
    layer(torch.randn(4, 5)).sum().backward()
    # d/d sigma_w = eps_w * d/dW: nonzero where the noise is
    assert layer.weight_sigma.grad.abs().sum() > 0 and layer.bias_sigma.grad.abs().sum() > 0
    torch.testing.assert_close(layer.weight_sigma.grad, layer.weight_mu.grad * layer.weight_epsilon)


def test_resample_noise_renews_every_noisy_layer_of_a_model_and_counts_them():
    torch.manual_seed(0)
    model = torch.nn.Sequential(NoisyLinear(4, 6), torch.nn.ReLU(), NoisyLinear(6, 2), torch.nn.Linear(2, 2))
    before = [m.weight_epsilon.clone() for m in model if isinstance(m, NoisyLinear)]
    assert resample_noise(model, torch.Generator().manual_seed(1)) == 2
    after = [m.weight_epsilon for m in model if isinstance(m, NoisyLinear)]
    assert all(not torch.equal(b, a) for b, a in zip(before, after))
    assert resample_noise(torch.nn.Linear(2, 2)) == 0
