"""Names a package exports from its modules, imported on first use: `import gorila` and the command
line's help load neither torch, Ray nor the environments until a name that needs them is used."""

from __future__ import annotations

from importlib import import_module


def lazy_attributes(package: str, homes: dict[str, str], namespace: dict):
    """A module `__getattr__` for `package` that imports `name` from `package.homes[name]` when first
    asked for, and keeps it in the package's `namespace` (its globals) so the next lookup is plain."""

    def __getattr__(name: str):
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{homes[name]}"), name)
        namespace[name] = value
        return value

    return __getattr__
