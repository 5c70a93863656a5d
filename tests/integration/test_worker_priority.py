"""The embedded Ray's components run at the priority the program was started with (`nice -n 3 gorila
train` -> workers at 3), not Ray's default of 15 steps lower, which beside other work at the user's
priority leaves the run a few percent of the cores."""

import subprocess
import sys

from tests.helpers import slowdown

PROGRAM = """
import os, ray
from gorila.runtime.ray.cluster import start_embedded
start_embedded(1)
print(os.nice(0), ray.get(ray.remote(lambda: os.nice(0)).remote()))
ray.shutdown()
"""


def test_components_run_at_the_programs_own_niceness():
    run = subprocess.run(
        ["nice", "-n", "3", sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120 * slowdown()
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["3", "3"]  # Ray's default would give the worker 18
