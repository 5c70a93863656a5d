# The flags device.sh and device_pqn.sh share, parsed once: source it with the script's arguments and
# a name (`. benchmarks/device_args.sh NAME "$@"`). It sets smoke, wheels, out, minutes and start, makes
# $out (a smoke run's figures say nothing worth keeping: a temporary folder; otherwise
# benchmarks/results/NAME-<date>), and leaves the script's own flags in the array own
# (a sourced file cannot change its caller's "$@": the caller runs `set -- ${own[@]+"${own[@]}"}`).
name=$1; shift
smoke=0; wheels=""; out=""; minutes=9; own=()
while [ $# -gt 0 ]; do
  case "$1" in
    --smoke) smoke=1 ;;
    --wheels) wheels=$2; shift ;;
    --out) out=$2; shift ;;
    --minutes) minutes=$2; shift ;;
    *) own+=("$1") ;;
  esac
  shift
done
start=$(date +%s)
if [ -z "$out" ]; then
  if [ "$smoke" = 1 ]; then out=$(mktemp -d -t "$name-smoke-XXXXXX"); else out=benchmarks/results/$name-$(date +%Y-%m-%d-%H%M); fi
fi
mkdir -p "$out"
