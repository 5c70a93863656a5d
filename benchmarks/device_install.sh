# Sourced by the device scripts (device.sh, device_pqn.sh): installs what a bare GPU machine lacks to
# run gorila, from the folder of wheels made by benchmarks/device_wheels.sh ($wheels; without one, from
# an index), beside the machine's own packages. Needs PYTHON, wheels and out (the install log goes there).
if ! "$PYTHON" -c "import ray, ale_py, gymnasium, minatar, gorila.cli" 2>/dev/null; then
  if [ -n "$wheels" ]; then   # beside the machine's own packages, and gorila from this folder
    site=${TMPDIR:-/tmp}/gorila-site
    "$PYTHON" -m pip install -q --no-index --no-deps --no-compile --target "$site" "$wheels"/*.whl \
      >"$out/install.log" 2>&1 \
      || { tail -5 "$out/install.log"; echo "device: installing from $wheels failed ($out/install.log)" >&2; exit 1; }
    export PYTHONPATH="$site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
  else
    "$PYTHON" -m pip install -q -e . >"$out/install.log" 2>&1 \
      || { tail -5 "$out/install.log"; echo "device: pip install failed; offline, give --wheels DIR" >&2; exit 1; }
  fi
fi
