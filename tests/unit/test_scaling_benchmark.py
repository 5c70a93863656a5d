"""benchmarks/scaling.py's fps_N run: one bundle set up as each of N is, with the shares of the preset
that each of the N takes, in synchronous rounds too (the minibatch of one update shared)."""

import pytest


@pytest.fixture
def scaling(benchmark):
    return benchmark("scaling")


@pytest.mark.parametrize(
    "preset, sets, expected",
    [
        ("minatar", ["synchronous_sgd=true"], dict(batch_size="32", update_every="2", envs_per_actor="1")),
        ("minatar", [], dict(batch_size="256", update_every="16", envs_per_actor="1")),  # asynchronous: whole
        ("pqn", ["synchronous_sgd=true"], dict(envs_per_actor="16", rollout_minibatches="32")),
        ("pqn", [], dict(envs_per_actor="16", rollout_minibatches="4")),  # asynchronous: minibatches shared
    ],
)
def test_one_bundle_for_fps_n_takes_what_each_of_the_n_takes(scaling, preset, sets, expected):
    argv = ["--preset", preset, "--env", "MinAtar/Breakout-v0", "--bundles", "1,8", "--score", "6", "--out", "x"]
    args = scaling.parse_args(argv + [item for pair in (("--set", s) for s in sets) for item in pair])
    fields = scaling.bundle_fields(args, 8)
    assert {key: fields[key] for key in expected} == expected
    assert fields["actors"] == "1"
