#!/usr/bin/env bash
# On a machine with one GPU and many cores (e.g. 16): learner updates/s on the GPU against a bare
# PyTorch step there, and aggregate Atari actor frames/s for 1, 2, 4, 8 and 16 actors on an embedded
# Ray. Under 10 minutes; prints one table and writes every figure to the JSON file given (default
# gpu_bench.json).
# Needs a Python whose torch is a CUDA build (PYTHON=..., default python3); gorila and its other
# dependencies are installed into it when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
out=${1:-gpu_bench.json}
"$PYTHON" -c "import torch; assert torch.cuda.is_available(), 'torch sees no CUDA device'"
"$PYTHON" -c "import gorila.cli" 2>/dev/null || "$PYTHON" -m pip install -q -e . >/dev/null
nproc; "$PYTHON" -c "import torch; print(torch.cuda.get_device_name(0))"
"$PYTHON" -m gorila bench --sections learner scaling --device cuda --seconds 10 --json "$out"
"$PYTHON" - "$out" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
learner, scaling = b["learner"], b["scaling"]
print(f"\n{'figure':44} {'value':>12}")
print(f"{'learner updates/s on the GPU (full step)':44} {learner['local_updates_per_s']:12,.1f}")
print(f"{'bare PyTorch updates/s on the GPU':44} {learner['bare_updates_per_s']:12,.1f}")
print(f"{'learner.ratio':44} {learner['ratio']:12.2f}")
for key, row in scaling.items():
    n = key.split("_")[1]
    print(f"{'Atari frames/s, ' + n + ' actors (per actor)':44} {row['frames_per_s']:12,.0f} ({row['per_actor_frames_per_s']:,.0f})")
PY
