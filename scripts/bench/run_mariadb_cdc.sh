#!/usr/bin/env bash
# The CDC benchmark end to end: ZongJi installed under the build tree (never
# committed), a private MariaDB, the release build of the CLI and the bench,
# the capture, the rendered report. Usage:
#   scripts/bench/run_mariadb_cdc.sh [BUILD_DIR=build/release] [extra mariadb_cdc_bench options]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
mkdir -p "$build/zongji"
if [ ! -d "$build/zongji/node_modules/@vlasky/zongji" ]; then
  (cd "$build/zongji" && npm install --no-audit --no-fund @vlasky/zongji >/dev/null)
fi
cmake --build "$build" -j2 --target sluice_mariadb_cli mariadb_cdc_bench
servers="$build/servers-own/cdc-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb
capture="$here/docs/benchmarks/mariadb-cdc-capture.json"
"$build/mariadb/bench/cdc/mariadb_cdc_bench" --env "$servers/env" --cli "$build/mariadb/tools/sluice-mariadb" \
  --zongji "$build/zongji" --out "$capture" "$@"
"$here/scripts/bench/render_mariadb_cdc.py" "$capture" -o "$here/docs/benchmarks/mariadb-cdc.md" \
  --command "scripts/bench/run_mariadb_cdc.sh $* (capture: docs/benchmarks/mariadb-cdc-capture.json)"
