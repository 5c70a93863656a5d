import faulthandler
import os
import re
from pathlib import Path

import hypothesis
import pytest
import pytest_timeout

# Every Ray server in the tests stays on 127.0.0.1 (Ray 2.x binds to all interfaces otherwise); set before Ray is imported.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

TESTS = Path(__file__).resolve().parent

# --- every test bounded ------------------------------------------------------------------------------
# pyproject.toml's `timeout` (pytest-timeout) bounds a test of tests/unit; these folders' tests start Ray
# clusters and train for real, and get longer limits unless a test sets its own (@pytest.mark.timeout).
# Each is several times the longest such test on 2 loaded cores and above the test's own waits (a
# subprocess's timeout, a join), so that those fail first, with their own message.
LONGER_LIMITS = {"integration": 1200, "learning": 1800}
# On expiry pytest-timeout prints every thread's stack and fails the test (SIGALRM); a test whose main
# thread never comes back to Python to take the signal is stopped BACKSTOP_S later by faulthandler, which
# prints every thread's stack and ends the run (exit 1) rather than letting it hang.
BACKSTOP_S = 120
BACKSTOP_STDERR = pytest.StashKey[int]()


def pytest_collection_modifyitems(items):
    for item in items:
        folder = item.path.relative_to(TESTS).parts[0] if item.path.is_relative_to(TESTS) else None
        if folder in LONGER_LIMITS and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(LONGER_LIMITS[folder]))


def pytest_configure(config):
    config.stash[BACKSTOP_STDERR] = os.dup(2)  # the terminal's stderr: fd 2 is a capture file while a test runs


def pytest_unconfigure(config):
    os.close(config.stash[BACKSTOP_STDERR])


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_set_timer(item, settings):
    # The limits are an idle machine's; a loaded one stretches them as the tests' own waits stretch
    # (tests/helpers.py's slowdown, taken when the test starts), so that load alone fails no test by time.
    from tests.helpers import slowdown  # here: helpers imports gorila, and Ray must see the setting above first

    settings = settings._replace(timeout=settings.timeout * slowdown())
    faulthandler.dump_traceback_later(settings.timeout + BACKSTOP_S, exit=True, file=item.config.stash[BACKSTOP_STDERR])
    return pytest_timeout.pytest_timeout_set_timer(item, settings)


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_cancel_timer(item):
    faulthandler.cancel_dump_traceback_later()


# --- the cores shared among pytest-xdist's workers ----------------------------------------------------
# A run sets torch's intra-op threads to its config's torch_threads (2 in the presets made for a 2-core
# machine). With two workers on two cores that is four threads on two cores, and an operation split
# between two threads waits for the one the other worker's process holds off the core: a clone of the
# MinAtar network's 133k parameters took 1.4 ms instead of 43 us, and the MinAtar suite test spent 97 of
# its 165 s in them. So each worker's process gives torch at most its share of the cores.
if os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
    import torch

    CORES_PER_WORKER = max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))
    _set_threads = torch.set_num_threads
    torch.set_num_threads = lambda count: _set_threads(min(count, CORES_PER_WORKER))
    torch.set_num_threads(torch.get_num_threads())


# --- no silent skip ----------------------------------------------------------------------------------
# A test may skip only for a reason matched here (re.search); any other skip fails the test, so that a
# missing dependency or a leaked resource cannot pass unseen. Keep the list short.
ALLOWED_SKIPS = [
    # hardware: a CUDA case runs only where there is a GPU (test_beside_learner's cuda parameter)
    r"^no CUDA device here$",
    # Linux's /proc: test_security reads the sockets of Ray's processes from /proc/net/tcp, test_preflight
    # the real MemAvailable; neither exists on other systems
    r"^reads Linux's /proc$",
    # the documentation site's tools: the docs extra and Chromium, which `bash scripts/docs.sh` installs
    # (CI's DOCS_BROWSER=required turns a missing Chromium into an error there); scripts/test.sh does not
    # install them, and an unpacked sdist has no mkdocs.yml (test_docs_site)
    r"^(mkdocs|material|mkdocstrings|mkdocstrings_handlers\.python|chromium) is not installed: ",
    r"^no mkdocs\.yml here ",
]


def refuse_unlisted_skip(report):
    if not report.skipped or hasattr(report, "wasxfail") or not isinstance(report.longrepr, tuple):
        return
    path, line, message = report.longrepr
    reason = message.removeprefix("Skipped: ")
    if not any(re.search(allowed, reason) for allowed in ALLOWED_SKIPS):
        report.outcome = "failed"
        report.longrepr = f"{path}:{line}: skipped for a reason not in tests/conftest.py's ALLOWED_SKIPS: {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    refuse_unlisted_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield  # a module that skips as a whole (pytest.importorskip or pytest.skip at import)
    refuse_unlisted_skip(report)
    return report


# --- hypothesis --------------------------------------------------------------------------------------
# GORILA_TEST_PROFILE=ci (.ci/run sets it): the same examples on every run, none replayed from an example
# database of earlier runs, and no per-example deadline that a loaded machine would miss.
hypothesis.settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
if os.environ.get("GORILA_TEST_PROFILE"):
    hypothesis.settings.load_profile(os.environ["GORILA_TEST_PROFILE"])


@pytest.fixture
def benchmark(monkeypatch):
    """`benchmark(name)`: the script benchmarks/NAME.py imported as a module (benchmarks/ is no package:
    its scripts import each other by name), for the tests of its functions."""
    import importlib

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    return importlib.import_module
