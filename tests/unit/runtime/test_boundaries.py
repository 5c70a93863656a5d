"""The package's boundaries, read from its code: only the Ray runtime imports Ray, and no module
uses another module's private names (a leading underscore)."""

import ast
from pathlib import Path

import gorila

PACKAGE = Path(gorila.__file__).parent
RAY_RUNTIME = PACKAGE / "runtime" / "ray"  # the package of the Ray runtime


def modules():
    """(dotted name, path, parsed tree) of every module of the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path, ast.parse(path.read_text(), str(path))


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_gorila_module(name: str) -> bool:
    """Is `name` a module or package of gorila (read from the files, nothing imported)?"""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return name.split(".")[0] == "gorila" and (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file())


def absolute(module: str, node: ast.ImportFrom) -> str:
    """The module an ImportFrom names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    package = (
        module.split(".")
        if PACKAGE.parent.joinpath(*module.split("."), "__init__.py").is_file()
        else module.split(".")[:-1]
    )
    base = package[: len(package) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def ray_imports(tree) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] == "ray"]
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "ray":
            found.append(node.module)
    return found


def private_uses(module: str, tree) -> list[str]:
    """`from gorila.x import _y`, and `x._y` where `x` names another gorila module imported here."""
    found, module_aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_gorila_module(alias.name):
                    module_aliases[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name
        elif isinstance(node, ast.ImportFrom):
            source = absolute(module, node)
            if not source.startswith("gorila"):
                continue
            for alias in node.names:
                if is_private(alias.name) or any(is_private(part) for part in source.split(".")):
                    found.append(f"from {source} import {alias.name}")
                elif is_gorila_module(f"{source}.{alias.name}"):
                    module_aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and is_private(node.attr)
            and node.value.id in module_aliases
            and module_aliases[node.value.id] != module
        ):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_only_the_ray_runtime_imports_ray():
    offenders = {
        str(path.relative_to(PACKAGE.parent)): found
        for _, path, tree in modules()
        if RAY_RUNTIME not in path.parents and (found := ray_imports(tree))
    }
    assert offenders == {}, f"only gorila/runtime/ray/ may import Ray: {offenders}"
    # the check sees what it looks for
    assert ray_imports(ast.parse((RAY_RUNTIME / "runtime.py").read_text())) == ["ray"]


def test_no_module_uses_another_modules_private_names():
    offenders = {
        str(path.relative_to(PACKAGE.parent)): found
        for name, path, tree in modules()
        if (found := private_uses(name, tree))
    }
    assert offenders == {}, f"private names used across modules: {offenders}"


def test_the_private_name_check_sees_both_ways_of_reaching_a_private_name():
    code = (
        "from gorila.system.driver import _stop_on_signals\n"
        "import gorila.runtime.ray as gorila_ray\n"
        "gorila_ray._probe('host:1')\n"
    )
    assert private_uses("gorila.experiments.suite.driver", ast.parse(code)) == [
        "from gorila.system.driver import _stop_on_signals",
        "gorila_ray._probe",
    ]


def imported_modules(module: str, tree) -> set[str]:
    """The gorila modules `module` imports, wherever the import stands (a function's imports too: a
    circle through them is a circle all the same); `from p import m` counts the module m, not p."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if is_gorila_module(alias.name)}
        elif isinstance(node, ast.ImportFrom) and (source := absolute(module, node)).startswith("gorila"):
            found |= {f"{source}.{a.name}" if is_gorila_module(f"{source}.{a.name}") else source for a in node.names}
    return found - {module}


def import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (strongly connected
    components of more than one module, Tarjan's algorithm), each sorted."""
    order, low, stack, circles = {}, {}, [], []

    def visit(node):
        order[node] = low[node] = len(order)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in order:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], order[other])
        if low[node] == order[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return circles


def test_no_modules_import_each_other():
    graph = {name: imported_modules(name, tree) for name, _, tree in modules()}
    assert import_circles(graph) == [], "modules that import each other (the lower one must not know the higher)"


def test_the_circle_check_sees_a_circle_through_a_function_import():
    code = {
        "gorila.api": "def sweep():\n    from gorila.experiments.sweep.driver import run_sweep\n",
        "gorila.experiments.sweep.driver": "def run_trial():\n    from gorila.api import run_in\n",
    }
    graph = {name: imported_modules(name, ast.parse(text)) for name, text in code.items()}
    assert import_circles(graph) == [["gorila.api", "gorila.experiments.sweep.driver"]]
