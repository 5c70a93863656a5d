#!/usr/bin/env bash
# The wheels a bare GPU machine (Python 3.12, PyTorch with CUDA, no index) lacks to run gorila, in one
# folder under 64 MiB: ray without what gorila never loads (its Java jar, RLlib, Data, Serve, LLM and
# the dashboard's web client: 79 MB of wheel become 40), ale-py with the ROMs, gymnasium, jsonschema and MinAtar (its games need only numpy).
# Then `bash benchmarks/device.sh --wheels DIR` there.
#
# Usage: bash benchmarks/device_wheels.sh [DIR]   (default .whl, which .git/info/exclude should name)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.whl}
PYTHON=${PYTHON:-python3}
mkdir -p "$dir"
"$PYTHON" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d "$dir" ray==2.60.0 ale-py==0.12.1 gymnasium==1.4.0 \
  farama-notifications jsonschema jsonschema-specifications referencing rpds-py minatar==1.0.15
"$PYTHON" - "$dir" <<'PY'
import glob, os, sys, zipfile
UNUSED = ("ray/jars/", "ray/rllib/", "ray/llm/", "ray/data/", "ray/serve/", "ray/dashboard/client/")
for wheel in glob.glob(os.path.join(sys.argv[1], "ray-*.whl")):
    with zipfile.ZipFile(wheel) as source:
        if not any(name.startswith(UNUSED) for name in source.namelist()):
            continue                                  # slimmed already
        with zipfile.ZipFile(wheel + ".part", "w", zipfile.ZIP_DEFLATED, compresslevel=9) as slim:
            for entry in source.infolist():
                if entry.filename.startswith(UNUSED):
                    continue
                data = source.read(entry)
                if entry.filename.endswith(".dist-info/RECORD"):   # pip installs what RECORD names
                    data = b"\n".join(line for line in data.split(b"\n") if not line.startswith(
                        tuple(prefix.encode() for prefix in UNUSED)))
                slim.writestr(entry, data)
    os.replace(wheel + ".part", wheel)
PY
du -sh "$dir"
