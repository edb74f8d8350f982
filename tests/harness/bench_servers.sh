#!/usr/bin/env bash
# scripts/bench/lib/private_servers.sh: a benchmark script's private server
# stops however the script ends: normally, on an error under set -e, on
# SIGINT (Ctrl-C), SIGTERM and SIGHUP; and a stop that fails is printed and
# fails the script. A private PostgreSQL (the fastest to start) each time.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
root=$(cd "$here/../.." && pwd)

base=${SLUICE_OWN_SERVERS_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
work=$(mktemp -d "$base/bench-servers.XXXXXX")
cleanup() { "$root/scripts/servers/stop" --dir "$work/servers" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# A benchmark script: starts the server, writes its PID where we can see it,
# then does what $1 says.
cat >"$work/bench.sh" <<SCRIPT
#!/usr/bin/env bash
set -euo pipefail
source "$root/scripts/bench/lib/private_servers.sh"
case "\$1" in
  relative) cd "$work" && bench_servers_start servers postgres && cd / ;;
  *) bench_servers_start "$work/servers" postgres ;;
esac
cat "$work/servers/postgres.pid" >"$work/pid"
case "\$1" in
  ok|relative) ;;
  error) false ;;
  wait) touch "$work/ready"; sleep 60 ;;
esac
echo "not reached after an error" >"$work/after"
SCRIPT
chmod +x "$work/bench.sh"

gone() {  # PID: no postgres runs under it any more
  local i
  for ((i = 0; i < 100; i++)); do
    [[ "$(cat "/proc/$1/comm" 2>/dev/null)" == postgres ]] || return 0
    sleep 0.1
  done
  return 1
}
run_case() {  # CASE [SIGNAL]: runs the script (its environment passed on), returns its exit status
  rm -f "$work/pid" "$work/ready" "$work/after"
  # Its own process group, signalled as a whole (as a terminal's Ctrl-C
  # does); SIGINT set back to its default (a background job inherits it
  # ignored, and bash cannot trap a signal ignored at its start).
  setsid env --default-signal=INT "$work/bench.sh" "$1" >"$work/out" 2>&1 &
  local job=$! status=0
  if [ -n "${2:-}" ]; then
    local i
    for ((i = 0; i < 600; i++)); do [ ! -f "$work/ready" ] || break; sleep 0.1; done
    [ -f "$work/ready" ] || fail "$1: the script never got to its work"
    kill "-$2" -- "-$job"
  fi
  wait "$job" || status=$?
  [ -s "$work/pid" ] || fail "$1: the server did not start: $(cat "$work/out")"
  return $status
}

status=0; run_case ok || status=$?
expect_equal "exit status of a script that succeeded" 0 "$status"
gone "$(cat "$work/pid")" || fail "the server runs on after a normal exit"
pass "stopped after a normal exit"

# Started with a relative directory, then the script changed directory (as
# run_mariadb_async.sh did to render its report): the stop still finds it.
status=0; run_case relative || status=$?
expect_equal "exit status of a script that started relative and moved" 0 "$status"
gone "$(cat "$work/pid")" || fail "the server runs on after a script that changed directory"
pass "stopped after a script that started with a relative directory and changed directory"

status=0; run_case error || status=$?
expect_equal "exit status of a script that failed" 1 "$status"
[ ! -f "$work/after" ] || fail "set -e did not stop the script"
gone "$(cat "$work/pid")" || fail "the server runs on after an error"
pass "stopped after an error"

for sig in INT TERM HUP; do
  status=0; run_case wait "$sig" || status=$?
  [ "$status" -ne 0 ] || fail "SIG$sig: the script exited 0"
  gone "$(cat "$work/pid")" || fail "the server runs on after SIG$sig"
  pass "stopped after SIG$sig (exit $status)"
done

# A stop that fails (a stand-in that says why and exits 1: a real stop
# fails only when a server survives SIGKILL) is printed and fails the
# script that had succeeded; then the server is stopped for real.
cat >"$work/failing-stop" <<'STOP'
#!/usr/bin/env bash
echo "servers/stop: postgres (pid 1234) is still running after SIGKILL" >&2
exit 1
STOP
chmod +x "$work/failing-stop"
status=0; BENCH_SERVERS_STOP="$work/failing-stop" run_case ok || status=$?
[ "$status" -ne 0 ] || fail "a failed stop left the exit status 0"
grep -q "still running after SIGKILL" "$work/out" || fail "stop's own words were not printed: $(cat "$work/out")"
grep -q "stopping the private servers in $work/servers failed" "$work/out" ||
  fail "the failed stop was not printed: $(cat "$work/out")"
pass "a failed stop is printed and fails the script (exit $status)"
"$root/scripts/servers/stop" --dir "$work/servers" >/dev/null || fail "the second stop failed"
gone "$(cat "$work/pid")" || fail "the server runs on after the second stop"
