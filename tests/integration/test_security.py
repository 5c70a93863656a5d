"""An embedded Ray run opens no port beyond this machine: every socket its processes listen on is bound
to loopback. Ray servers otherwise bind to all interfaces, and anyone who reaches them can run code."""

import ipaddress
import os
import socket
from pathlib import Path

import numpy as np
import pytest

from gorila.components.parameter_server import ParameterShard
from gorila.config import Config
from gorila.placement import PARAMETER_SHARD
from tests.helpers import slowdown

TCP_LISTEN = "0A"


def descendants(root: int) -> set[int]:
    """`root` and every process below it (Ray's GCS, raylet, agents and workers all descend from the driver)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that ended while we looked
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    return found


def socket_inodes(pids: set[int]) -> set[str]:
    inodes = set()
    for pid in pids:
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        except OSError:
            continue
        inodes |= {link[len("socket:[") : -1] for link in links if link.startswith("socket:[")}
    return inodes


def listening_addresses(inodes: set[str]) -> list[tuple[str, int]]:
    """(address, port) of the listening TCP sockets among `inodes`, from /proc/net/tcp and tcp6."""
    found = []
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
        for line in lines:
            columns = line.split()
            local, state, inode = columns[1], columns[3], columns[9]
            if state != TCP_LISTEN or inode not in inodes:
                continue
            address_hex, port_hex = local.split(":")
            raw = bytes.fromhex(address_hex)
            raw = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))  # 32-bit words, host order
            found.append((socket.inet_ntop(family, raw), int(port_hex, 16)))
    return found


def is_loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    return ip.is_loopback or (ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped.is_loopback)


@pytest.mark.skipif(not Path("/proc/net/tcp").exists(), reason="reads Linux's /proc")
def test_an_embedded_ray_run_listens_on_loopback_only():
    import ray

    from gorila.runtime.ray import RayRuntime
    from gorila.system.planning import runtime_resources

    # the ports of the Ray that this test starts; one an earlier test left running is a bug of that test
    assert not ray.is_initialized(), "an earlier test in this process left Ray running (it must shut Ray down)"
    runtime = RayRuntime(runtime_resources(Config()))  # the embedded Ray `gorila train` starts
    try:
        shard = runtime.place(PARAMETER_SHARD, ParameterShard, 0, np.zeros(4, np.float32))
        assert runtime.wait_ready([shard], 120 * slowdown()) == 0  # a worker process is up and serving too
        listening = listening_addresses(socket_inodes(descendants(os.getpid())))
        assert len(listening) >= 3, listening  # at least the GCS, the raylet and a worker
        exposed = [(address, port) for address, port in listening if not is_loopback(address)]
        assert exposed == [], f"Ray listens beyond this machine on {exposed}"
    finally:
        runtime.shutdown()
