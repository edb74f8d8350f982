#!/usr/bin/env bash
# What --metrics costs (issue 27): a catch-up of sluice-mariadb cdc and of
# sluice-pipeline run, each with `--metrics 127.0.0.1:0` and a scrape of
# /metrics every second, against the same command without, interleaved
# (off, on, off, on, ...) on private servers; medians of wall time and of the
# process's CPU time (user + system), and the cost on/off - 1. Usage:
#   scripts/bench/run_metrics_cost.sh [BUILD_DIR=build/release] [--runs N] [--rows N] [--only cdc|pipeline]
# Prints a Markdown table (docs/benchmarks/metrics-cost.md keeps one).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$here/build/release}
shift || true
cmake --build "$build" -j2 --target sluice_mariadb_cli sluice_pipeline_cli >/dev/null
cdc="$build/mariadb/tools/sluice-mariadb"
pipeline="$build/pipeline/cli/sluice-pipeline"
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$build/servers-own/metrics-cost" mariadb,postgres
python3 "$here/scripts/bench/metrics_cost.py" --cdc "$cdc" --pipeline "$pipeline" --env "$BENCH_SERVERS_DIR/env" "$@"
