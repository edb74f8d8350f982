#!/usr/bin/env bash
# The three-server Keal benchmark end to end: private MariaDB and PostgreSQL,
# the release build of keal and keal_servers_bench, the capture and the
# rendered report (docs/benchmarks/keal-servers.md). Usage:
#   scripts/bench/run_keal_servers.sh [BUILD_DIR=build/release] [extra keal_servers_bench options]
# e.g. --psm-rows 30000 runs the (slow) SQL/PSM function over fewer rows and
# scales its time to the full row count; the report says so.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
cmake --build "$build" -j2 --target keal keal_servers_bench
servers="$build/servers-own/keal-servers-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb,postgres
capture="$here/docs/benchmarks/keal-servers-capture.json"
"$build/keal/bench/keal_servers_bench" --env "$servers/env" --work "$build" --out "$capture" "$@"
"$here/scripts/bench/render_keal_servers.py" "$capture" -o "$here/docs/benchmarks/keal-servers.md" \
  --command "scripts/bench/run_keal_servers.sh $*" --date "$(date -u +%Y-%m-%d)"
