#!/usr/bin/env bash
# The speed bench's many-connections rows (issue 29) end to end: the release
# build of mariadb_speed_bench, a private MariaDB, the two profiles
# (point_async_64: 64 connections on one thread through sluice's
# AsioConnection and Connector/C's non-blocking API on poll;
# point_threads_64: 64 blocking threads), the capture, and
# docs/benchmarks/mariadb.md rendered from the speed bench's capture, the
# pipeline capture and this one. Usage:
#   [PROCESSES=7] [WARMUPS=1] [REPS=3] scripts/bench/run_mariadb_async.sh [BUILD_DIR=build/release] \
#       [extra mariadb_speed_bench options]
# About 5 minutes on the 2-CPU development machine with the defaults.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset release -B "$build" -DSLUICE_PARTS=mariadb -DSLUICE_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$build" -j2 --target mariadb_speed_bench
servers="$build/servers-own/mariadb-async-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb
# One capture of these rows: a new run replaces it (git keeps the earlier ones).
capture="$here/docs/benchmarks/mariadb-async-capture.json"
"$build/mariadb/bench/speed/mariadb_speed_bench" --env "$servers/env" --processes "${PROCESSES:-7}" \
  --warmups "${WARMUPS:-1}" --reps "${REPS:-3}" \
  --only point_async_64,point_threads_64 --out "$capture" "$@"
cd "$here/docs/benchmarks"
"$here/scripts/bench/render_mariadb_speed.py" mariadb-speed-capture.json mariadb-pipeline-capture.json \
  mariadb-async-capture.json -o mariadb.md
