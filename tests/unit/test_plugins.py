"""References to the user's code: a callable is written as `module:qualname`, and read back to the
same object where that name imports; where it cannot (a lambda, a function inside a function) the
error says to pass the object again."""

import pytest

from gorila.plugins import PluginError, reference_of, resolve_callable
from tests.integration.test_user_code import make_signpost


def test_a_module_level_callable_round_trips_through_its_reference():
    reference = reference_of(make_signpost)
    assert reference == "tests.integration.test_user_code:make_signpost"
    assert resolve_callable(reference, "env") is make_signpost
    assert reference_of("CartPole-v1") == "CartPole-v1"


def test_a_nested_class_method_resolves_through_its_qualname():
    assert resolve_callable("gymnasium.wrappers:TimeLimit.step", "env").__name__ == "step"


def test_a_callable_without_an_importable_name_asks_for_the_object_again():
    def inner(obs_shape, num_actions):
        return None

    for value in (inner, lambda: None):
        with pytest.raises(PluginError, match=r"defined inside a function or as a lambda .* pass the object itself"):
            resolve_callable(reference_of(value), "network")


def test_a_module_that_fails_to_import_is_named_with_its_error(tmp_path, monkeypatch):
    (tmp_path / "broken_user_module.py").write_text("raise RuntimeError('no GPU here')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(
        PluginError, match=r"^network: importing 'broken_user_module' failed: RuntimeError: no GPU here$"
    ):
        resolve_callable("broken_user_module:make", "network")
