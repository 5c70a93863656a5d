#!/usr/bin/env bash
# Sets up, trains Gorila on CartPole-v1 with 2 bundles on an embedded Ray, then evaluates the result.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
run=runs/quickstart-$(date +%Y%m%d-%H%M%S)
.venv/bin/gorila train --preset cartpole --actors 2 --learners 2 --param-shards 2 --run-dir "$run"
.venv/bin/gorila evaluate "$run" --episodes 20
.venv/bin/gorila report "$run"
