"""The processes of a run started as a subprocess: found under its driver through /proc (Linux), and
named by what they are (`ray::<Class>` for a component's Ray worker). Used by soak.py, chaos.py and
memwatch.py."""

from __future__ import annotations

from pathlib import Path

# The host classes Ray names component processes after (gorila.runtime.ray.hosts.host_class: the role's name)
COMPONENT_KINDS = ("ParameterShard", "ReplayMemory", "Evaluator", "Actor", "Learner", "Bundle")


def children(pid: int) -> list[int]:
    """Every process under `pid`."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [p for p, pp in parents.items() if pp == parent]
        found += kids
        frontier += kids
    return found


def title(pid: int) -> str | None:
    """A process's name: `ray::<Class>` for a Ray worker (its title without the method it runs), else its
    program's name; None when it is gone."""
    try:
        name = (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return None
    if name.startswith("ray::"):  # ray::<class>.<method>, or ray::<actor name>:<class>
        return "ray::" + name[5:].rsplit(":", 1)[-1]
    return Path(name).name


def resident_kb(pid: int) -> int | None:
    """A process's resident memory (VmRSS) in kB; None when it is gone."""
    try:
        status = (Path("/proc") / str(pid) / "status").read_text()
    except OSError:
        return None
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:")), 0)


def components(driver: int) -> dict[int, str]:
    """pid -> kind (one of COMPONENT_KINDS) of every component process of the run under `driver`."""
    found = {}
    for pid in children(driver):
        name = (title(pid) or "").removeprefix("ray::").split(".")[0]
        if name in COMPONENT_KINDS:
            found[pid] = name
    return found
