#!/usr/bin/env bash
# One command for a machine with one GPU and many cores, at most 9 minutes of wall time (--minutes):
#  1. the learner table: a bare PyTorch DQN step on the GPU; one learner's full step (sample, loss,
#     gradient, parameter server, refresh) with its shard beside it on the GPU and apart on the CPU;
#     1 and 4 learners on Ray sharing the GPU, each beside its shard (aggregate updates/s);
#  2. Pong with the atari-fast preset for the rest of the time (PONG_PRESET, PONG_FLAGS), as Gorila runs
#     it: PONG_BUNDLES bundles (default 8; 2 with --smoke) on Ray, each an actor, its replay and a
#     learner on the GPU beside its parameter shard, with the preset's exploration, learning start and
#     replay divided among them so that the run as a whole explores and learns from as many frames as
#     one bundle would; its training return against wall time and frames, beside Dopamine's DQN curve by
#     frames, and the wall time at which the mean of the last 100 training episodes first reached -10,
#     0, +10 and +18.
# Everything goes to OUT (default benchmarks/results/device-<date>; a temporary folder with --smoke):
# learners.json, pong.json, the run.
#
# Such a machine may have PyTorch with CUDA and nothing else: --wheels DIR installs what is missing
# (ray, ale-py, gymnasium, ...) from a folder of wheels made by benchmarks/device_wheels.sh, without an
# index. --smoke runs the same steps on the CPU in under 2 minutes, so that the one run on the GPU
# machine does not fail on a typo.
#
# --pong-only skips the learner table (its figures are kept from an earlier run) and gives Pong the
# whole time.
#
# Usage: bash benchmarks/device.sh [--smoke] [--pong-only] [--wheels DIR] [--out DIR] [--minutes M]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
. benchmarks/device_args.sh device "$@"
set -- ${own[@]+"${own[@]}"}
pong_only=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pong-only) pong_only=1 ;;
    *) echo "device.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift
done
budget=$(( minutes * 60 )); [ "$smoke" = 1 ] && budget=115

# ---- what this machine lacks, from the wheels -------------------------------------------------------
. benchmarks/device_install.sh
if [ "$smoke" = 1 ]; then
  device=cpu; seconds=1; bundles=${PONG_BUNDLES:-2}
else
  "$PYTHON" -c "import torch; assert torch.cuda.is_available(), 'torch sees no CUDA device'"
  device=cuda; seconds=4; bundles=${PONG_BUNDLES:-8}
fi
echo "device.sh: $(nproc) cores, $("$PYTHON" -c "import torch; print(torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'no GPU')"), device $device, $budget s in all, results in $out"

# ---- 1. the learner table ----------------------------------------------------------------------------
if [ "$pong_only" = 0 ]; then
  "$PYTHON" -m gorila bench --sections learner shared_device --device "$device" --seconds "$seconds" \
    --json "$out/learners.json" | tee "$out/learners.txt"
fi

# ---- 2. Pong for the rest of the time ----------------------------------------------------------------
left=$(( budget - ($(date +%s) - start) - 15 ))      # room for the final checkpoint and the report
preset=${PONG_PRESET:-atari-fast}
# each bundle explores over, starts learning after and keeps 1/N (replay: 2/N) of one bundle's counts
shared="--runtime ray --actors $bundles --learners $bundles --param-shards $bundles --shard-placement learners
  --set torch_threads=1 --set epsilon_decay_steps=$(( 250000 / bundles )) --set replay_capacity=$(( 200000 / bundles ))"
if [ "$smoke" = 1 ]; then
  flags=${PONG_FLAGS:-"$shared --set learning_starts=1000 --set log_every_seconds=2"}
else
  flags=${PONG_FLAGS:-"$shared --set learning_starts=$(( 20000 / bundles ))"}
fi
[ "$left" -gt 30 ] || { echo "device.sh: no time left for Pong ($left s of $budget; the learner table took the rest)" >&2; exit 1; }
echo "device.sh: Pong for $left s: gorila train --preset $preset --env Pong --device $device $flags"
# shellcheck disable=SC2086
# --foreground: the stop reaches the driver alone, which writes its final checkpoint and then ends Ray
# (a TERM to the whole group ended Ray's GCS too, and the driver waited 60 s for it, checkpointing nothing)
timeout --foreground -k 60 -s TERM "$left" "$PYTHON" -m gorila train --preset "$preset" --env Pong --device "$device" \
  --total-frames 1000000000 --set eval_every_frames=0 --run-dir "$out/pong" $flags >"$out/pong.log" 2>&1 || true
"$PYTHON" benchmarks/device_report.py "$out" $([ "$pong_only" = 1 ] && echo --pong-only)
