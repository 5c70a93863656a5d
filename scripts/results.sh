#!/usr/bin/env bash
# The published results: renders every block between `<!-- results:begin NAME -->` and
# `<!-- results:end NAME -->` in the README and the results pages from the compiled files under
# benchmarks/ (benchmarks/published.py). `bash scripts/results.sh --check` changes nothing and exits 1,
# naming the block and a short diff, where a page's text differs from what its files give.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && .venv/bin/python -c "import gorila.config" 2>/dev/null || bash scripts/setup.sh
.venv/bin/python benchmarks/published.py "$@"
