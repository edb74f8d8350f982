#!/usr/bin/env bash
# Starts a private instance of its own in a temporary directory (start's
# arguments are passed through, e.g. --only mariadb --pam-cleartext), checks
# it is up, stops it, and verifies that nothing is left: no process, no
# listening port, no data directory, no PAM service file. A second stop is
# not an error.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
servers=$(cd "$here/../../scripts/servers" && pwd)

# Under the build tree when ctest runs it (SLUICE_OWN_SERVERS_DIR), so that
# scripts/test's final sweep finds the instance even if this script is killed.
base=${SLUICE_OWN_SERVERS_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
dir=$(mktemp -d "$base/lifecycle.XXXXXX")
cleanup() { "$servers/stop" --dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$servers/start" --dir "$dir" "$@" || fail "start $* failed"
"$servers/status" --dir "$dir" || fail "status after start reports a server down"
export SLUICE_ENV_FILE="$dir/env"
load_env

declare -A comm=([kdc]=krb5kdc [mariadb]=mariadbd [postgres]=postgres)
names=()
pids=()
ports=()
while read -r listed; do
  # nats is a cluster: three nodes, each with its PID and port file.
  nodes=("$listed")
  [ "$listed" = nats ] && nodes=(nats-1 nats-2 nats-3)
  for name in "${nodes[@]}"; do
    names+=("$name")
    pids+=("$(cat "$dir/$name.pid")")
    ports+=("$(cat "$dir/$name.port")")
  done
done <"$dir/servers"
data=$(cat "$dir/datadir")
pam_file=/etc/pam.d/${SLUICE_PAM_SERVICE:-none}
[ -d "$data" ] || fail "data directory $data missing while up"
if [ "$SLUICE_SERVERS" = nats ]; then
  # The env names each node's URL, and all three in one list for clients.
  for n in 1 2 3; do
    url_var=SLUICE_NATS_URL_$n
    [[ ",$SLUICE_NATS_URL," == *",${!url_var},"* ]] || fail "SLUICE_NATS_URL lacks node $n (${!url_var})"
  done
  pass "env has the three NATS URLs: $SLUICE_NATS_URL"
fi

if [[ " $* " == *" --pam-cleartext "* ]]; then
  # The PAM account now authenticates through mysql_clear_password (TLS
  # keeps the password off the wire).
  got=$(mariadb_tls -u "$SLUICE_MARIADB_PAM_USER" -p"$SLUICE_MARIADB_PAM_PASSWORD" \
    -e "SELECT CONCAT(CURRENT_USER(), ' ', @@pam_use_cleartext_plugin)")
  expect_equal "PAM login with pam_use_cleartext_plugin" "$SLUICE_MARIADB_PAM_USER@% ON" "$got"
fi
if [[ " $* " == *" --only "* ]] && [ "$SLUICE_SERVERS" = mariadb ]; then
  # Without the KDC there is no GSSAPI user and no Kerberos key.
  if grep -E '^(KRB5_|SLUICE_KRB5_|SLUICE_KDC_|SLUICE_MARIADB_GSSAPI_)' "$dir/env"; then
    fail "env file of a MariaDB-only instance has Kerberos keys"
  fi
  grep -q '^SLUICE_PG_' "$dir/env" && fail "env file of a MariaDB-only instance has PostgreSQL keys"
fi

if [[ ",$SLUICE_SERVERS," == *",mariadb-replica,"* ]]; then
  # The replica (issue 26): GTID replication of the primary, the same
  # users, server_id 2, read_only, its binlog logging what it applies.
  replica_sql() {
    mariadb --no-defaults --protocol=TCP -h "$SLUICE_HOST" -P "$SLUICE_MARIADB_REPLICA_PORT" \
      --ssl-ca="$SLUICE_CA" --ssl-verify-server-cert --batch --skip-column-names "$@"
  }
  expected_url="mariadb://$SLUICE_MARIADB_ADMIN_USER:$SLUICE_MARIADB_ADMIN_PASSWORD@127.0.0.1:$SLUICE_MARIADB_REPLICA_PORT/sluice"
  expect_equal "SLUICE_MARIADB_REPLICA_URL" "$expected_url" "$SLUICE_MARIADB_REPLICA_URL"
  got=$(replica_sql -u "$SLUICE_MARIADB_ADMIN_USER" -p"$SLUICE_MARIADB_ADMIN_PASSWORD" -e \
    "SELECT CONCAT_WS(' ', @@server_id, @@read_only, @@gtid_strict_mode, @@log_slave_updates, @@binlog_format, @@log_bin)")
  expect_equal "replica settings (server_id read_only gtid_strict_mode log_slave_updates binlog_format log_bin)" \
    "2 ON ON ON ROW ON" "$got"
  mariadb_tls -u "$SLUICE_MARIADB_ADMIN_USER" -p"$SLUICE_MARIADB_ADMIN_PASSWORD" -e \
    "CREATE TABLE sluice.lifecycle (id INT PRIMARY KEY); INSERT INTO sluice.lifecycle VALUES (7)"
  pos=$(mariadb_tls -u "$SLUICE_MARIADB_ADMIN_USER" -p"$SLUICE_MARIADB_ADMIN_PASSWORD" -e "SELECT @@gtid_binlog_pos")
  got=$(replica_sql -u "$SLUICE_MARIADB_ADMIN_USER" -p"$SLUICE_MARIADB_ADMIN_PASSWORD" -e \
    "SELECT MASTER_GTID_WAIT('$pos', 60); SELECT id FROM sluice.lifecycle; SELECT @@gtid_binlog_pos")
  expect_equal "the replica applied and logged the primary's transactions" "0 7 $pos" "$(echo $got)"
  # The same users: the native account logs in to the replica too.
  got=$(replica_sql -u "$SLUICE_MARIADB_NATIVE_USER" -p"$SLUICE_MARIADB_NATIVE_PASSWORD" -e "SELECT CURRENT_USER()")
  expect_equal "native login on the replica" "$SLUICE_MARIADB_NATIVE_USER@%" "$got"
  pass "replica on :$SLUICE_MARIADB_REPLICA_PORT follows the primary by GTID ($pos)"
fi

"$servers/stop" --dir "$dir" || fail "stop failed"

for i in "${!names[@]}"; do
  name=${names[$i]} pid=${pids[$i]} port=${ports[$i]}
  # A zombie waiting for PID 1 to reap it counts as gone. The stat file is
  # read once: a process that is being reaped can vanish between two reads,
  # and a failed read means it is gone.
  if stat=$(cat "/proc/$pid/stat" 2>/dev/null) && [[ "$stat" != *") Z "* ]]; then
    fail "$name (pid $pid) still runs after stop: $stat"
  fi
  if pgrep -r D,R,S,T,t,W,I -g "$pid" >/dev/null; then
    fail "$name's process group $pid still has processes: $(pgrep -a -g "$pid")"
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    fail "$name's port $port still accepts connections after stop"
  fi
  [ -z "$(ss -Hlun "sport = :$port")" ] || fail "$name's UDP port $port is still bound after stop"
  pass "$name: pid $pid gone, port $port closed"
done
[ ! -e "$data" ] || fail "data directory $data left behind"
[ ! -e "$pam_file" ] || fail "PAM service file $pam_file left behind"
[ ! -e "$dir/env" ] || fail "env file left behind"
"$servers/status" --dir "$dir" >/dev/null && fail "status reports servers up after stop"
"$servers/stop" --dir "$dir" || fail "a second stop failed"
pass "nothing left after stop (data $data, $pam_file removed; second stop fine)"
