#!/usr/bin/env bash
# Sets up and runs the whole test suite (unit, integration on both runtimes, learning).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
