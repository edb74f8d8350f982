#!/usr/bin/env bash
# The many-connections row (point_async_64) of this tree against earlier
# commits, interleaved (scripts/bench/ab_mariadb_async.py), with
# Connector/C's non-blocking API as the reference: each commit's
# mariadb_speed_bench built from git archive beside this tree, one private
# MariaDB. The capture is docs/benchmarks/mariadb-async-ab-capture.json, its
# report docs/benchmarks/mariadb-async-ab.md. Usage:
#   [A_BUILD=build/release] scripts/bench/run_mariadb_async_ab.sh [COMMIT...] [-- ab_mariadb_async.py options]
# e.g. scripts/bench/run_mariadb_async_ab.sh f8a742c cb19928 -- --rounds 10
# or, this tree alone with work added per reply (how much of a client's own
# work shows in its CPU; docs/mariadb-speed.md):
#   scripts/bench/run_mariadb_async_ab.sh -- --rounds 10 --extra-work-ns 1000,2000,4000
# About 2 minutes per 5 rounds and contender, plus the builds.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
commits=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do commits+=("$1"); shift; done
[ "${1:-}" != "--" ] || shift
a_build=${A_BUILD:-$here/build/release}
if [ ! -f "$a_build/CMakeCache.txt" ]; then
  cmake --preset release -B "$a_build" -DSLUICE_PARTS=mariadb -DSLUICE_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$a_build" -j2 --target mariadb_speed_bench
a_bench=$(cd "$a_build" && pwd)/mariadb/bench/speed/mariadb_speed_bench
source "$here/scripts/bench/lib/base_build.sh"
builds=(--build "this tree ($(git -C "$here" rev-parse --short HEAD))=$a_bench")
for c in ${commits[@]+"${commits[@]}"}; do
  builds+=(--build "commit $c=$(bench_base_build "$c")")
done
servers="$a_build/servers-own/mariadb-async-ab-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb
# The driver makes the data tables once (a child expects them).
"$a_bench" --env "$BENCH_SERVERS_DIR/env" --only point_async_64 --processes 1 --warmups 0 --reps 1 \
  --out "$BENCH_SERVERS_DIR/table-setup-run.json" >/dev/null
"$here/scripts/bench/ab_mariadb_async.py" "${builds[@]}" --env "$BENCH_SERVERS_DIR/env" \
  --out "$here/docs/benchmarks/mariadb-async-ab-capture.json" "$@" >/dev/null
# One capture and its report: a new run replaces both (git keeps the earlier ones).
"$here/scripts/bench/ab_mariadb_async.py" --render "$here/docs/benchmarks/mariadb-async-ab-capture.json" \
  > "$here/docs/benchmarks/mariadb-async-ab.md"
cat "$here/docs/benchmarks/mariadb-async-ab.md"
