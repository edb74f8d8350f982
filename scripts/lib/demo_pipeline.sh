#!/usr/bin/env bash
# The pipeline demo (`scripts/demo`): private MariaDB and PostgreSQL on
# loopback, a stream of sensor readings with updates and deletes written into
# MariaDB, `sluice-pipeline` following it into PostgreSQL, killed once with
# SIGKILL mid-stream and restarted, then compared with an uninterrupted run
# over the same transactions; a few sessions through a Keal function
# deployed into the sink; the servers stopped at the end.
# SLUICE_DEMO_BUILD_DIR=build/dev uses binaries already built there.
set -euo pipefail
cd "$(dirname "$0")/../.."

work=build/demo-pipeline
mkdir -p "$work"
servers="$work/servers"
log_dir=$(mktemp -d /tmp/sluice-demo-pipeline.XXXXXX)
# Where `keal deploy` puts the function's library: the PostgreSQL server runs
# as another user and loads it from there, so this directory must let others
# in (mktemp -d makes 0700, which the server cannot enter: the demo failed
# there).
lib_dir=$(mktemp -d /tmp/sluice-demo-keal-lib.XXXXXX)
chmod 0755 "$lib_dir"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2> /dev/null || true; done
  scripts/servers/stop --dir "$servers" > /dev/null 2>&1 || true
  rm -rf "$log_dir" "$lib_dir"
}
trap cleanup EXIT

quietly() {
  if ! "$@" > "$log_dir/step.log" 2>&1; then
    tail -n 40 "$log_dir/step.log" >&2
    echo "demo: failed: $*" >&2
    exit 1
  fi
}

build=${SLUICE_DEMO_BUILD_DIR:-}
if [ -z "$build" ]; then
  scripts/setup
  echo "demo: building sluice-pipeline and keal (release preset)..."
  quietly cmake --preset release
  quietly cmake --build build/release --target sluice_pipeline_cli keal -j"$(nproc)"
  build=build/release
fi
pipeline=$build/pipeline/cli/sluice-pipeline
keal=$build/keal/src/keal

echo "demo: starting private MariaDB and PostgreSQL..."
quietly scripts/servers/start --dir "$servers" --only mariadb,postgres
# shellcheck disable=SC1091
. "$servers/env"
sql() { mariadb --no-defaults -h 127.0.0.1 -P "$SLUICE_MARIADB_PORT" -u "$SLUICE_MARIADB_ADMIN_USER" \
          -p"$SLUICE_MARIADB_ADMIN_PASSWORD" -N -B "$@"; }
pg() { psql "$SLUICE_PG_URL" -X -q -A -t "$@"; }

sql -e "CREATE DATABASE demo; CREATE TABLE demo.readings (id INT PRIMARY KEY, sensor VARCHAR(16), t BIGINT, reading DOUBLE)"
start=$(sql -e "SELECT @@global.gtid_binlog_pos")

# The stream: 1500 transactions over 8 sensors, time t advancing, now and
# then a late reading, an update that corrects a reading or moves it to
# another sensor or time, a delete, a reading without a time (rejected).
awk -v seed=42 'BEGIN {
  srand(seed); t = 0; n = 0
  for (x = 0; x < 1500; x++) {
    print "START TRANSACTION;"
    k = 1 + int(rand() * 3)
    for (j = 0; j < k; j++) {
      t += int(rand() * 3); r = rand()
      if (r < 0.7 || n < 10) {
        n++; ts = t - (rand() < 0.05 ? 40 + int(rand() * 40) : int(rand() * 5))
        tv = (rand() < 0.01) ? "NULL" : ts
        printf "INSERT INTO demo.readings VALUES (%d, \"s%d\", %s, %.2f);\n", n, int(rand() * 8), tv, 15 + rand() * 10
      } else if (r < 0.9) {
        id = 1 + int(rand() * n)
        if (rand() < 0.5) printf "UPDATE demo.readings SET reading = reading + 0.5 WHERE id = %d;\n", id
        else printf "UPDATE demo.readings SET sensor = \"s%d\", t = t + %d WHERE id = %d;\n", int(rand() * 8), int(rand() * 20) - 10, id
      } else {
        printf "DELETE FROM demo.readings WHERE id = %d;\n", 1 + int(rand() * n)
      }
    }
    print "COMMIT;"
    if (x % 10 == 9) print "DO SLEEP(0.02);"
  }
}' > "$work/stream.sql"

