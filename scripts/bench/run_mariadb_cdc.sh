#!/usr/bin/env bash
# The CDC benchmark end to end: ZongJi installed under the build tree (never
# committed), a private MariaDB, the release build of the CLI and the bench,
# the capture, the rendered report. Usage:
#   scripts/bench/run_mariadb_cdc.sh [BUILD_DIR=build/release] [extra mariadb_cdc_bench options]
# LARGE_ONLY=1: only the large-transaction part (--large-sizes 1000000,3000000
# by default; add --large-sizes 1000000,3000000,10000000 for the 10M row),
# merged into the existing capture as "large_transaction".
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
mkdir -p "$build/zongji"
if [ "${LARGE_ONLY:-}" != "1" ] && [ ! -d "$build/zongji/node_modules/@vlasky/zongji" ]; then
  (cd "$build/zongji" && npm install --no-audit --no-fund @vlasky/zongji >/dev/null)
fi
cmake --build "$build" -j2 --target sluice_mariadb_cli mariadb_cdc_bench
servers="$build/servers-own/cdc-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb
capture="$here/docs/benchmarks/mariadb-cdc-capture.json"
if [ "${LARGE_ONLY:-}" = "1" ]; then
  part=$(mktemp)
  "$build/mariadb/bench/cdc/mariadb_cdc_bench" --env "$servers/env" --cli "$build/mariadb/tools/sluice-mariadb" \
    --large-only "$part" "$@"
  python3 - "$capture" "$part" <<'EOF'
import json, sys
capture, part = sys.argv[1], sys.argv[2]
with open(capture) as f:
    c = json.load(f)
with open(part) as f:
    p = json.load(f)
c["large_transaction"] = p
with open(capture, "w") as f:
    json.dump(c, f, indent=2)
    f.write("\n")
EOF
  rm -f "$part"
else
  "$build/mariadb/bench/cdc/mariadb_cdc_bench" --env "$servers/env" --cli "$build/mariadb/tools/sluice-mariadb" \
    --zongji "$build/zongji" --out "$capture" "$@"
fi
"$here/scripts/bench/render_mariadb_cdc.py" "$capture" -o "$here/docs/benchmarks/mariadb-cdc.md" \
  --command "scripts/bench/run_mariadb_cdc.sh $* (capture: docs/benchmarks/mariadb-cdc-capture.json)"
