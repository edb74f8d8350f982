# PostgreSQL 15: a cluster made by initdb as the postgres OS user, listening on
# 127.0.0.1 and a private socket directory, superuser `postgres` with trust.

PG_BIN=/usr/lib/postgresql/15/bin

# postgres_start [PORT]: PORT is the first port to try (picked by the caller
# when it runs this in the background next to MariaDB's start).
postgres_start() {
  local first_port=${1:-}
  local pdir="$DATA_DIR/postgres" log="$SERVERS_DIR/logs/postgres.log"
  PG_SOCKET_DIR="$DATA_DIR/pgsock"
  # The cluster belongs to postgres, and every parent directory must be
  # traversable by it (DATA_DIR is 0711).
  mkdir -p "$pdir" "$PG_SOCKET_DIR"
  chown postgres:postgres "$pdir" "$PG_SOCKET_DIR"
  chmod 700 "$pdir"
  ensure_template postgres "$("$PG_BIN/postgres" --version) $(declare -f postgres_make_template)" \
    postgres_make_template "$log" \
    || { warn "postgres: initdb failed"; show_log_tail "$log"; return 1; }
  cp -a "$TEMPLATE/data" "$pdir/data"

  local port attempt pid
  for attempt in 1 2 3; do
    if [ $attempt = 1 ] && [ -n "$first_port" ]; then
      port=$first_port
    else
      pick_port || return 1
      port=$PICKED_PORT
    fi
    # setsid and setpriv both exec, so $! is the postmaster itself.
    # fsync, full_page_writes and synchronous_commit are off: test data need
    # not survive a crash of the machine.
    setsid setpriv --reuid=postgres --regid=postgres --init-groups \
      "$PG_BIN/postgres" -D "$pdir/data" -p "$port" -k "$PG_SOCKET_DIR" \
      -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off \
      -c synchronous_commit=off -c logging_collector=off </dev/null >>"$log" 2>&1 &
    pid=$!
    echo $pid >"$SERVERS_DIR/postgres.pid"
    echo "$port" >"$SERVERS_DIR/postgres.port"
    if postgres_wait_ready "$pid" "$port"; then
      PG_PORT=$port
      "$PG_BIN/psql" -X -q -h "$PG_SOCKET_DIR" -p "$port" -U postgres -d postgres \
        -c "CREATE DATABASE sluice" >>"$log" 2>&1 \
        || { warn "postgres: creating database sluice failed"; show_log_tail "$log"; return 1; }
      return 0
    fi
    stop_process postgres postgres INT
    grep -qi 'address already in use' "$log" && { warn "postgres: port $port taken, retrying"; continue; }
    break
  done
  warn "postgres: did not come up"
  show_log_tail "$log"
  return 1
}

# An empty cluster made once by initdb (see ensure_template). initdb refuses
# root: it runs as postgres.
postgres_make_template() {
  local t=$1
  chown postgres:postgres "$t"
  runuser -u postgres -- "$PG_BIN/initdb" -D "$t/data" -U postgres -A trust -E UTF8 \
    --locale=C.UTF-8 --no-sync --no-instructions
}

postgres_wait_ready() {
  local pid=$1 port=$2 i
  launched "$pid" postgres || return 1
  for ((i = 0; i < 300; i++)); do
    pid_alive "$pid" postgres || return 1
    "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" && return 0
    sleep 0.1
  done
  return 1
}

postgres_env() {
  env_set SLUICE_PG_PORT "$PG_PORT"
  env_set SLUICE_PG_SOCKET_DIR "$PG_SOCKET_DIR"
  env_set SLUICE_PG_USER postgres
  env_set SLUICE_PG_DATABASE sluice
  env_set SLUICE_PG_URL "postgresql://postgres@127.0.0.1:$PG_PORT/sluice"
  env_set SLUICE_PG_BIN "$PG_BIN"
}

# SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for clients).
postgres_stop() { stop_process postgres postgres INT; }
