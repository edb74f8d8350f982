# NATS JetStream: a three-node cluster (nodes nats-1, nats-2, nats-3) on
# 127.0.0.1, each with a client port, a cluster (route) port and a monitoring
# port, its JetStream files in the temporary data directory. Each node writes
# its own PID file (pid_file in its configuration), so a test that SIGKILLs a
# node and starts it again with `nats-server -c DIR/nats-N.conf` leaves a PID
# file that stop still finds.

NATS_NODES=(1 2 3)
NATS_CLUSTER=sluice

nats_start() {
  local log node attempt
  NATS_URLS=()
  for attempt in 1 2 3; do
    nats_pick_ports || return 1
    for node in "${NATS_NODES[@]}"; do nats_write_config "$node"; done
    for node in "${NATS_NODES[@]}"; do
      log="$SERVERS_DIR/logs/nats-$node.log"
      mkdir -p "$DATA_DIR/nats-$node"
      setsid /usr/sbin/nats-server -c "$SERVERS_DIR/nats-$node.conf" </dev/null >>"$log" 2>&1 &
      NATS_PID[$node]=$!
      echo $! >"$SERVERS_DIR/nats-$node.pid"
      echo "${NATS_CLIENT_PORT[$node]}" >"$SERVERS_DIR/nats-$node.port"
    done
    # Ready when every node says JetStream is current (a meta leader is
    # elected and each node caught up with it): /healthz answers 200.
    if nats_wait_ready; then
      for node in "${NATS_NODES[@]}"; do NATS_URLS+=("nats://127.0.0.1:${NATS_CLIENT_PORT[$node]}"); done
      return 0
    fi
    nats_stop || true
    if grep -qi 'address already in use' "$SERVERS_DIR"/logs/nats-*.log; then
      warn "nats: a port was taken, retrying"
      rm -f "$SERVERS_DIR"/logs/nats-*.log
      continue
    fi
    break
  done
  warn "nats: the cluster did not come up"
  for node in "${NATS_NODES[@]}"; do show_log_tail "$SERVERS_DIR/logs/nats-$node.log"; done
  return 1
}

declare -A NATS_CLIENT_PORT NATS_ROUTE_PORT NATS_HTTP_PORT NATS_PID
nats_pick_ports() {
  local node
  for node in "${NATS_NODES[@]}"; do
    pick_port || return 1; NATS_CLIENT_PORT[$node]=$PICKED_PORT
    pick_port || return 1; NATS_ROUTE_PORT[$node]=$PICKED_PORT
    pick_port || return 1; NATS_HTTP_PORT[$node]=$PICKED_PORT
  done
}

nats_write_config() {
  local node=$1 other routes=""
  for other in "${NATS_NODES[@]}"; do
    routes+="    nats-route://127.0.0.1:${NATS_ROUTE_PORT[$other]}"$'\n'
  done
  cat >"$SERVERS_DIR/nats-$node.conf" <<CONF
# Node $node of the private NATS JetStream cluster of the sluice test servers.
server_name: nats-$node
listen: 127.0.0.1:${NATS_CLIENT_PORT[$node]}
http: 127.0.0.1:${NATS_HTTP_PORT[$node]}
pid_file: "$SERVERS_DIR/nats-$node.pid"
# One message per source transaction: 8 MB (NATS's advised maximum) rather
# than the default 1 MB.
max_payload: 8MB
jetstream {
  store_dir: "$DATA_DIR/nats-$node"
  max_memory_store: 256MB
  max_file_store: 8GB
}
cluster {
  name: $NATS_CLUSTER
  listen: 127.0.0.1:${NATS_ROUTE_PORT[$node]}
  routes: [
$routes  ]
}
CONF
}

# nats_http PORT PATH: the monitoring endpoint's whole reply (headers too).
nats_http() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "$2" >&3
  reply=$(timeout 2 cat <&3) || true
  exec 3<&- 3>&-
  printf '%s' "$reply"
}
# nats_healthy PORT: /healthz answers 200 (JetStream enabled and current).
nats_healthy() { [[ "$(nats_http "$1" /healthz)" == "HTTP/1."?" 200"* ]]; }
# nats_has_meta_leader PORT: the node knows the JetStream meta leader, so
# stream creation works at once.
nats_has_meta_leader() { [[ "$(nats_http "$1" /jsz)" == *'"leader": "nats-'* ]]; }

nats_wait_ready() {
  local node
  # The PIDs from $!, not from the PID files: nats-server rewrites its file
  # (pid_file) as it starts, and a read between its truncate and its write
  # got an empty PID; launched then waited its 20 s for "/proc/" and the
  # start failed (once in ~36 runs of the scaled-out kill test).
  for node in "${NATS_NODES[@]}"; do
    launched "${NATS_PID[$node]}" nats-server || return 1
  done
  for node in "${NATS_NODES[@]}"; do
    wait_until 60 nats_healthy "${NATS_HTTP_PORT[$node]}" || return 1
    wait_until 60 nats_has_meta_leader "${NATS_HTTP_PORT[$node]}" || return 1
  done
}

nats_env() {
  local node
  env_set SLUICE_NATS_URL "$(IFS=,; echo "${NATS_URLS[*]}")"
  for node in "${NATS_NODES[@]}"; do
    env_set "SLUICE_NATS_URL_$node" "nats://127.0.0.1:${NATS_CLIENT_PORT[$node]}"
    env_set "SLUICE_NATS_CONF_$node" "$SERVERS_DIR/nats-$node.conf"
    env_set "SLUICE_NATS_HTTP_PORT_$node" "${NATS_HTTP_PORT[$node]}"
  done
}

# SIGTERM is nats-server's graceful stop (SIGINT too); all nodes at once.
nats_stop() {
  local node pids=() p failed=0
  for node in "${NATS_NODES[@]}"; do stop_process "nats-$node" nats-server TERM & pids+=($!); done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  return $failed
}
