"""Property: whatever a user types or loads, `gorila train` either accepts it or refuses it with one of
its user errors, one line that `main` prints before exit 2, never another exception (a traceback).

Each example goes through exactly what `gorila train` runs before it starts anything:
`build_parser().parse_args` then `checked_train_config` (values, fields against each other, the
environment, this machine, the cluster address). Nothing is trained and no Ray is started.
"""

import string

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gorila.cli.errors import user_error_types
from gorila.cli.main import build_parser
from gorila.cli.train import checked_train_config
from gorila.config import Config, field_types

TEXT = st.text(alphabet=string.ascii_letters + string.digits + " -_.,:/[]{}'\"#!@%+=", max_size=12)
NUMBER_TEXT = st.one_of(
    st.integers(-10, 10**7).map(str),
    st.floats(allow_nan=True).map(str),
    st.sampled_from(["1e3", "1_000", "0x10", "", " 7", "1.5", "-0", "inf"]),
    TEXT,
)
FLAG_VALUES = {
    "--env": st.sampled_from(
        [
            "CartPole-v1",
            "Acrobot-v1",
            "Pong",
            "Blackjack-v1",
            "FrozenLake-v1",
            "Pendulum-v1",
            "NoSuch-v0",
            "",
            "ALE/Pong-v5",
        ]
    ),
    "--runtime": st.sampled_from(["local", "ray", "cloud"]),
    "--address": st.sampled_from(["", "auto", "127.0.0.1:1", "nohost", "host:0", ":80"]),
    "--network": st.sampled_from(["auto", "mlp", "nature_cnn", "resnet"]),
    "--replay": st.sampled_from(["local", "global"]),
    "--hidden-sizes": st.one_of(
        st.lists(st.integers(-2, 300), max_size=3).map(lambda xs: ",".join(map(str, xs))), TEXT
    ),
    "--seed": NUMBER_TEXT,
    "--actors": st.integers(-1, 6).map(str),
    "--learners": st.integers(-1, 6).map(str),
    "--envs-per-actor": st.integers(0, 70).map(str),
    "--replay-shards": st.integers(0, 5).map(str),
    "--param-shards": st.integers(0, 20).map(str),
    "--replay-capacity": NUMBER_TEXT,
    "--batch-size": NUMBER_TEXT,
    "--learning-starts": NUMBER_TEXT,
    "--n-step": st.integers(-1, 5).map(str),
    "--total-frames": NUMBER_TEXT,
    "--gamma": NUMBER_TEXT,
    "--learner-gpus": NUMBER_TEXT,
    "--max-staleness": NUMBER_TEXT,
    "--device": st.sampled_from(["auto", "cpu", "cuda"]),
    "--epsilon-start": NUMBER_TEXT,
    "--run-dir": TEXT,
}
SWITCHES = ["--bundled", "--no-bundled", "--dueling", "--double-dqn", "--preset=cartpole", "--preset=atari"]
YAML_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.floats(), TEXT),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=4,
)
KEYS = sorted(field_types()) + ["no_such_key", "total-frames"]


@st.composite
def command_lines(draw):
    """A `gorila train` command line of a few flags, switches, --set items and maybe a YAML file's data."""
    argv = []
    for flag in draw(st.lists(st.sampled_from(sorted(FLAG_VALUES)), max_size=5, unique=True)):
        argv += [flag, draw(FLAG_VALUES[flag])]
    argv += draw(st.lists(st.sampled_from(SWITCHES), max_size=2))
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=2)):
        argv += ["--set", f"{key}={draw(TEXT)}"]
    yaml_data = draw(st.one_of(st.none(), st.dictionaries(st.sampled_from(KEYS), YAML_VALUES, max_size=3), YAML_VALUES))
    return argv, yaml_data


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(command=command_lines())
def test_any_command_line_is_accepted_or_refused_in_one_line(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a relative --run-dir is never created here, but stay safe
    argv, yaml_data = command
    if yaml_data is not None:
        (tmp_path / "exp.yaml").write_text(yaml.safe_dump(yaml_data))
        argv = argv + ["--config", str(tmp_path / "exp.yaml")]
    try:
        config, info = checked_train_config(build_parser().parse_args(["train", *argv]))
    except user_error_types() as error:
        message = str(error)
        event(f"refused: {message.split()[0]}")
        assert message.strip() and "\n" not in message, repr(message)
    else:
        event("accepted")
        assert isinstance(config, Config) and info.num_actions >= 2
        assert not (tmp_path / "None").exists()
