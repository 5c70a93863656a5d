"""The parameter shards' update rules: DQN's RMSProp by hand, AdaGrad and Adam against torch.optim."""

import math

import numpy as np
import pytest
import torch

from gorila.components.parameter_server.optimizers import make_optimizer

GRADIENTS = [
    np.array([0.5, -1.0, 2.0], np.float32),
    np.array([0.1, 0.3, -2.0], np.float32),
    np.array([-0.4, 0.0, 1.0], np.float32),
]


def run(name, **settings):
    theta = torch.tensor([1.0, 2.0, 3.0])
    rule = make_optimizer(
        name,
        3,
        settings.get("lr", 0.1),
        settings.get("eps", 0.01),
        settings.get("alpha", 0.95),
        adam_beta1=settings.get("beta1", 0.9),
    )
    for g in GRADIENTS:
        rule.step(theta, torch.from_numpy(g))
    return theta.numpy()


def test_rmsprop_is_dqns_centred_rule_with_eps_inside_the_root():
    lr, eps, a = 0.1, 0.01, 0.95
    theta, m, n = np.array([1.0, 2.0, 3.0]), np.zeros(3), np.zeros(3)
    for g in GRADIENTS:  # Graves (2013), as DQN's reference code has it
        m = a * m + (1 - a) * g
        n = a * n + (1 - a) * g * g
        theta = theta - lr * g / np.sqrt(n - m * m + eps)
    np.testing.assert_allclose(run("rmsprop", lr=lr, eps=eps, alpha=a), theta, rtol=1e-5)
    # first step by hand, first coordinate: m = 0.025, n = 0.0125, 1 - 0.1 * 0.5 / sqrt(0.011875 + 0.01)
    first = 1 - 0.1 * 0.5 / math.sqrt(0.0125 - 0.025**2 + 0.01)
    rule = make_optimizer("rmsprop", 3, 0.1, 0.01, 0.95)
    one = torch.tensor([1.0, 2.0, 3.0])
    rule.step(one, torch.from_numpy(GRADIENTS[0]))
    assert one[0].item() == pytest.approx(first, rel=1e-6)


def test_rmsprop_two_steps_match_dqns_formula_worked_by_hand_and_not_torchs_centred_rmsprop():
    # lr 0.1, eps 0.01, a 0.95, theta 1.0, gradients 0.5 then 0.1:
    # step 1: m = 0.025, n = 0.0125; n - m^2 + eps = 0.021875; sqrt = 0.147902; theta = 1 - 0.05 / 0.147902 = 0.661938
    # step 2: m = 0.02875, n = 0.012375; n - m^2 + eps = 0.0215484; sqrt = 0.146794; theta = 0.661938 - 0.01 / 0.146794
    #         = 0.593816
    theta = torch.tensor([1.0])
    rule = make_optimizer("rmsprop", 1, 0.1, 0.01, 0.95)
    rule.step(theta, torch.tensor([0.5]))
    assert theta.item() == pytest.approx(0.661938, abs=1e-6)
    rule.step(theta, torch.tensor([0.1]))
    assert theta.item() == pytest.approx(0.593816, abs=1e-6)
    # torch's centred RMSprop, sqrt(n - m^2) + eps, lands elsewhere: 0.494602 after the same two steps
    parameter = torch.nn.Parameter(torch.tensor([1.0]))
    centred = torch.optim.RMSprop([parameter], lr=0.1, alpha=0.95, eps=0.01, centered=True)
    for g in (0.5, 0.1):
        parameter.grad = torch.tensor([g])
        centred.step()
    assert parameter.item() == pytest.approx(0.494602, abs=1e-5)


@pytest.mark.parametrize(
    "name, reference",
    [
        ("adam", lambda p: torch.optim.Adam(p, lr=0.1, eps=0.01)),
        ("adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1, eps=0.01)),
        ("sgd", lambda p: torch.optim.SGD(p, lr=0.1)),
    ],
)
def test_rules_match_torch_optimizers(name, reference):
    parameter = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = reference([parameter])
    for g in GRADIENTS:
        parameter.grad = torch.from_numpy(g.copy())
        optimizer.step()
    np.testing.assert_allclose(run(name, lr=0.1, eps=0.01), parameter.detach().numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("beta1", [0.0, 0.5])
def test_adams_first_moment_decay_is_the_one_asked_for(beta1):
    parameter = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    optimizer = torch.optim.Adam([parameter], lr=0.1, eps=0.01, betas=(beta1, 0.999))
    for g in GRADIENTS:
        parameter.grad = torch.from_numpy(g.copy())
        optimizer.step()
    np.testing.assert_allclose(run("adam", beta1=beta1), parameter.detach().numpy(), rtol=1e-5, atol=1e-7)
    assert not np.allclose(run("adam", beta1=beta1), run("adam"))  # the default, 0.9, steps elsewhere


def test_rules_never_write_the_gradient():
    for name in ("adam", "adagrad", "rmsprop", "sgd"):
        rule = make_optimizer(name, 3, 0.1, 0.01, 0.95)
        g = GRADIENTS[0].copy()
        rule.step(torch.zeros(3), torch.from_numpy(g))
        np.testing.assert_array_equal(g, GRADIENTS[0])


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="unknown optimizer"):
        make_optimizer("lion", 3, 0.1, 0.01, 0.95)


def test_radam_matches_torchs_through_its_momentum_steps_and_its_rectified_ones():
    # rho_t passes 5 at the 6th step with beta2 0.999: twelve steps take both branches. eps is tiny
    # because torch adds it to sqrt(v) where RAdam's paper and optax (PQN's) add it to sqrt(v_hat).
    parameter = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))
    reference = torch.optim.RAdam([parameter], lr=0.1, eps=1e-12)
    theta = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    rule = make_optimizer("radam", 3, 0.1, 1e-12, 0.95)
    rule.first, rule.second = rule.first.double(), rule.second.double()
    rule._denominator = rule._denominator.double()
    for step in range(12):
        g = torch.from_numpy(GRADIENTS[step % 3].astype(np.float64))
        parameter.grad = g.clone()
        reference.step()
        rule.step(theta, g)
        np.testing.assert_allclose(theta.numpy(), parameter.detach().numpy(), rtol=1e-9, err_msg=f"step {step + 1}")
