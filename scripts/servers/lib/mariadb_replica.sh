# A MariaDB 10.11 replica of the private primary (mariadb.sh), for CDC from
# replicas and failover tests (issue 26): GTID replication
# (MASTER_USE_GTID=slave_pos), log_slave_updates=ON, gtid_strict_mode=ON,
# server_id=2, read_only=ON, a binlog like the primary's, the same users.
# It shares the primary's certificates, PAM service and plugin directory
# (the server certificate names 127.0.0.1, valid for both).
# Sourced after mariadb.sh; started after the primary.

MARIADB_REPLICA_SERVER_ID=2

# Runs "$@" with mariadb.sh's per-instance variables pointing at the
# replica, so its config writer, readiness wait and SQL helper serve both.
mariadb_as_replica() {
  local socket=$MARIADB_SOCKET cnf=$MARIADB_CNF id=$MARIADB_SERVER_ID instance=$MARIADB_INSTANCE status=0
  MARIADB_SOCKET=$MARIADB_REPLICA_SOCKET
  MARIADB_CNF=$MARIADB_REPLICA_CNF
  MARIADB_SERVER_ID=$MARIADB_REPLICA_SERVER_ID
  MARIADB_INSTANCE=mariadb-replica
  MARIADB_REPLICA_EXTRA=$'# Replica of the primary (log_slave_updates=ON above: what it applies goes\n# to its own binlog, so it can be promoted and read by CDC).\nread_only=ON\nrelay_log='"$DATA_DIR"$'/mariadb-replica/binlog/relay-bin\nskip_slave_start=OFF'
  "$@" || status=$?
  MARIADB_SOCKET=$socket MARIADB_CNF=$cnf MARIADB_SERVER_ID=$id MARIADB_INSTANCE=$instance MARIADB_REPLICA_EXTRA=
  return $status
}

mariadb_replica_start() {
  local rdir="$DATA_DIR/mariadb-replica" log="$SERVERS_DIR/logs/mariadb-replica.log"
  [ -n "${MARIADB_PORT:-}" ] || { warn "mariadb-replica: needs the primary (--only mariadb,mariadb-replica)"; return 1; }
  mkdir -p "$rdir/binlog"
  MARIADB_REPLICA_SOCKET="$rdir/mariadb.sock"
  MARIADB_REPLICA_CNF="$SERVERS_DIR/my-replica.cnf"
  local port attempt pid
  for attempt in 1 2 3; do
    pick_port || return 1
    port=$PICKED_PORT
    mariadb_as_replica mariadb_write_config "$port" "$rdir"
    # The config names the primary's plugin directory: one set of links.
    sed -i "s|^plugin_dir=.*|plugin_dir=$DATA_DIR/mariadb/plugin|; s|^ssl_ca=.*|ssl_ca=$DATA_DIR/mariadb/tls/ca.pem|; s|^ssl_cert=.*|ssl_cert=$DATA_DIR/mariadb/tls/server-cert.pem|; s|^ssl_key=.*|ssl_key=$DATA_DIR/mariadb/tls/server-key.pem|" "$MARIADB_REPLICA_CNF"
    [ $attempt = 1 ] && cp -a --sparse=always "$TEMPLATE/data" "$rdir/data"
    KRB5_CONFIG="${KRB5_CONFIG:-/etc/krb5.conf}" KRB5RCACHETYPE=none \
      setsid /usr/sbin/mariadbd --defaults-file="$MARIADB_REPLICA_CNF" </dev/null >>"$log" 2>&1 &
    pid=$!
    echo $pid >"$SERVERS_DIR/mariadb-replica.pid"
    echo "$port" >"$SERVERS_DIR/mariadb-replica.port"
    if mariadb_as_replica mariadb_wait_ready "$pid"; then
      MARIADB_REPLICA_PORT=$port
      { mariadb_as_replica mariadb_create_users && mariadb_replica_follow; } >>"$log" 2>&1 \
        || { warn "mariadb-replica: setting up replication failed"; show_log_tail "$log"; return 1; }
      return 0
    fi
    stop_process mariadb-replica mariadbd TERM
    grep -qi 'address already in use' "$log" && { warn "mariadb-replica: port $port taken, retrying"; continue; }
    break
  done
  warn "mariadb-replica: did not come up"
  show_log_tail "$log"
  return 1
}

# Replicates from the primary by GTID from the start of its (empty) binlog;
# the users were made on each server outside the binlog. Waits until both
# replication threads run, so a test's first write reaches the replica.
mariadb_replica_follow() {
  mariadb_as_replica mariadb_sql <<SQL || return 1
CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$MARIADB_PORT,
  MASTER_USER='sluice_admin', MASTER_PASSWORD='$MARIADB_ADMIN_PASSWORD',
  MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1;
START SLAVE;
SQL
  local i state
  for ((i = 0; i < 200; i++)); do
    # Captured first: grep -q closing the pipe early would fail it (pipefail).
    state=$(mariadb_as_replica mariadb_sql -e "SHOW SLAVE STATUS\\G") || return 1
    [[ "$state" == *"Slave_IO_Running: Yes"* && "$state" == *"Slave_SQL_Running: Yes"* ]] && return 0
    sleep 0.1
  done
  mariadb_as_replica mariadb_sql -e "SHOW SLAVE STATUS\\G"
  return 1
}

mariadb_replica_env() {
  env_set SLUICE_MARIADB_REPLICA_PORT "$MARIADB_REPLICA_PORT"
  env_set SLUICE_MARIADB_REPLICA_SOCKET "$MARIADB_REPLICA_SOCKET"
  env_set SLUICE_MARIADB_REPLICA_URL "mariadb://sluice_admin:$MARIADB_ADMIN_PASSWORD@127.0.0.1:$MARIADB_REPLICA_PORT/sluice"
  env_set SLUICE_MARIADB_REPLICA_SERVER_ID "$MARIADB_REPLICA_SERVER_ID"
  env_set SLUICE_MARIADB_REPLICA_CNF "$MARIADB_REPLICA_CNF"
  env_set SLUICE_MARIADB_CNF "$MARIADB_CNF"
  env_set SLUICE_MARIADB_REPLICA_BINLOG_DIR "$DATA_DIR/mariadb-replica/binlog"
}

mariadb_replica_stop() { stop_process mariadb-replica mariadbd TERM; }
