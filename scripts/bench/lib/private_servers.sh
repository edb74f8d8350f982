# Private servers for a benchmark script, stopped whenever the script ends:
# normally, on an error (set -e), on Ctrl-C, SIGTERM or SIGHUP. A failed stop
# prints what scripts/servers/stop said and fails the script, so a server
# left running is never silent.
#
#   set -euo pipefail
#   source "$here/scripts/bench/lib/private_servers.sh"
#   bench_servers_start "$build/servers-own/NAME" mariadb,postgres
#   ... "$BENCH_SERVERS_DIR/env" ...
#
# The traps are set before the start, so a Ctrl-C during the start stops
# what it had started too. A script that needs its own EXIT trap calls
# bench_servers_stop_now from it instead.

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
BENCH_SERVERS_DIR=
# The stop command (tests/harness/bench_servers.sh gives one that fails).
BENCH_SERVERS_STOP=${BENCH_SERVERS_STOP:-$BENCH_ROOT/scripts/servers/stop}

# bench_servers_start DIR LIST: scripts/servers/start --dir DIR --only LIST.
bench_servers_start() {
  # Absolute: the stop runs at exit, after the script may have changed
  # directory, and a stop of a directory that is not there says "nothing to
  # stop" and succeeds (a relative build directory left the servers running).
  BENCH_SERVERS_DIR=$(realpath -m -- "$1")
  trap bench_servers_on_exit EXIT
  # Signals end the script through `exit`, which runs the EXIT trap (bash
  # runs it for SIGINT by itself, not for SIGTERM or SIGHUP).
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  "$BENCH_ROOT/scripts/servers/start" --dir "$BENCH_SERVERS_DIR" --only "$2" >/dev/null
}

# Stops the servers; returns 1 (after printing stop's output) on failure.
bench_servers_stop_now() {
  local out
  [ -n "$BENCH_SERVERS_DIR" ] || return 0
  if out=$("$BENCH_SERVERS_STOP" --dir "$BENCH_SERVERS_DIR" 2>&1); then
    BENCH_SERVERS_DIR=
    return 0
  fi
  echo "$(basename "$0"): stopping the private servers in $BENCH_SERVERS_DIR failed; they may still run:" >&2
  printf '%s\n' "$out" >&2
  return 1
}

bench_servers_on_exit() {
  local status=$?
  trap - EXIT INT TERM HUP
  bench_servers_stop_now || { [ "$status" -ne 0 ] || status=1; }
  exit "$status"
}
