#!/usr/bin/env bash
# Sets up, trains Gorila on CartPole-v1 with 2 bundles on an embedded Ray, then evaluates the saved
# best parameters on 100 fresh episodes (kept in RUN/evaluations) and writes a report (plots, index.html)
# in RUN/report that shows that evaluation.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
run=runs/quickstart-$(date +%Y%m%d-%H%M%S)
.venv/bin/gorila train --preset cartpole --actors 2 --learners 2 --param-shards 2 --run-dir "$run"
.venv/bin/gorila evaluate "$run" --episodes 100
.venv/bin/gorila report "$run"
