#!/usr/bin/env bash
# The CDC benchmark end to end: ZongJi installed under the build tree (never
# committed), a private MariaDB, the release build of the CLI and the bench,
# the capture, the rendered report. Usage:
#   scripts/bench/run_mariadb_cdc.sh [BUILD_DIR=build/release] [--failover-only] [extra mariadb_cdc_bench options]
# LARGE_ONLY=1: only the large-transaction part (--large-sizes 1000000,3000000
# by default; add --large-sizes 1000000,3000000,10000000 for the 10M row),
# merged into the existing capture as "large_transaction".
# --failover-only: measure the failover section alone (issue 26) and put it
# into the existing capture, keeping its other sections (and their date).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
failover_only=0
if [ "${1:-}" = --failover-only ]; then failover_only=1; shift; fi
capture="$here/docs/benchmarks/mariadb-cdc-capture.json"

# Failover (issue 26): a fresh primary and replica per run (the bench starts
# and stops them itself), the time from the replica's promotion to the first
# transaction delivered from it, put into the capture under "failover".
failover_section() {
  cmake --build "$build" -j2 --target sluice_mariadb_cli mariadb_cdc_failover_bench
  local scratch="$build/servers-own/cdc-failover-bench" fragment
  fragment=$(mktemp)
  "$build/mariadb/bench/cdc/mariadb_cdc_failover_bench" --cli "$build/mariadb/tools/sluice-mariadb" \
    --dir "$scratch" --out "$fragment"
  python3 - "$capture" "$fragment" "scripts/bench/run_mariadb_cdc.sh ${build#$here/} $1" <<'PY'
import json, sys
capture, fragment = sys.argv[1], sys.argv[2]
with open(capture) as f:
    cap = json.load(f)
with open(fragment) as f:
    cap["failover"] = json.load(f)
cap["failover"]["command"] = sys.argv[3]
with open(capture, "w") as f:
    json.dump(cap, f, indent=2)
    f.write("\n")
PY
  rm -f "$fragment"
}

command="scripts/bench/run_mariadb_cdc.sh $* (capture: docs/benchmarks/mariadb-cdc-capture.json)"
if [ $failover_only = 0 ]; then
mkdir -p "$build/zongji"
if [ "${LARGE_ONLY:-}" != "1" ] && [ ! -d "$build/zongji/node_modules/@vlasky/zongji" ]; then
  (cd "$build/zongji" && npm install --no-audit --no-fund @vlasky/zongji >/dev/null)
fi
cmake --build "$build" -j2 --target sluice_mariadb_cli mariadb_cdc_bench
servers="$build/servers-own/cdc-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb
if [ "${LARGE_ONLY:-}" = "1" ]; then
  part=$(mktemp)
  "$build/mariadb/bench/cdc/mariadb_cdc_bench" --env "$servers/env" --cli "$build/mariadb/tools/sluice-mariadb" \
    --large-only "$part" "$@"
  python3 - "$capture" "$part" "LARGE_ONLY=1 scripts/bench/run_mariadb_cdc.sh ${build#$here/} $*" <<'EOF'
import json, sys
capture, part = sys.argv[1], sys.argv[2]
with open(capture) as f:
    c = json.load(f)
with open(part) as f:
    p = json.load(f)
p["command"] = sys.argv[3]
c["large_transaction"] = p
with open(capture, "w") as f:
    json.dump(c, f, indent=2)
    f.write("\n")
EOF
  rm -f "$part"
  bench_servers_stop_now
  # The other sections are the earlier run's: so is the command they name.
  command=$(sed -n 's/^- Command: `\(.*\)`$/\1/p' "$here/docs/benchmarks/mariadb-cdc.md")
else
  "$build/mariadb/bench/cdc/mariadb_cdc_bench" --env "$servers/env" --cli "$build/mariadb/tools/sluice-mariadb" \
    --zongji "$build/zongji" --out "$capture" "$@"
  bench_servers_stop_now  # idle servers would share the cores with the failover runs
  failover_section ""
fi
else
  # The other sections are the earlier run's: so is the command they name.
  command=$(sed -n 's/^- Command: `\(.*\)`$/\1/p' "$here/docs/benchmarks/mariadb-cdc.md")
  failover_section --failover-only
fi
"$here/scripts/bench/render_mariadb_cdc.py" "$capture" -o "$here/docs/benchmarks/mariadb-cdc.md" --command "$command"