args=(run --source "$SLUICE_MARIADB_URL" --table demo.readings --id id --key sensor --ts t --value reading
      --sink "$SLUICE_PG_URL" --gap 10 --lateness 20 --quiet)

echo "demo: writing the stream while sluice-pipeline follows it..."
sql < "$work/stream.sql" &
writer=$!
pids+=("$writer")
"$pipeline" "${args[@]}" --sink-table readings --from-gtid "$start" 2> "$log_dir/first.log" &
first=$!
pids+=("$first")
sleep 2
kill -9 "$first"
wait "$first" 2> /dev/null || true
at_kill=$(pg -c "select coalesce((select gtid from sluice_pipeline_state where name = 'readings'), 'nothing yet')")
echo "demo: killed sluice-pipeline with SIGKILL mid-stream (the sink held GTID $at_kill); restarting the same command..."
"$pipeline" "${args[@]}" --sink-table readings --from-gtid "$start" 2> "$log_dir/second.log" &
second=$!
pids+=("$second")
wait "$writer"
end=$(sql -e "SELECT @@global.gtid_binlog_pos")
for _ in $(seq 1 600); do
  [ "$(pg -c "select gtid from sluice_pipeline_state where name = 'readings'")" = "$end" ] && break
  sleep 0.1
done
kill -9 "$second"
wait "$second" 2> /dev/null || true

echo "demo: the same transactions again, uninterrupted, into readings_uninterrupted..."
quietly "$pipeline" "${args[@]}" --sink-table readings_uninterrupted --from-gtid "$start" --until-end

diff_rows() {  # rows of $1 not in $2, for the sessions and the late mutations
  pg -c "select count(*) from (select key, start, \"end\", count, sum, min, max, final from $1
                                except select key, start, \"end\", count, sum, min, max, final from $2) d" \
     -c "select count(*) from (select id, key, ts, gtid, seq, op, value from ${1}_late
                                except select id, key, ts, gtid, seq, op, value from ${2}_late) d"
}
differences=$( (diff_rows readings readings_uninterrupted; diff_rows readings_uninterrupted readings) | awk '{ s += $1 } END { print s }')
same=$([ "$differences" = 0 ] && echo "yes: identical sessions and late mutations" || echo "NO: $differences rows differ")

cat > "$log_dir/summary.keal" <<'KEAL'
/// One line per session: its sensor, time span, readings, mean and state.
export fn session_line(sensor: text, first: int, stop: int, n: int, total: float, done: bool) -> text {
    var state = "open"
    if done { state = "final" }
    return sensor + " [" + text(first) + ", " + text(stop) + "): " + text(n) + " readings, mean " + text(total / float(n)) + " (" + state + ")"
}
KEAL
quietly "$keal" deploy "$log_dir/summary.keal" --db "$SLUICE_PG_URL" --lib-dir "$lib_dir"

cat <<SUMMARY

Pipeline demo: MariaDB demo.readings -> Tideweave sessions (gap 10, lateness 20) -> PostgreSQL
  source               $(sql -e "SELECT COUNT(*) FROM demo.readings") rows now, after $(grep -c '^COMMIT' "$work/stream.sql") transactions with updates and deletes
  sessions             $(pg -c "select count(*) from readings") rows in readings, $(pg -c "select count(*) from readings where final") of them final
  late mutations       $(pg -c "select count(*) from readings_late") in readings_late ($(pg -c "select count(*) from readings_late where op = 'retract'") retractions)
  rejected rows        $(pg -c "select count(*) from readings_rejected") in readings_rejected (no time)
  killed and restarted equals an uninterrupted run: $same
  a few sessions through the Keal function session_line():
$(pg -c "select '    ' || session_line(key, start, \"end\", count, sum, final) from readings order by count desc, key, start limit 5")
SUMMARY
