#!/usr/bin/env bash
# Builds the documentation site (mkdocs.yml, docs/) into site/ with `mkdocs build --strict`: any warning
# (a broken link or anchor, a docstring mkdocstrings cannot read) fails it. The config and CLI
# reference pages are generated from the code at build time (scripts/docs_hooks.py), so .venv must hold
# gorila: scripts/setup.sh makes it where it is missing. The docs extra (pyproject.toml) is installed
# into .venv when mkdocs is missing, at the versions of constraints.txt. tests/integration/test_docs_site.py
# opens the built site in headless Chromium; with DOCS_BROWSER=required (CI) a Chromium that is missing
# is installed with apt-get (as root, or with sudo that asks no password), and one that cannot be fails
# this script; otherwise it is only reported. Extra arguments go to mkdocs build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] && .venv/bin/python -c "import gorila.config" 2>/dev/null || bash scripts/setup.sh
if ! .venv/bin/python -c "import mkdocs, material, mkdocstrings, mkdocstrings_handlers.python, ruff" 2>/dev/null; then
  log=.venv/docs-setup.log
  .venv/bin/python -m pip install -q -c constraints.txt -e ".[docs]" >"$log" 2>&1 || { cat "$log"; echo "docs: pip install -e '.[docs]' failed"; exit 1; }
fi
browser() { command -v chromium || command -v chromium-browser; } 2>/dev/null
if ! browser >/dev/null; then
  if [ "$(id -u)" = 0 ]; then sudo=(); elif sudo -n true 2>/dev/null; then sudo=(sudo -n); else sudo=(none); fi
  if [ "${sudo[0]:-}" != none ] && command -v apt-get >/dev/null; then
    { "${sudo[@]}" apt-get update -q && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } \
      >.venv/docs-chromium.log 2>&1 || true
  fi
  if ! browser >/dev/null; then
    if [ "${DOCS_BROWSER:-}" = required ]; then
      echo "docs: chromium is missing and could not be installed: apt-get install chromium needs root or password-less sudo (apt-get output, if it ran: .venv/docs-chromium.log)"
      exit 1
    fi
    echo "docs: chromium is missing: tests/integration/test_docs_site.py will skip (apt-get install chromium)"
  fi
fi
export NO_MKDOCS_2_WARNING=1       # else Material prints a banner about its successor on every build
start=$(date +%s)
.venv/bin/mkdocs build --strict -d site "$@"     # not -q: mkdocs 1.6 then counts no warnings for --strict
echo "docs: site/ built in $(( $(date +%s) - start )) s ($(find site -name '*.html' | wc -l) pages)"
