#!/usr/bin/env bash
# Sets up and runs the whole test suite (unit, integration on both runtimes, learning).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
