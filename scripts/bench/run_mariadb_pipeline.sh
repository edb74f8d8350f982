#!/usr/bin/env bash
# The speed bench's pipeline rows (issue 17) end to end: the release build
# of mariadb_speed_bench, a private MariaDB, the pipeline profiles only
# (point SELECTs, pipelined/bulk/sequential INSERTs, and the server-floor
# loops), the capture, and docs/benchmarks/mariadb.md rendered from the speed
# bench's capture and this one. Usage:
#   [PROCESSES=7] [WARMUPS=1] [REPS=3] scripts/bench/run_mariadb_pipeline.sh [BUILD_DIR=build/release] \
#       [extra mariadb_speed_bench options]
# About 10 minutes on the 2-CPU development machine with the defaults
# (PROCESSES=3 for a short look).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset release -B "$build" -DSLUICE_PARTS=mariadb >/dev/null
fi
cmake --build "$build" -j2 --target mariadb_speed_bench
# Not pipeline-bench: run_pipeline.sh uses that folder, and a start in it
# stops whatever an earlier start left there.
servers="$build/servers-own/mariadb-pipeline-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb
# One capture of these rows: a new run replaces it (git keeps the earlier ones).
capture="$here/docs/benchmarks/mariadb-pipeline-capture.json"
profiles=point_sequential,point_pipelined_16,point_pipelined_64,point_pipelined_256
profiles+=,insert_pipelined,insert_bulk_20k,insert_sequential_20k,insert_pipelined_unix,insert_bulk_20k_unix
profiles+=,insert_server_loop_20k,insert_server_execute_20k,server_loop_empty_20k
"$build/mariadb/bench/speed/mariadb_speed_bench" --env "$servers/env" --processes "${PROCESSES:-7}" \
  --warmups "${WARMUPS:-1}" --reps "${REPS:-3}" \
  --only "$profiles" --out "$capture" "$@"
cd "$here/docs/benchmarks"
"$here/scripts/bench/render_mariadb_speed.py" mariadb-speed-capture.json mariadb-pipeline-capture.json -o mariadb.md
