"""The wait for a run's components to start: it goes on while they keep starting, and its error tells a
cluster with no room for them from one that is only slow to start them."""

import pytest

from gorila.config import build_config
from gorila.runtime.calls import WorkerError
from gorila.system.planning import runtime_resources
from gorila.system.topology import wait_ready


class StartingRuntime:
    """The part of a runtime `wait_ready` reads: the components still not running after each wait
    (`left`, one entry per wait; the last repeats), and the CPUs free on the cluster."""

    def __init__(self, left: list[int], free_cpus: float):
        self.left, self.cpus, self.windows = left, free_cpus, []

    def wait_ready(self, handles, timeout):
        self.windows.append(timeout)
        return self.left.pop(0) if len(self.left) > 1 else self.left[0]

    def free_cpus(self):
        return self.cpus


class System:
    def handles(self):
        return list(range(6))


def test_the_wait_goes_on_while_components_keep_starting():
    runtime = StartingRuntime([5, 3, 1, 0], free_cpus=0)
    wait_ready(runtime, System(), runtime_resources(build_config()), window=7)
    assert runtime.windows == [7, 7, 7, 7]


def test_a_window_in_which_none_started_ends_it_with_no_room_named():
    runtime = StartingRuntime([4, 2, 2], free_cpus=0.5)
    with pytest.raises(WorkerError, match="2 of 6 components could not be placed within 7 s: the Ray cluster lacks"):
        wait_ready(runtime, System(), runtime_resources(build_config(overrides=dict(worker_cpus=1.0))), window=7)
    assert len(runtime.windows) == 3


def test_a_cluster_with_room_that_starts_nothing_is_called_slow_not_full():
    runtime = StartingRuntime([6], free_cpus=4)
    with pytest.raises(
        WorkerError, match="6 of 6 components did not start within 7 s although the cluster has CPUs free"
    ):
        wait_ready(runtime, System(), runtime_resources(build_config()), window=7)
    assert runtime.windows == [7]
