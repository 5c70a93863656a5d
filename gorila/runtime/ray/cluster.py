"""Where a run's Ray comes from: an embedded single-machine Ray of the program's own (servers on
loopback, no dashboard, ended with its driver however it ends: `session_guard`), or an existing
cluster joined by address, with a deadline; and Ray tasks for the suite's games."""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager

import ray

from gorila.config.schema import split_address
from gorila.runtime import session_guard
from gorila.runtime.calls import ClusterError

CONNECT_TIMEOUT_S = 20
START_ATTEMPTS = 3
STARTUP_TIMEOUT = "timed out during startup"  # Ray's words when its node missed its 30 s to register
# Messages up to this size travel inside the call instead of through the object store: a learner's
# batch of small-network gradients then costs one message, not a store round trip (embedded Ray only;
# a cluster keeps its own setting).
INLINE_MESSAGE_BYTES = 1 << 20
# Ray starts its workers 15 steps nicer than their raylet (`worker_niceness`, added to the niceness the
# raylet inherits from the program), so beside other work at the user's priority the components, which
# are the whole of a run, get what that work leaves: CartPole on Ray, 20,000 frames beside two local
# MinAtar runs and a test suite, took 84.0 s with Ray's default and 13.5 s with 0 (2026-12-06). Every Ray
# gorila starts keeps them at the program's own niceness; a cluster started by hand takes it as the
# environment variable RAY_worker_niceness=0 of `ray start`. Ray writes into the `_system_config` it is
# given (its object spilling's settings, with the session's directory), so callers pass a copy.
WORKERS_AT_OUR_PRIORITY = {"worker_niceness": 0}
EMBEDDED_SYSTEM_CONFIG = {
    "max_direct_call_object_size": INLINE_MESSAGE_BYTES,
    # No dashboard reads them: without it every process stops exporting metrics to its node's agent,
    # CPU the components need (CartPole, 1 bundle, 5 pairs of runs: median 1,480 frames/s against 1,214).
    "enable_metrics_collection": False,
    # The raylet's first connect to its own object store often comes before the store listens, and
    # Ray tries again a second later; trying every 0.1 s (for the same 10 s in all) takes that second
    # away (ray.init on 2 cores, 8 pairs: 2.33-2.58 s against 2.35-3.45 s, 3 of the 8 a second late).
    "raylet_client_connect_timeout_milliseconds": 100,
    "raylet_client_num_connect_attempts": 100,
    **WORKERS_AT_OUR_PRIORITY,
}


def cluster_head_args() -> dict:
    """`head_node_args` of a `ray.cluster_utils.Cluster` on this machine (the tests' and benchmarks'
    clusters of several nodes): one CPU, no dashboard, workers at the program's priority; a new dict
    each call, since Ray writes into the `_system_config` it is given."""
    return {"num_cpus": 1, "include_dashboard": False, "_system_config": dict(WORKERS_AT_OUR_PRIORITY)}


def start_embedded(slots: float, attempts: int = START_ATTEMPTS) -> None:
    """Start this program's own single-machine Ray, with CPU slots for `slots` (more than the cores
    when asked: they then share): servers on loopback, no dashboard, EMBEDDED_SYSTEM_CONFIG.

    Ray gives its new node a fixed 30 s to register; on a machine whose cores other work keeps busy
    it can take longer, and the start is then tried again (`attempts` in all), saying so."""
    for attempt in range(1, attempts + 1):
        try:
            _start_embedded_once(slots)
            return
        except Exception as error:  # noqa: BLE001 - Ray raises a bare Exception for this one
            if STARTUP_TIMEOUT not in str(error) or attempt == attempts:
                raise
            print(
                f"gorila: Ray's node did not register within Ray's 30 s (a busy machine?); "
                f"starting it again ({attempt + 1} of {attempts})",
                file=sys.stderr,
                flush=True,
            )


def _start_embedded_once(slots: float) -> None:
    # address="local": always a Ray of our own, never the one another run on this machine
    # registered as the current cluster (joining it would share, or fail on, its resources)
    before = session_guard.children(os.getpid())
    try:
        with stops_deferred(), own_process_group():
            context = ray.init(
                address="local",
                num_cpus=max(os.cpu_count() or 1, int(slots + 0.999)),
                include_dashboard=False,
                log_to_driver=False,
                configure_logging=False,
                logging_level="ERROR",
                _system_config=dict(EMBEDDED_SYSTEM_CONFIG),
            )  # Ray adds to it
    except BaseException:  # Ctrl-C or SIGTERM while Ray started, or a failed start: leave no Ray behind
        started = session_guard.descendants(os.getpid(), lambda pid: pid not in before)  # before the raylet ends
        ray.shutdown()
        session_guard.end(started)  # its agents would outlive it by a minute (the guard is not started yet)
        raise
    session_guard.start(context.address_info["session_dir"])  # its processes end with this one, even on kill -9


