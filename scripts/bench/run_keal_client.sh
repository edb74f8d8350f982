#!/usr/bin/env bash
# The Keal client benchmark, one command: builds keal_client_bench in the
# release preset, runs it (--runs N, default 9; a private PostgreSQL unless
# $SLUICE_ENV_FILE names running servers), writes
# docs/benchmarks/keal-client-capture.json and renders docs/benchmarks/keal-client.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
runs=${1:-9}
if [ ! -f build/release/CMakeCache.txt ]; then
  cmake --preset release -DSLUICE_PARTS="postgres;keal" >/dev/null
fi
cmake --build build/release -j2 --target keal_client_bench
# The private PostgreSQL is started here rather than by the bench (which
# would, without $SLUICE_ENV_FILE): a Ctrl-C kills the bench before its
# destructors run, but this script's traps still stop the server.
if [ -z "${SLUICE_ENV_FILE:-}" ]; then
  source scripts/bench/lib/private_servers.sh
  bench_servers_start "$root/build/release/servers-own/keal-client-bench" postgres
  export SLUICE_ENV_FILE="$BENCH_SERVERS_DIR/env"
fi
build/release/keal/bench/keal_client_bench --runs "$runs" --json docs/benchmarks/keal-client-capture.json
python3 scripts/bench/render_keal_client.py docs/benchmarks/keal-client-capture.json \
  -o docs/benchmarks/keal-client.md --date "$(date -u '+%Y-%m-%d %H:%M UTC')"
echo "rendered docs/benchmarks/keal-client.md"
