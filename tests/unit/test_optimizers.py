"""The parameter shards' update rules: DQN's RMSProp by hand, AdaGrad and Adam against torch.optim."""
import math

import numpy as np
import pytest
import torch

from gorila.parameter_server.optimizers import make_optimizer

GRADIENTS = [np.array([0.5, -1.0, 2.0], np.float32), np.array([0.1, 0.3, -2.0], np.float32),
             np.array([-0.4, 0.0, 1.0], np.float32)]


def run(name, **settings):
    theta = torch.tensor([1.0, 2.0, 3.0])
    rule = make_optimizer(name, 3, settings.get("lr", 0.1), settings.get("eps", 0.01), settings.get("alpha", 0.95))
    for g in GRADIENTS:
        rule.step(theta, torch.from_numpy(g))
    return theta.numpy()


def test_rmsprop_is_dqns_centred_rule_with_eps_inside_the_root():
    lr, eps, a = 0.1, 0.01, 0.95
    theta, m, n = np.array([1.0, 2.0, 3.0]), np.zeros(3), np.zeros(3)
    for g in GRADIENTS:                                  # Graves (2013), as DQN's reference code has it
        m = a * m + (1 - a) * g
        n = a * n + (1 - a) * g * g
        theta = theta - lr * g / np.sqrt(n - m * m + eps)
    np.testing.assert_allclose(run("rmsprop", lr=lr, eps=eps, alpha=a), theta, rtol=1e-5)
    # first step by hand, first coordinate: m = 0.025, n = 0.0125, 1 - 0.1 * 0.5 / sqrt(0.011875 + 0.01)
    first = 1 - 0.1 * 0.5 / math.sqrt(0.0125 - 0.025 ** 2 + 0.01)
    rule = make_optimizer("rmsprop", 3, 0.1, 0.01, 0.95)
    one = torch.tensor([1.0, 2.0, 3.0])
    rule.step(one, torch.from_numpy(GRADIENTS[0]))
    assert one[0].item() == pytest.approx(first, rel=1e-6)


@pytest.mark.parametrize("name, reference", [
    ("adam", lambda p: torch.optim.Adam(p, lr=0.1, eps=0.01)),
    ("adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1, eps=0.01)),
    ("sgd", lambda p: torch.optim.SGD(p, lr=0.1)),
])
def test_rules_match_torch_optimizers(name, reference):
    parameter = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = reference([parameter])
    for g in GRADIENTS:
        parameter.grad = torch.from_numpy(g.copy())
        optimizer.step()
    np.testing.assert_allclose(run(name, lr=0.1, eps=0.01), parameter.detach().numpy(), rtol=1e-5, atol=1e-7)


def test_rules_never_write_the_gradient():
    for name in ("adam", "adagrad", "rmsprop", "sgd"):
        rule = make_optimizer(name, 3, 0.1, 0.01, 0.95)
        g = GRADIENTS[0].copy()
        rule.step(torch.zeros(3), torch.from_numpy(g))
        np.testing.assert_array_equal(g, GRADIENTS[0])


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="unknown optimizer"):
        make_optimizer("lion", 3, 0.1, 0.01, 0.95)