@contextmanager
def own_process_group():
    """Around ray.init: the processes it starts (the GCS, the raylet and Ray's other servers, and
    through the raylet every worker) go in a process group of their own. A stop sent to the run's
    process group (a terminal's Ctrl-C, `kill -TERM -- -PGID`, a batch scheduler's SIGTERM) then reaches
    the driver alone, which writes its final checkpoint through them and then ends them; in the
    driver's group, SIGTERM killed them first, and the driver, its checkpoint unwritten, waited 60 s
    for the GCS before Ray ended it. They still die with the driver (Ray's PR_SET_PDEATHSIG and
    `session_guard`). Ray starts them all through `services.ConsolePopen`, a private name of Ray 2.x."""
    services = ray._private.services
    popen = services.ConsolePopen

    class InItsOwnGroup(popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, process_group=0, **kwargs)

    services.ConsolePopen = InItsOwnGroup
    try:
        yield
    finally:
        services.ConsolePopen = popen


@contextmanager
def stops_deferred():
    """Around the start of an embedded Ray (in the main thread): Ctrl-C and SIGTERM are only noted until
    ray.init returns, then raised as KeyboardInterrupt; the handlers set before are in force again.
    Interrupted half-way, ray.init left a core worker half-built, and ending it crashed the process
    (exit -11); nor does ray.init set its own SIGTERM handler meanwhile (it exits mid-start)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    asked: list[int] = []
    with signal_handlers_kept():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda signum, frame: asked.append(signum))
        utils = ray._private.utils
        ray_sets = utils.set_sigterm_handler
        utils.set_sigterm_handler = lambda handler: None  # a private hook of Ray 2.x: see the docstring
        try:
            yield
        finally:
            utils.set_sigterm_handler = ray_sets
    if asked:
        raise KeyboardInterrupt


@contextmanager
def signal_handlers_kept():
    """Around ray.init: on leaving, the SIGINT and SIGTERM handlers this process's main thread had set
    are in force again. ray.init installs its core worker's C handler over them (on SIGTERM it prints
    a stack trace and aborts the process) and, from the main thread, a SIGTERM handler of its own."""
    main = threading.current_thread() is threading.main_thread()
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)} if main else {}
    try:
        yield
    finally:
        for signum, handler in before.items():
            if handler is not None:  # None: set outside Python, nothing to put back
                signal.signal(signum, handler)


def join_cluster(address: str) -> None:
    """Join the Ray cluster at HOST:PORT (or `auto`); a ClusterError in seconds when none answers."""
    if address != "auto":
        _probe(address)
    _join(address)


def connect(address: str, slots: float) -> None:
    """Join the cluster at `address`, or with none start an embedded Ray with `slots` CPU slots."""
    if address:
        join_cluster(address)
    else:
        start_embedded(slots)


def remote_task(function, num_cpus: float):
    """What starts `function(*args)` as a Ray task that asks for `num_cpus` and is never retried; it
    returns the task's future, for `RayCalls`' `wait` and `get` and for `cancel`."""
    return ray.remote(num_cpus=num_cpus, max_retries=0)(function).remote


def cancel(futures, timeout: float) -> None:
    """Interrupt the tasks of `futures` (each sees a KeyboardInterrupt) and wait up to `timeout` s."""
    for future in futures:
        ray.cancel(future)
    deadline, pending = time.time() + timeout, list(futures)
    while pending and time.time() < deadline:
        _, pending = ray.wait(pending, num_returns=len(pending), timeout=1.0)


def disconnect() -> None:
    """Leave Ray: an embedded one stops, a joined cluster keeps running."""
    ray.shutdown()


def _probe(address: str) -> None:
    """Fail fast (seconds, not minutes) when nothing listens at HOST:PORT."""
    try:
        host, port = split_address(address)
    except ValueError as error:
        raise ClusterError(f"--{error}") from None
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as error:
        raise ClusterError(f"no Ray cluster answers at {address} ({error.strerror or error})") from None


def _join(address: str) -> None:
    """ray.init(address) with a deadline: something that listens but is not Ray makes Ray wait forever."""
    outcome: dict = {}

    def attempt():
        try:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
            outcome["ok"] = True
        except Exception as error:  # reported below, in the caller's thread
            outcome["error"] = error

    with signal_handlers_kept():
        thread = threading.Thread(target=attempt, daemon=True)
        thread.start()
        thread.join(CONNECT_TIMEOUT_S)
    if "error" in outcome:
        reason = str(outcome["error"]).strip().splitlines()[0]
        raise ClusterError(f"cannot join the Ray cluster at {address}: {reason}")
    if "ok" not in outcome:
        raise ClusterError(f"no Ray cluster answered at {address} within {CONNECT_TIMEOUT_S} s")
