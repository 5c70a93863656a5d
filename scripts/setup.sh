#!/usr/bin/env bash
# Creates .venv with gorila and its test tools. torch is installed first, pinned to 2.13.0 (the
# version the tests run with); the build is pip's choice: PyPI's on Linux is a CUDA one (several GB), a
# local wheel or PyTorch's CPU index gives a CPU one. To pick it, install torch 2.13.0 of that build
# into .venv before running this (README.md, "Install"): pip keeps it. Everything else comes from
# pyproject.toml, with the dev extra (pytest, pytest-timeout, hypothesis, scipy, wandb, ruff) and the
# minatar one (the tests and benchmarks/minatar.py use MinAtar's games), at the versions of
# constraints.txt. pip's output goes to .venv/setup.log and is shown only when something fails.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
log=.venv/setup.log
install() { .venv/bin/python -m pip install "$@" >>"$log" 2>&1 || { cat "$log"; echo "setup failed: pip install $*"; exit 1; }; }
: >"$log"
install -q --upgrade pip
install -q "torch==2.13.0"
install -q -c constraints.txt -e ".[dev,minatar,sweep]"
.venv/bin/python -c "import gorila.cli, torch, ray, ray.tune, ale_py, gymnasium, minatar" || { echo "setup failed"; exit 1; }
echo "setup: .venv ready ($(.venv/bin/python -c 'import torch, ray; print(f"torch {torch.__version__}, ray {ray.__version__}")'))"
