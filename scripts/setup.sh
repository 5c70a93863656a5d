#!/usr/bin/env bash
# Creates .venv with gorila and its test tools. torch is pinned to the CPU wheel first so that no
# multi-GB CUDA build is downloaded; everything else comes from pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
.venv/bin/pip install -q "torch==2.13.0" 2>&1 | grep -v -i warning || true
.venv/bin/pip install -q -e ".[dev]" 2>&1 | grep -v -i warning || true
.venv/bin/python -c "import gorila.cli, torch, ray, ale_py, gymnasium" || { echo "setup failed"; exit 1; }
