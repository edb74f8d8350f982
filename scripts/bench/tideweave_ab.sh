#!/usr/bin/env bash
# Runs two tideweave_bench binaries (A: before a change, B: after) interleaved
# A B / B A / A B ..., each writing its raw samples, and gathers every run with
# the load average at its start into one capture for
# scripts/bench/render_tideweave_ab.py.
# Usage: tideweave_ab.sh A_BENCH B_BENCH CAPTURE.json [PAIRS (3)] [extra bench args...]
set -euo pipefail
a=$1 b=$2 capture=$3 pairs=${4:-3}
shift 4 || shift $#
work=$(mktemp -d /tmp/tideweave-ab.XXXXXX)
runs=()
run() {  # label binary index
  local label=$1 bin=$2 i=$3 out="$work/$1-$3"
  shift 3
  local load; load=$(cut -d' ' -f1-3 /proc/loadavg)
  local start; start=$(date -u +%H:%M:%S)
  mkdir -p "$out"
  "$bin" --work-dir "$out" --samples "$out/samples.json" "$@" > "$out/log.txt"
  runs+=("{\"label\":\"$label\",\"run\":$i,\"start_utc\":\"$start\",\"load_average\":\"$load\",\"samples\":$(cat "$out/samples.json")}")
  echo "tideweave_ab: $label run $i at $start (load $load) done" >&2
}
for ((i = 1; i <= pairs; i++)); do
  if ((i % 2)); then run A "$a" "$i" "$@"; run B "$b" "$i" "$@"; else run B "$b" "$i" "$@"; run A "$a" "$i" "$@"; fi
done
{
  echo "{\"machine\": \"$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')\", \"cores\": $(nproc),"
  echo " \"a\": \"$a\", \"b\": \"$b\", \"runs\": ["
  sep=""
  for r in "${runs[@]}"; do echo "$sep$r"; sep=","; done
  echo "]}"
} > "$capture"
echo "tideweave_ab: logs in $work, capture $capture" >&2
