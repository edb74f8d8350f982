#!/usr/bin/env bash
# The pipeline benchmark end to end: private MariaDB and PostgreSQL, the
# release build of sluice-pipeline, tideweave and the bench, the capture and
# the rendered report. Usage:
#   scripts/bench/run_pipeline.sh [BUILD_DIR=build/release] [extra pipeline_bench options]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
# Warnings as errors in what the bench builds: GCC -O2 warns of paths the dev
# build never shows (docs/release-warnings.md).
cmake "$build" -DSLUICE_WERROR=ON >/dev/null
cmake --build "$build" -j2 --target sluice_pipeline_cli tideweave pipeline_bench
servers="$build/servers-own/pipeline-bench"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$servers" mariadb,postgres
capture="$here/docs/benchmarks/pipeline-capture.json"
"$build/pipeline/bench/pipeline_bench" --env "$servers/env" --pipeline "$build/pipeline/cli/sluice-pipeline" \
  --tideweave "$build/tideweave/cli/tideweave" --work "$build" --out "$capture" "$@"
"$here/scripts/bench/render_pipeline.py" "$capture" -o "$here/docs/benchmarks/pipeline.md" \
  --command "scripts/bench/run_pipeline.sh $*" --date "$(date -u +%Y-%m-%d)"
