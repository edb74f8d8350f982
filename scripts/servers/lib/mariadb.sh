# MariaDB 10.11: binlog (ROW, FULL image, FULL metadata, CRC32, GTID), TLS with
# a CA made at start, local_infile, the ed25519 / pam / gssapi plugins, and one
# test user per authentication method.

MARIADB_SERVER_ID=1
# The log (and PID/port file) name of the instance mariadb_write_config
# writes for: "mariadb", or "mariadb-replica" (mariadb_replica.sh).
MARIADB_INSTANCE=mariadb

mariadb_start() {
  local mdir="$DATA_DIR/mariadb" log="$SERVERS_DIR/logs/mariadb.log"
  mkdir -p "$mdir/binlog" "$mdir/tls" "$mdir/pam"
  mariadb_make_plugin_dir "$mdir/plugin" || return 1
  MARIADB_SOCKET="$mdir/mariadb.sock"
  MARIADB_CNF="$SERVERS_DIR/my.cnf"
  MARIADB_ADMIN_PASSWORD=$(random_secret)
  MARIADB_NATIVE_PASSWORD=$(random_secret)
  MARIADB_ED25519_PASSWORD=$(random_secret)
  MARIADB_PAM_PASSWORD=$(random_secret)
  MARIADB_SSL_PASSWORD=$(random_secret)
  MARIADB_GSSAPI=0
  wanted kdc && MARIADB_GSSAPI=1

  mariadb_make_tls "$mdir/tls" >>"$log" 2>&1 || { warn "mariadb: making the certificates failed"; show_log_tail "$log"; return 1; }
  mariadb_make_pam "$mdir/pam" || return 1

  local port attempt
  for attempt in 1 2 3; do
    pick_port || return 1
    port=$PICKED_PORT
    mariadb_write_config "$port" "$mdir"
    if [ $attempt = 1 ]; then
      ensure_template mariadb "$(mariadbd --version) $(declare -f mariadb_make_template)" \
        mariadb_make_template "$log" \
        || { warn "mariadb: mariadb-install-db failed"; show_log_tail "$log"; return 1; }
      cp -a --sparse=always "$TEMPLATE/data" "$mdir/data"
    fi
    # The GSSAPI plugin reads KRB5_CONFIG for the realm; no replay cache
    # files are needed for a private test server.
    KRB5_CONFIG="${KRB5_CONFIG:-/etc/krb5.conf}" KRB5RCACHETYPE=none \
      setsid /usr/sbin/mariadbd --defaults-file="$MARIADB_CNF" </dev/null >>"$log" 2>&1 &
    local pid=$!
    echo $pid >"$SERVERS_DIR/mariadb.pid"
    echo "$port" >"$SERVERS_DIR/mariadb.port"
    if mariadb_wait_ready "$pid"; then
      MARIADB_PORT=$port
      mariadb_create_users >>"$log" 2>&1 || { warn "mariadb: creating the test users failed"; show_log_tail "$log"; return 1; }
      return 0
    fi
    stop_process mariadb mariadbd TERM
    grep -qi 'address already in use' "$log" && { warn "mariadb: port $port taken, retrying"; continue; }
    break
  done
  warn "mariadb: did not come up"
  show_log_tail "$log"
  return 1
}

# The system tables of an empty server, made once by mariadb-install-db (see
# ensure_template); the redo log size matches my.cnf's.
mariadb_make_template() {
  local t=$1
  cat >"$t/my.cnf" <<CNF
[mariadbd]
user=root
datadir=$t/data
socket=$t/install.sock
skip-networking
innodb_log_file_size=48M
character_set_server=utf8mb4
collation_server=utf8mb4_general_ci
CNF
  # --defaults-file must be the first option.
  mariadb-install-db --defaults-file="$t/my.cnf" --auth-root-authentication-method=normal \
    --skip-test-db --skip-name-resolve
}

