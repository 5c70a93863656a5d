"""The user's own code in an experiment: an environment or a Q-network named `package.module:attr`, or
given from Python as the object itself.

A config holds the object (so it reaches Ray's workers pickled with the config) and writes it as its
reference, `module:qualname`, in config.yaml and checkpoints; reading a run back imports the
reference. An object that has no importable name (a lambda, a function defined inside another) is
written as its reference all the same, and reading it back asks for the object again.
"""

from __future__ import annotations

import importlib


class PluginError(ValueError):
    """A `module:attr` reference that does not import, or names nothing; the message is one line."""


def is_reference(value) -> bool:
    """Whether `value` is a `module:attr` reference (a string with a colon in it)."""
    return isinstance(value, str) and ":" in value


def reference_of(value) -> str:
    """The text form of a config value: a callable as `module:qualname`, anything else as it is."""
    if callable(value) and not isinstance(value, str):
        return f"{getattr(value, '__module__', '?')}:{getattr(value, '__qualname__', type(value).__qualname__)}"
    return value


def import_module_of(reference: str, what: str):
    """The module of `module:attr`, imported; PluginError naming `what` (e.g. "env") when it does not import."""
    module_name = reference.partition(":")[0].strip()
    if not module_name:
        raise PluginError(f"{what}: {reference!r} names no module (expected package.module:name)")
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        raise PluginError(f"{what}: cannot import {module_name!r} of {reference!r} ({error})") from None
    except Exception as error:  # the user's module failed while importing: say so in one line
        raise PluginError(f"{what}: importing {module_name!r} failed: {type(error).__name__}: {error}") from None


def resolve_callable(value, what: str):
    """The callable `value` is (itself) or names (`module:qualname`); PluginError when there is none."""
    if callable(value):
        return value
    module = import_module_of(value, what)
    target = module
    qualname = value.partition(":")[2].strip()
    if "<" in qualname:
        raise PluginError(
            f"{what}: {value!r} was defined inside a function or as a lambda and cannot be imported; "
            "pass the object itself again (from Python) or define it at a module's top level"
        )
    for part in qualname.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise PluginError(f"{what}: {module.__name__!r} has no {qualname!r}")
    if not callable(target):
        raise PluginError(f"{what}: {value!r} is a {type(target).__name__}, not a callable")
    return target
