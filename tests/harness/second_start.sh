#!/usr/bin/env bash
# Issue 32: a start on a directory whose servers run refuses (exit 1, naming
# them and scripts/servers/stop) and leaves them and their env file alone;
# --restart replaces them; the leftovers of a start whose servers died are
# cleaned up by the next start. The env file (every password) is 0600 and
# the directory 0700.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
servers=$(cd "$here/../../scripts/servers" && pwd)

base=${SLUICE_OWN_SERVERS_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
dir=$(mktemp -d "$base/second-start.XXXXXX")
chmod 755 "$dir"  # start must close it
cleanup() { "$servers/stop" --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The KDC: the cheapest server to start.
"$servers/start" --dir "$dir" --only kdc >/dev/null || fail "first start failed"
expect_equal "mode of the env file" 600 "$(stat -c %a "$dir/env")"
expect_equal "mode of the servers directory" 700 "$(stat -c %a "$dir")"
pass "env file 0600 in a 0700 directory"

pid=$(cat "$dir/kdc.pid")
cp "$dir/env" "$dir.env-before"
status=0
"$servers/start" --dir "$dir" --only kdc >"$dir.out" 2>&1 || status=$?
out=$(cat "$dir.out")
rm -f "$dir.out"
expect_equal "exit status of a second start on a live directory" 1 "$status"
[[ "$out" == *"servers of an earlier start are running in $dir: kdc (pid $pid)"* ]] ||
  fail "the refusal does not name the running KDC: $out"
[[ "$out" == *"scripts/servers/stop --dir $dir"* ]] || fail "the refusal does not say how to stop them: $out"
[[ "$out" == *"--restart"* ]] || fail "the refusal does not mention --restart: $out"
cmp -s "$dir/env" "$dir.env-before" || fail "the refused start changed the env file"
"$servers/status" --dir "$dir" >/dev/null || fail "the refused start stopped the running servers"
expect_equal "the KDC's PID after the refused start" "$pid" "$(cat "$dir/kdc.pid")"
pass "a second start refuses: $out"

"$servers/start" --dir "$dir" --only kdc --restart >/dev/null || fail "start --restart failed"
new_pid=$(cat "$dir/kdc.pid")
[ "$new_pid" != "$pid" ] || fail "--restart kept the old KDC (pid $pid)"
cmp -s "$dir/env" "$dir.env-before" && fail "--restart kept the old env file"
rm -f "$dir.env-before"
"$servers/status" --dir "$dir" >/dev/null || fail "status after --restart reports the KDC down"
pass "--restart replaced the KDC (pid $pid -> $new_pid)"

# A start whose servers died: its leftovers (PID files, data directory) are
# cleaned up without --restart.
old_data=$(cat "$dir/datadir")
kill -KILL "$new_pid"
for _ in $(seq 100); do [ -d "/proc/$new_pid" ] && [[ "$(cat "/proc/$new_pid/stat" 2>/dev/null)" != *") Z "* ]] || break; sleep 0.1; done
"$servers/start" --dir "$dir" --only kdc >/dev/null || fail "start after the servers died failed"
[ ! -d "$old_data" ] || fail "the dead start's data directory $old_data was not removed"
pass "a dead start's leftovers are cleaned up"

# /tmp itself (or any shared, sticky directory) is no servers directory:
# closing it to 0700 would lock everyone else out.
shared=$(mktemp -d "$base/shared.XXXXXX")
chmod 1777 "$shared"
status=0
"$servers/start" --dir "$shared" --only kdc >/dev/null 2>&1 || status=$?
expect_equal "exit status of a start on a sticky shared directory" 2 "$status"
expect_equal "mode of the shared directory" 1777 "$(stat -c %a "$shared")"
rm -rf "$shared"
pass "a shared sticky directory is refused and keeps its mode"
