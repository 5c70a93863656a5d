#!/usr/bin/env bash
# Sets up and runs the whole test suite (unit, integration on both runtimes, learning) in two pytest-xdist
# workers: much of an integration test's time is waiting (a Ray starting, a fault's timeout, a
# subprocess), which the other worker's test fills; worksteal hands a long test's neighbours to the idle
# worker. Every wait in the tests scales with the load it sees (tests/helpers.py, slowdown). Set
# GORILA_TEST_WORKERS (0: in this process, one test at a time) for another count. The ten slowest tests
# are listed at the end: where the suite's time goes.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest -q -p no:cacheprovider -n "${GORILA_TEST_WORKERS:-2}" --dist worksteal --durations=10 "$@"
