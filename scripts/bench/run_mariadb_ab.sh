#!/usr/bin/env bash
# Issue 29's A/B of the blocking rows: builds this tree's mariadb_speed_bench
# and a base commit's (default 35dcb6d, the commit before the exchanges
# redesign; its tree from git archive, so no checkout), starts one private
# MariaDB and runs scripts/bench/ab_mariadb_blocking.py on both; the capture is
# docs/benchmarks/mariadb-ab-capture.json, its report docs/benchmarks/mariadb-ab.md. Usage:
#   [A_BUILD=build/release] scripts/bench/run_mariadb_ab.sh [BASE_COMMIT] [ab_mariadb_blocking.py options, e.g. --pairs 5]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
base=${1:-35dcb6d}
shift || true
a_build=${A_BUILD:-$here/build/release}
if [ ! -f "$a_build/CMakeCache.txt" ]; then
  cmake --preset release -B "$a_build" -DSLUICE_PARTS=mariadb -DSLUICE_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$a_build" -j2 --target mariadb_speed_bench
source "$here/scripts/bench/lib/base_build.sh"
b_bench=$(bench_base_build "$base")
servers="$a_build/servers-own/mariadb-ab-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb
# The driver makes the data tables once (a child expects them).
"$a_build/mariadb/bench/speed/mariadb_speed_bench" --env "$servers/env" --only point_sequential --processes 1 \
  --warmups 0 --reps 1 --out "$servers/table-setup-run.json" >/dev/null
"$here/scripts/bench/ab_mariadb_blocking.py" --a "$a_build/mariadb/bench/speed/mariadb_speed_bench" \
  --b "$b_bench" --b-label "commit $base (git archive)" \
  --env "$servers/env" --out "$here/docs/benchmarks/mariadb-ab-capture.json" "$@" >/dev/null
# One capture and its report: a new run replaces both (git keeps the earlier ones).
"$here/scripts/bench/ab_mariadb_blocking.py" --render "$here/docs/benchmarks/mariadb-ab-capture.json" \
  > "$here/docs/benchmarks/mariadb-ab.md"
cat "$here/docs/benchmarks/mariadb-ab.md"
