#!/usr/bin/env bash
# Builds the sdist and, from it, the wheel (python -m build, in a virtual environment of its own),
# checks their metadata (twine check), installs the wheel into a second, fresh virtual environment and runs the installed `gorila` from a folder
# outside the source tree, so that nothing is imported from the checkout: a short CartPole run, an
# evaluation of it, its report, and the published Atari scores read from the package data.
# torch is installed first at the version setup.sh installs. pip's and the build's output go to a log
# shown only when something fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source=$PWD
PYTHON=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/wheel_check.log
tools=$work/tools venv=$work/venv
fail() { cat "$log"; echo "wheel check failed: $*"; exit 1; }
quiet() { "$@" >>"$log" 2>&1 || fail "$*"; }

quiet "$PYTHON" -m venv "$tools"
quiet "$tools/bin/python" -m pip install -q build twine
quiet "$tools/bin/python" -m build --outdir "$work/dist" "$source"
quiet "$tools/bin/twine" check --strict "$work"/dist/*
quiet "$PYTHON" -m venv "$venv"
quiet "$venv/bin/python" -m pip install -q --no-compile "torch==2.13.0"
quiet "$venv/bin/python" -m pip install -q --no-compile "$work"/dist/gorila-*.whl

cd "$work"
quiet env -u PYTHONPATH "$venv/bin/python" -c "
import gorila
from gorila.evaluation.scores import ATARI_GAMES
assert gorila.__file__.startswith('$venv/'), f'gorila imported from {gorila.__file__}'
assert len(ATARI_GAMES) == 49, f'{len(ATARI_GAMES)} games in the packaged score table'"
quiet env -u PYTHONPATH "$venv/bin/gorila" train --preset cartpole --runtime local --total-frames 3000 --run-dir run
quiet env -u PYTHONPATH "$venv/bin/gorila" evaluate run --episodes 5
quiet env -u PYTHONPATH "$venv/bin/gorila" report run
grep -q "over 5 episodes" "$log" || fail "the report did not show the saved 5-episode evaluation"
echo "wheel check: $(cd "$work/dist" && ls | tr '\n' ' ')built, twine check passed; the installed wheel trained, evaluated and reported CartPole"
