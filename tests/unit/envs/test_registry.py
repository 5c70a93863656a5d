"""A user's own environment: `package.module:Env-v0` (the module registers it), `package.module:factory`,
the callable itself, and env_kwargs reaching its constructor; every way of naming one wrongly is one line."""

import gymnasium
import pytest

from gorila.envs import EnvError, make_vector_env, resolve_env
from tests.integration import test_user_code as user

MODULE = user.__name__


@pytest.mark.parametrize(
    "name", [f"{MODULE}:Signpost-v0", f"{MODULE}:Signpost", f"{MODULE}:make_signpost", user.make_signpost]
)
def test_each_way_of_naming_a_users_env_plays_it_with_its_kwargs(name):
    spec = resolve_env(name, {"length": 7})
    with make_vector_env(spec, 3, seed=0) as env:
        assert env.reset().shape == (3, 9) and env.num_actions == 2  # 7 cells and the sign's 2
        assert env.step([1, 1, 1]).reward.shape == (3,)
    assert spec.kind == "gym" and spec.id.startswith(f"{MODULE}:")


def test_gymnasiums_own_module_form_and_kwargs_of_a_registered_env():
    spec = resolve_env("gymnasium.envs.classic_control:CartPole-v1", {"sutton_barto_reward": True})
    with make_vector_env(spec, 2, seed=0) as env:
        env.reset()
        assert list(env.step([0, 0]).reward) == [0.0, 0.0]  # Sutton and Barto's reward: 0 until failure


@pytest.mark.parametrize(
    "name, kwargs, message",
    [
        ("nosuchmodule:Env-v0", {}, "env: cannot import 'nosuchmodule' of 'nosuchmodule:Env-v0'"),
        (f"{MODULE}:Nothing-v0", {}, f"env: importing '{MODULE}' registered no Gymnasium env 'Nothing-v0'"),
        (f"{MODULE}:nothing", {}, f"env: '{MODULE}' has no 'nothing'"),
        (f"{MODULE}:SOLVED", {}, f"env: '{MODULE}:SOLVED' is a float, not a callable"),
        (f"{MODULE}:Signpost-v0", {"width": 3}, f"cannot create '{MODULE}:Signpost-v0' with env_kwargs {{'width': 3}}"),
        ("Pong", {"mode": 1}, "env_kwargs: ALE/Pong-v5 is played by gorila's own Atari environment"),
        (lambda: "not an env", {}, "env: tests.unit.envs.test_registry:<lambda> returned a str, not a gymnasium.Env"),
        (lambda: gymnasium.make("Pendulum-v1"), {}, "has action space Box"),
    ],
)
def test_a_users_env_named_wrongly_is_one_line_naming_it(name, kwargs, message):
    with pytest.raises(EnvError) as error:
        resolve_env(name, kwargs)
    assert message in str(error.value) and "\n" not in str(error.value)
