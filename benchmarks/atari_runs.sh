#!/usr/bin/env bash
# The long runs of the atari preset (DQN as its code counts, one bundle, local runtime), one after another
# in RUNS_DIR: each is started, or resumed where an earlier session's end cut it (`gorila train --resume`),
# or passed over once its metrics reach its budget. Hours on two cores (about 400 frames/s): run it with
# nohup, and again after an interruption.
#
# - The faithful curves, beside Dopamine's DQN (benchmarks/reference/dopamine_dqn_*.tsv): Pong and
#   Breakout, seed 0, 2M frames, with sticky actions 0.25 as Dopamine's runs have them.
# - The loss-outlier filter, off (DQN, the atari preset) against on (k = 5, Gorila's, the gorila-paper
#   preset): the first 1M frames of Pong and Breakout, seeds 0 and 1, the same settings. The filter-off
#   runs of seed 0 are the first 1M frames of the faithful runs (the budget moves no schedule).
#
# Usage: bash benchmarks/atari_runs.sh [RUNS_DIR] [NAMES]    (default: runs/atari-preset, every run)
# NAMES, an extended regular expression, keeps the runs whose names match it, so that two instances
# with disjoint NAMES share two cores (each run on one torch thread, the preset's).
# Then: python benchmarks/atari_baseline.py RUN ... compiles a run into benchmarks/baselines/atari/.
# python benchmarks/outlier_filter.py --pair GAME SEED OFF ON ... compiles the filter's pairs into one table.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
runs=${1:-runs/atari-preset}
names=${2:-.}
mkdir -p "$runs"

reached() {   # RUN FRAMES: has RUN's metrics reached FRAMES?
  "$PYTHON" - "$1/metrics.jsonl" "$2" <<'PY'
import json, sys
path, frames = sys.argv[1], int(sys.argv[2])
try:
    done = max((json.loads(line).get("env_frames", 0) for line in open(path) if line.strip()), default=0)
except OSError:
    done = 0
sys.exit(0 if done >= frames else 1)
PY
}

run() {       # NAME GAME SEED FRAMES OUTLIER_K
  local dir="$runs/$1"
  if ! [[ "$1" =~ $names ]]; then
    return 0
  elif [ -f "$dir/metrics.jsonl" ] && reached "$dir" "$4"; then
    echo "atari_runs.sh: $1 is done"
  elif [ -f "$dir/config.yaml" ]; then
    echo "atari_runs.sh: $1 resumed ($(date -u +%H:%M))"
    "$PYTHON" -m gorila train --resume "$dir" --total-frames "$4" >>"$dir.log" 2>&1
  else
    echo "atari_runs.sh: $1 started ($(date -u +%H:%M))"
    "$PYTHON" -m gorila train --preset atari --env "$2" --seed "$3" --total-frames "$4" --runtime local \
      --sticky-actions 0.25 --set outlier_k="$5" --set eval_every_frames=250000 --set eval_episodes=10 \
      --set checkpoint_every_frames=200000 --save-replay --run-dir "$dir" >"$dir.log" 2>&1
  fi
}

run pong-dqn-sticky-seed0 Pong 0 2000000 0
run breakout-dqn-sticky-seed0 Breakout 0 2000000 0
run pong-dqn-sticky-filter-seed0 Pong 0 1000000 5
run breakout-dqn-sticky-filter-seed0 Breakout 0 1000000 5
run pong-dqn-sticky-seed1 Pong 1 1000000 0
run pong-dqn-sticky-filter-seed1 Pong 1 1000000 5
run breakout-dqn-sticky-seed1 Breakout 1 1000000 0
run breakout-dqn-sticky-filter-seed1 Breakout 1 1000000 5