# A plugin_dir of this instance's own, so tests can install UDF libraries
# (keal deploy --db mariadb://...) without writing to the system's: the
# system plugins are linked into it (the auth plugins load from there).
mariadb_make_plugin_dir() {
  local p=$1 system f
  system=$(mariadbd --no-defaults --help --verbose 2>/dev/null | awk '$1 == "plugin-dir" { print $2 }')
  mkdir -p "$p" || return 1
  for f in "${system:-/usr/lib/mysql/plugin}"/*; do ln -sf "$f" "$p/" || return 1; done
}

mariadb_wait_ready() {
  local pid=$1 i
  launched "$pid" mariadbd || return 1
  for ((i = 0; i < 300; i++)); do
    pid_alive "$pid" mariadbd || return 1
    mariadb-admin --no-defaults -uroot --socket="$MARIADB_SOCKET" --connect-timeout=2 ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# A CA, a server certificate it signs (SAN DNS:localhost, IP:127.0.0.1), and a
# second, unrelated CA for tests that must see verification fail. ECDSA P-256
# keys: an RSA key costs ten times the CPU to make, at every start.
mariadb_make_tls() {
  local t=$1
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj "/CN=sluice test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$t/ca-key.pem" -out "$t/ca.pem" &&
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 -subj "/CN=sluice unrelated CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$t/wrong-ca-key.pem" -out "$t/wrong-ca.pem" &&
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
    -keyout "$t/server-key.pem" -out "$t/server.csr" &&
  openssl x509 -req -in "$t/server.csr" -CA "$t/ca.pem" -CAkey "$t/ca-key.pem" -CAcreateserial \
    -days 30 -out "$t/server-cert.pem" -extfile <(printf '%s\n' \
      "subjectAltName=DNS:localhost,IP:127.0.0.1" "basicConstraints=CA:FALSE" \
      "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth") &&
    rm -f "$t/server.csr"
}

# The PAM service: a service file of our own in /etc/pam.d (a random suffix
# keeps instances apart) that checks a Berkeley DB user file with pam_userdb.
mariadb_make_pam() {
  local p=$1
  MARIADB_PAM_SERVICE="sluice-$(openssl rand -hex 4)"
  printf '%s\n%s\n' sluice_pam "$MARIADB_PAM_PASSWORD" >"$p/users.txt"
  db_load -T -t hash -f "$p/users.txt" "$p/users.db" || { warn "mariadb: db_load failed"; return 1; }
  rm -f "$p/users.txt"
  chmod 600 "$p/users.db"
  echo "/etc/pam.d/$MARIADB_PAM_SERVICE" >"$SERVERS_DIR/pam_service"
  cat >"/etc/pam.d/$MARIADB_PAM_SERVICE" <<PAM
# sluice test server ($SERVERS_DIR); removed by scripts/servers/stop.
auth required pam_userdb.so db=$p/users crypt=none
account required pam_permit.so
PAM
}

mariadb_write_config() {
  local port=$1 m=$2
  {
    cat <<CNF
# Private MariaDB server for sluice's tests (scripts/servers/start).
[mariadbd]
user=root
datadir=$m/data
socket=$MARIADB_SOCKET
pid-file=$m/mariadbd.pid
port=$port
bind-address=127.0.0.1
skip-name-resolve
log_error=$SERVERS_DIR/logs/$MARIADB_INSTANCE.log
character_set_server=utf8mb4
collation_server=utf8mb4_general_ci
# Change data capture: row events with full images and column metadata.
server_id=$MARIADB_SERVER_ID
log_bin=$m/binlog/mariadb-bin
binlog_format=ROW
binlog_row_image=FULL
binlog_row_metadata=FULL
binlog_checksum=CRC32
gtid_strict_mode=ON
# What it applies as a replica goes to its binlog too: a primary rebuilt as
# a replica of its replica (failover tests) can be promoted and read again.
log_slave_updates=ON
# TLS with the CA made at start.
ssl_ca=$m/tls/ca.pem
ssl_cert=$m/tls/server-cert.pem
ssl_key=$m/tls/server-key.pem
max_allowed_packet=1G
local_infile=ON
# Test data need not survive a crash: commit without a flush per transaction.
innodb_flush_log_at_trx_commit=2
innodb_buffer_pool_size=128M
innodb_log_file_size=48M
plugin_dir=$m/plugin
plugin_load_add=auth_ed25519
plugin_load_add=auth_pam
CNF
    [ "$PAM_CLEARTEXT" = 1 ] && echo "pam_use_cleartext_plugin=ON"
    # A replica of the primary (mariadb_replica.sh): GTID replication that
    # logs what it applies, so it can be promoted and read by CDC.
    if [ -n "${MARIADB_REPLICA_EXTRA:-}" ]; then printf '%s\n' "$MARIADB_REPLICA_EXTRA"; fi
    if [ "$MARIADB_GSSAPI" = 1 ]; then
      # The keytab options must come before the plugin loads.
      cat <<CNF
loose_gssapi_keytab_path=$KDC_KEYTAB
loose_gssapi_principal_name=mariadb/localhost@$KDC_REALM
plugin_load_add=auth_gssapi
CNF
    fi
  } >"$MARIADB_CNF"
}

mariadb_sql() { mariadb --no-defaults -uroot --socket="$MARIADB_SOCKET" "$@"; }

mariadb_create_users() {
  local grant="GRANT ALL PRIVILEGES ON sluice.*"
  {
    cat <<SQL
-- Setup stays out of the binlog: change data capture tests start from an
-- empty one (@@gtid_current_pos is empty until their first transaction).
SET SESSION sql_log_bin = 0;
-- Anonymous accounts would shadow '%' users for local logins.
DELETE FROM mysql.global_priv WHERE User = '';
FLUSH PRIVILEGES;
CREATE DATABASE sluice CHARACTER SET utf8mb4;
CREATE USER 'sluice_admin'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('$MARIADB_ADMIN_PASSWORD');
GRANT ALL PRIVILEGES ON *.* TO 'sluice_admin'@'%' WITH GRANT OPTION;
CREATE USER 'sluice_admin'@'localhost' IDENTIFIED VIA mysql_native_password USING PASSWORD('$MARIADB_ADMIN_PASSWORD');
GRANT ALL PRIVILEGES ON *.* TO 'sluice_admin'@'localhost' WITH GRANT OPTION;
CREATE USER 'sluice_native'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('$MARIADB_NATIVE_PASSWORD');
$grant TO 'sluice_native'@'%';
CREATE USER 'sluice_ed25519'@'%' IDENTIFIED VIA ed25519 USING PASSWORD('$MARIADB_ED25519_PASSWORD');
$grant TO 'sluice_ed25519'@'%';
CREATE USER 'sluice_pam'@'%' IDENTIFIED VIA pam USING '$MARIADB_PAM_SERVICE';
$grant TO 'sluice_pam'@'%';
CREATE USER 'sluice_ssl'@'%' IDENTIFIED VIA mysql_native_password USING PASSWORD('$MARIADB_SSL_PASSWORD') REQUIRE SSL;
$grant TO 'sluice_ssl'@'%';
SQL
    if [ "$MARIADB_GSSAPI" = 1 ]; then
      cat <<SQL
CREATE USER 'sluice_gssapi'@'%' IDENTIFIED VIA gssapi AS '$KDC_USER@$KDC_REALM';
$grant TO 'sluice_gssapi'@'%';
SQL
    fi
  } | mariadb_sql
}

mariadb_env() {
  local t="$DATA_DIR/mariadb/tls"
  env_set SLUICE_MARIADB_PORT "$MARIADB_PORT"
  env_set SLUICE_MARIADB_SOCKET "$MARIADB_SOCKET"
  env_set SLUICE_MARIADB_DATABASE sluice
  env_set SLUICE_MARIADB_ADMIN_USER sluice_admin
  env_set SLUICE_MARIADB_ADMIN_PASSWORD "$MARIADB_ADMIN_PASSWORD"
  env_set SLUICE_MARIADB_NATIVE_USER sluice_native
  env_set SLUICE_MARIADB_NATIVE_PASSWORD "$MARIADB_NATIVE_PASSWORD"
  env_set SLUICE_MARIADB_ED25519_USER sluice_ed25519
  env_set SLUICE_MARIADB_ED25519_PASSWORD "$MARIADB_ED25519_PASSWORD"
  env_set SLUICE_MARIADB_PAM_USER sluice_pam
  env_set SLUICE_MARIADB_PAM_PASSWORD "$MARIADB_PAM_PASSWORD"
  env_set SLUICE_PAM_SERVICE "$MARIADB_PAM_SERVICE"
  env_set SLUICE_MARIADB_PAM_CLEARTEXT "$PAM_CLEARTEXT"
  env_set SLUICE_MARIADB_SSL_USER sluice_ssl
  env_set SLUICE_MARIADB_SSL_PASSWORD "$MARIADB_SSL_PASSWORD"
  if [ "$MARIADB_GSSAPI" = 1 ]; then
    env_set SLUICE_MARIADB_GSSAPI_USER sluice_gssapi
  fi
  env_set SLUICE_CA "$t/ca.pem"
  env_set SLUICE_WRONG_CA "$t/wrong-ca.pem"
  env_set SLUICE_MARIADB_URL "mariadb://sluice_admin:$MARIADB_ADMIN_PASSWORD@127.0.0.1:$MARIADB_PORT/sluice"
  env_set SLUICE_MARIADB_SERVER_ID "$MARIADB_SERVER_ID"
  env_set SLUICE_MARIADB_PLUGIN_DIR "$DATA_DIR/mariadb/plugin"
  env_set SLUICE_MARIADB_BINLOG_BASENAME mariadb-bin
  env_set SLUICE_MARIADB_BINLOG_DIR "$DATA_DIR/mariadb/binlog"
}

mariadb_stop() {
  local status=0
  stop_process mariadb mariadbd TERM || status=1
  local f="$SERVERS_DIR/pam_service" svc
  if [ -f "$f" ]; then
    svc=$(cat "$f")
    # Only ever remove a service file this tooling made.
    case "$svc" in /etc/pam.d/sluice-*) rm -f "$svc" ;; esac
    rm -f "$f"
  fi
  return $status
}
