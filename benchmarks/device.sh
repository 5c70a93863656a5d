#!/usr/bin/env bash
# One command for a machine with one GPU and many cores, at most 9 minutes of wall time (--minutes):
#  1. the learner table: a bare PyTorch DQN step on the GPU; one learner's full step (sample, loss,
#     gradient, parameter server, refresh) with its shard beside it on the GPU and apart on the CPU;
#     1 and 4 learners on Ray sharing the GPU, each beside its shard (aggregate updates/s);
#  2. Pong with the atari-fast preset for the rest of the time (PONG_PRESET, PONG_FLAGS), its training
#     return against wall time and frames, beside Dopamine's DQN curve by frames, and the wall time at
#     which the mean of the last 100 training episodes first reached -10, 0, +10 and +18.
# Everything goes to OUT (default benchmarks/results/device-<date>; a temporary folder with --smoke):
# learners.json, pong.json, the run.
#
# Such a machine may have PyTorch with CUDA and nothing else: --wheels DIR installs what is missing
# (ray, ale-py, gymnasium, ...) from a folder of wheels, without an index. --smoke runs the same steps
# on the CPU in under 2 minutes, so that the one run on the GPU machine does not fail on a typo.
#
# Usage: bash benchmarks/device.sh [--smoke] [--wheels DIR] [--out DIR] [--minutes M]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
smoke=0; wheels=""; out=""; minutes=9
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --wheels) wheels=$2; shift ;;
    --out) out=$2; shift ;;
    --minutes) minutes=$2; shift ;;
    *) echo "device.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift
done
start=$(date +%s)
budget=$(( minutes * 60 )); [ "$smoke" = 1 ] && budget=115
if [ -z "$out" ]; then      # a smoke run's figures say nothing worth keeping: a temporary folder
  if [ "$smoke" = 1 ]; then out=$(mktemp -d -t device-smoke-XXXXXX); else out=benchmarks/results/device-$(date +%Y-%m-%d-%H%M); fi
fi
mkdir -p "$out"

# ---- what this machine lacks, from the wheels -------------------------------------------------------
if ! "$PYTHON" -c "import ray, ale_py, gymnasium, gorila.cli" 2>/dev/null; then
  if [ -n "$wheels" ]; then
    "$PYTHON" -m pip install -q --no-index --find-links "$wheels" -e . >"$out/install.log" 2>&1 \
      || { tail -5 "$out/install.log"; echo "device.sh: installing from $wheels failed ($out/install.log)" >&2; exit 1; }
  else
    "$PYTHON" -m pip install -q -e . >"$out/install.log" 2>&1 \
      || { tail -5 "$out/install.log"; echo "device.sh: pip install failed; offline, give --wheels DIR" >&2; exit 1; }
  fi
fi
if [ "$smoke" = 1 ]; then
  device=cpu; seconds=1
else
  "$PYTHON" -c "import torch; assert torch.cuda.is_available(), 'torch sees no CUDA device'"
  device=cuda; seconds=10
fi
echo "device.sh: $(nproc) cores, $("$PYTHON" -c "import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')"), device $device, $budget s in all, results in $out"

# ---- 1. the learner table ----------------------------------------------------------------------------
"$PYTHON" -m gorila bench --sections learner shared_device --device "$device" --seconds "$seconds" \
  --json "$out/learners.json" | tee "$out/learners.txt"

# ---- 2. Pong for the rest of the time ----------------------------------------------------------------
left=$(( budget - ($(date +%s) - start) - 15 ))      # room for the final checkpoint and the report
preset=${PONG_PRESET:-atari-fast}
if [ "$smoke" = 1 ]; then
  flags=${PONG_FLAGS:-"--set learning_starts=2000 --set eval_episodes=1 --set eval_max_frames=500"}
else         # the learner on the GPU makes an update cheap: more copies and updates per agent step
  flags=${PONG_FLAGS:-"--envs-per-actor 16 --set update_every=4 --set torch_threads=4"}
fi
[ "$left" -gt 30 ] || { echo "device.sh: no time left for Pong ($left s of $budget; the learner table took the rest)" >&2; exit 1; }
echo "device.sh: Pong for $left s: gorila train --preset $preset --env Pong --device $device $flags"
# shellcheck disable=SC2086
timeout -s TERM "$left" "$PYTHON" -m gorila train --preset "$preset" --env Pong --device "$device" \
  --total-frames 1000000000 --set eval_every_frames=0 --run-dir "$out/pong" $flags >"$out/pong.log" 2>&1 || true
"$PYTHON" benchmarks/device_report.py "$out"
