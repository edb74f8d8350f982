#!/usr/bin/env bash
# The scaled-out pipeline benchmark end to end: private MariaDB, PostgreSQL
# and a three-node NATS JetStream cluster, the release build of
# sluice-pipeline, sluice-mariadb and the bench, the capture and the rendered
# report. Usage:
#   scripts/bench/run_pipeline_scaleout.sh [BUILD_DIR=build/release] [extra scaleout_bench options]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
# Warnings as errors in what the bench builds: GCC -O2 warns of paths the dev
# build never shows (docs/release-warnings.md).
cmake "$build" -DSLUICE_WERROR=ON >/dev/null
cmake --build "$build" -j2 --target sluice_pipeline_cli sluice_mariadb_cli pipeline_scaleout_bench
servers="$build/servers-own/pipeline-scaleout-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb,postgres,nats
capture="$here/docs/benchmarks/pipeline-scaleout-capture.json"
"$build/pipeline/bench/pipeline_scaleout_bench" --env "$servers/env" --pipeline "$build/pipeline/cli/sluice-pipeline" \
  --mariadb-cli "$build/mariadb/tools/sluice-mariadb" --out "$capture" "$@"
"$here/scripts/bench/render_pipeline_scaleout.py" "$capture" -o "$here/docs/benchmarks/pipeline-scaleout.md" \
  --command "scripts/bench/run_pipeline_scaleout.sh $*" --date "$(date -u +%Y-%m-%d)"
