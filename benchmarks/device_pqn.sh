#!/usr/bin/env bash
# PQN (algorithm pqn) on a machine with many cores, one command of at most --minutes (default 9):
#  1. scaling: MinAtar Breakout with the pqn preset for FRAMES (default 1M) frames in all, one bundle on
#     the local runtime, then N bundles (default 8) on Ray sharing theta+ through N parameter shards,
#     each bundle exploring over 1/N of the anneal (so that the run as a whole explores over as many
#     frames); for each, the wall time at which the mean of the last 100 training episodes first
#     reached 5, 8.32 (MinAtar's DQN at 500k frames) and 12;
#  2. the five MinAtar games, 2 seeds, GAME_FRAMES (default 1M) frames each, all at once as separate
#     local-runtime processes, beside MinAtar's published DQN (gorila suite's table, made afterwards by
#     benchmarks/device_pqn_report.py from the runs' metrics).
# Everything goes to OUT (default benchmarks/results/device-pqn-<date>): pqn-scaling.json, the five-game
# runs' metrics in minatar-runs.tar.gz, the logs. --smoke runs the same steps small, in about 2 minutes;
# --only scaling|games runs one of the two (PQN_BUNDLES=2 --only scaling is the 2-core machine's check).
# Usage: bash benchmarks/device_pqn.sh [--smoke] [--only PART] [--wheels DIR] [--out DIR] [--minutes M]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
. benchmarks/device_args.sh device-pqn "$@"
set -- ${own[@]+"${own[@]}"}
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=$2; shift ;;
    *) echo "device_pqn.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
  esac
  shift
done
budget=$(( minutes * 60 ))
. benchmarks/device_install.sh
bundles=${PQN_BUNDLES:-8}; frames=${FRAMES:-1000000}; game_frames=${GAME_FRAMES:-1000000}
[ "$smoke" = 1 ] && { bundles=2; frames=40000; game_frames=20000; }
echo "device_pqn.sh: $(nproc) cores, $bundles bundles against 1, $frames frames; five games at $game_frames; results in $out"
left() { echo $(( budget - ($(date +%s) - start) )); }

# ---- 1. one bundle against N -----------------------------------------------------------------------
decay=$(( frames / 10 ))    # the pqn preset's 10% of the budget, for the whole run
train() {   # NAME FLAGS...: one Breakout run, stopped with a final checkpoint if the time runs out
  local name=$1; shift
  timeout --foreground -k 30 -s TERM "$(( $(left) - 200 ))" "$PYTHON" -m gorila train --preset pqn \
    --env MinAtar/Breakout-v0 --total-frames "$frames" --seed 0 --set eval_every_frames=0 --set eval_episodes=10 \
    --run-dir "$out/$name" "$@" >"$out/$name.log" 2>&1 || echo "device_pqn.sh: $name ended early ($out/$name.log)"
}
if [ "$only" != games ]; then
  train breakout-1-bundle --runtime local --set torch_threads=2 --set epsilon_decay_steps=$decay
  train breakout-$bundles-bundles --runtime ray --actors "$bundles" --learners "$bundles" --param-shards "$bundles" \
    --set torch_threads=1 --set epsilon_decay_steps=$(( decay / bundles ))
  "$PYTHON" benchmarks/device_pqn_report.py scaling "$out" "breakout-1-bundle" "breakout-$bundles-bundles"
fi
[ "$only" = scaling ] && exit 0

# ---- 2. five games, two seeds, all at once ------------------------------------------------------------
mkdir -p "$out/minatar"
games="Asterix Breakout Freeway Seaquest SpaceInvaders"
for game in $games; do
  for seed in 0 1; do
    timeout --foreground -k 30 -s TERM "$(( $(left) - 30 ))" "$PYTHON" -m gorila train --preset pqn \
      --env "MinAtar/$game-v0" --total-frames "$game_frames" --seed "$seed" --runtime local --set torch_threads=1 \
      --set epsilon_decay_steps=$(( game_frames / 10 )) --set eval_every_frames=0 --set eval_episodes=10 \
      --run-dir "$out/minatar/$game-seed$seed" >"$out/minatar/$game-seed$seed.log" 2>&1 &
  done
done 2>/dev/null || true
wait || true
tar -czf "$out/minatar-runs.tar.gz" -C "$out" $(cd "$out" && ls minatar/*/metrics.jsonl minatar/*/config.yaml minatar/*.log 2>/dev/null)
"$PYTHON" benchmarks/device_pqn_report.py games "$out"
echo "device_pqn.sh: done in $(( $(date +%s) - start )) s"
