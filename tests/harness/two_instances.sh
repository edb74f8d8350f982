#!/usr/bin/env bash
# Two instances started at the same moment (as two checkouts on one machine
# would) both come up, on different ports and data directories, and each
# stop leaves the other running.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
servers=$(cd "$here/../../scripts/servers" && pwd)

base=${SLUICE_OWN_SERVERS_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
a=$(mktemp -d "$base/twin-a.XXXXXX")
b=$(mktemp -d "$base/twin-b.XXXXXX")
cleanup() {
  "$servers/stop" --dir "$a" >/dev/null 2>&1 || true
  "$servers/stop" --dir "$b" >/dev/null 2>&1 || true
  rm -rf "$a" "$b"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The KDC and PostgreSQL: cheap to start, and between them TCP and UDP ports.
"$servers/start" --dir "$a" --only kdc,postgres & job_a=$!
"$servers/start" --dir "$b" --only kdc,postgres & job_b=$!
wait $job_a || fail "instance A did not start"
wait $job_b || fail "instance B did not start"

port() { sed -n "s/^$2=//p" "$1/env"; }
for key in SLUICE_KDC_PORT SLUICE_PG_PORT; do
  pa=$(port "$a" $key) pb=$(port "$b" $key)
  [ -n "$pa" ] && [ "$pa" != "$pb" ] || fail "$key: A has '$pa', B has '$pb'"
done
[ "$(cat "$a/datadir")" != "$(cat "$b/datadir")" ] || fail "both instances share a data directory"
psql -X -A -t "$(port "$a" SLUICE_PG_URL)" -c "CREATE TABLE only_in_a (x int)" >/dev/null
got=$(psql -X -A -t "$(port "$b" SLUICE_PG_URL)" -c "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'")
expect_equal "a table made in A, seen from B" 0 "$got"

summary="ports $(port "$a" SLUICE_PG_PORT)/$(port "$b" SLUICE_PG_PORT), KDC $(port "$a" SLUICE_KDC_PORT)/$(port "$b" SLUICE_KDC_PORT)"
"$servers/stop" --dir "$a" >/dev/null || fail "stopping A failed"
"$servers/status" --dir "$b" || fail "stopping A took B down"
psql -X -A -t "$(port "$b" SLUICE_PG_URL)" -c "SELECT 1" >/dev/null || fail "B's PostgreSQL does not answer after A's stop"
pass "two instances side by side: $summary"
