#!/usr/bin/env bash
# A probe for issue 25, not yet the pipeline report's `large transaction`
# row (pipeline_bench has no such scenario yet): sluice-pipeline --until-end
# over N rows inserted in ONE source transaction against the same rows in
# 1,000-row transactions, on private MariaDB and PostgreSQL; wall time,
# rows/s and peak RSS (/usr/bin/time %M, the VmHWM) of each run.
#   scripts/bench/probe_large_transaction.sh [N=1000000] [TS_DIVISOR=80] [BUILD_DIR=build/release]
# Rows: id, key 'k' || id % 1000, ts id / TS_DIVISOR, value id % 97 + 0.5
# (TS_DIVISOR 80: every row its own session, as pipeline_bench's rows;
# 800: 1,000 sessions).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-1000000}
DIV=${2:-80}
build=${3:-$here/build/release}
cmake --build "$build" -j2 --target sluice_pipeline_cli >/dev/null
source "$here/scripts/bench/lib/private_servers.sh"
bench_servers_start "$build/servers-own/large-transaction" mariadb,postgres
set -a
# shellcheck disable=SC1091
source "$BENCH_SERVERS_DIR/env"
set +a
my() {
  mariadb --host=127.0.0.1 --port="$SLUICE_MARIADB_PORT" --user="$SLUICE_MARIADB_ADMIN_USER" \
    --password="$SLUICE_MARIADB_ADMIN_PASSWORD" -N -B "$@"
}
gen="SELECT n, CONCAT('k', n MOD 1000), n DIV $DIV, n MOD 97 + 0.5 FROM s"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
for shape in one thousand; do
  my -e "DROP DATABASE IF EXISTS large; CREATE DATABASE large;
         CREATE TABLE large.t (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)"
  start=$(my -e "SELECT @@global.gtid_binlog_pos")
  if [ "$shape" = one ]; then
    my -e "SET SESSION max_recursive_iterations = 100000000;
           INSERT INTO large.t WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < $N) $gen"
  else
    { echo "SET SESSION max_recursive_iterations = 100000000;"
      for ((b = 0; b < N; b += 1000)); do
        echo "INSERT INTO large.t WITH RECURSIVE s(n) AS (SELECT $((b + 1)) UNION ALL SELECT n + 1 FROM s WHERE n < $((b + 1000))) $gen;"
      done; } | my
  fi
  PGOPTIONS=--client-min-messages=warning psql "$SLUICE_PG_URL" -q -c "drop table if exists large_$shape, large_${shape}_late, large_${shape}_rejected" \
    -c "create table if not exists sluice_pipeline_state (name text primary key, gtid text not null, checkpoint bytea, settings text not null)" \
    -c "delete from sluice_pipeline_state where name = 'large_$shape'"
  out=$({ /usr/bin/time -f "%e %M" "$build/pipeline/cli/sluice-pipeline" run --source "$SLUICE_MARIADB_URL" \
          --table large.t --id id --key k --ts t --value v --sink "$SLUICE_PG_URL" --sink-table "large_$shape" \
          --from-gtid "$start" --until-end --quiet; } 2>&1)
  read -r wall kib <<<"$(echo "$out" | tail -1)"
  echo "$shape transaction(s): N=$N ts=id/$DIV wall ${wall} s, $(python3 -c "print(round($N / $wall))") rows/s," \
       "peak RSS $((kib / 1024)) MiB, $(psql "$SLUICE_PG_URL" -tA -c "select count(*) from large_$shape") sessions"
done
