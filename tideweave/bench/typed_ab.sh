#!/bin/sh
# Interleaved A/B runs of the typed API's batched stream (2M inserts, 64
# keys, 1000 per transaction): `tideweave_bench --typed-only 5` for each
# binary in turn, ROUNDS times, then the median rate (M inserts per CPU
# second) and bytes per event of each binary. Interleaved because the
# machine is shared: a neighbour's build slows every binary of a round alike.
#
#   tideweave/bench/typed_ab.sh ROUNDS BENCH_A BENCH_B [BENCH...]
#   e.g. tideweave/bench/typed_ab.sh 5 /tmp/base/tideweave_bench build/release/tideweave/bench/tideweave_bench
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 ROUNDS BENCH [BENCH...]" >&2
    exit 2
fi
rounds=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
round=1
while [ "$round" -le "$rounds" ]; do
    for bench in "$@"; do
        out=$("$bench" --typed-only 5)
        rate=$(printf '%s\n' "$out" | sed -n 's/^  = \([0-9.]*\) M inserts\/s per CPU second.*/\1/p')
        bytes=$(printf '%s\n' "$out" | sed -n 's/^  engine at its peak: \([0-9.]*\) bytes per event.*/\1/p')
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        echo "round $round  $bench  $rate M/s  $bytes B/event  (load $load)"
        echo "$bench $rate $bytes" >>"$log"
    done
    round=$((round + 1))
done
echo "medians over $rounds rounds:"
for bench in "$@"; do
    rate=$(awk -v b="$bench" '$1 == b {print $2}' "$log" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
    bytes=$(awk -v b="$bench" '$1 == b {print $3}' "$log" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')
    echo "  $bench  $rate M inserts/s per CPU second  $bytes bytes/event"
done
