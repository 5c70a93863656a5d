#!/usr/bin/env bash
# The unit tests against the newest releases that pyproject.toml's ranges allow, without constraints.txt:
# what `pip install gorila` gives a user today, where scripts/setup.sh installs the versions the tests
# last passed with. In a virtual environment of its own, .venv-newest, brought up to the newest releases
# on each run (pip --upgrade-strategy eager); torch stays at 2.13.0, the one version tried. Extra
# arguments go to pytest (default: tests/unit); pip's output goes to .venv-newest/setup.log and is shown
# only when something fails, the versions installed to .venv-newest/versions.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
venv=.venv-newest
[ -x "$venv/bin/python" ] || "$PYTHON" -m venv "$venv"
log=$venv/setup.log
install() { "$venv/bin/python" -m pip install "$@" >>"$log" 2>&1 || { cat "$log"; echo "test_newest: pip install $* failed"; exit 1; }; }
: >"$log"
echo "torch==2.13.0" >"$venv/torch.txt"   # eager upgrades leave torch alone
install -q --upgrade pip
install -q "torch==2.13.0"
install -q --upgrade --upgrade-strategy eager -c "$venv/torch.txt" -e ".[dev,minatar,sweep]"
"$venv/bin/python" -m pip freeze --exclude-editable >"$venv/versions.txt"
echo "test_newest: $venv ready (torch 2.13.0, the rest newest: $venv/versions.txt)"
[ $# -gt 0 ] || set -- tests/unit
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
