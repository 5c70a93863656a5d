#!/usr/bin/env bash
# The resident memory of a run's processes over its life, for `benchmarks/atari_baseline.py --memory`.
# Every SECONDS (default 60) until PID exits, one line per process (PID and every descendant, which
# on Ray are the raylet's workers only when PID started Ray itself): `unix_time pid rss_kb command`.
#
# Usage: bash benchmarks/memwatch.sh PID OUT [SECONDS] &
set -u
pid=$1 out=$2 every=${3:-60}
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
while kill -0 "$pid" 2>/dev/null; do
  now=$(date +%s)
  for p in "$pid" $(descendants "$pid"); do
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null)
    [ -n "$rss" ] && echo "$now $p $rss $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-80)"
  done >> "$out"
  sleep "$every"
done
