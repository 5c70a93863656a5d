#!/usr/bin/env bash
# The lint and the layout of the code (ruff, configured in pyproject.toml): `bash scripts/lint.sh --fix`
# sorts the imports, fixes what it can and formats the tree; without it, only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
RUFF=${RUFF:-.venv/bin/ruff}
paths=(gorila tests benchmarks examples scripts)
if [ "${1:-}" = "--fix" ]; then
  "$RUFF" check --fix "${paths[@]}"
  "$RUFF" format "${paths[@]}"
else
  "$RUFF" check "${paths[@]}"
  "$RUFF" format --check "${paths[@]}"
fi
