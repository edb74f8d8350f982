# Shared helpers for scripts/servers/{start,stop,status}. Sourced, not run.
#
# Layout of a servers directory DIR (given with --dir):
#   DIR/env               KEY=VALUE lines for tests, benchmarks and tools
#   DIR/datadir           path of the temporary data directory (mktemp -d)
#   DIR/<server>.pid      PID of each running server (mariadb, mariadb-replica,
#                         postgres, kdc, nats-1, nats-2, nats-3)
#   DIR/<server>.port     the port it listens on (status checks it)
#   DIR/pam_service       path of the PAM service file in /etc/pam.d
#   DIR/krb5.conf, DIR/kdc.conf, DIR/my.cnf, DIR/my-replica.cnf
#                         the generated configurations
#   DIR/logs/<server>.log each server's log (kept after stop for post-mortems)
# Data, sockets, certificates and keytabs live in the temporary directory:
# socket paths must stay short (108 bytes), and a build tree can be deep.

SLUICE_SERVERS_ALL=(kdc mariadb postgres)
# Started only when asked for (--only ...,nats): a NATS JetStream cluster.
# mariadb-replica (a replica of mariadb, for failover tests) likewise.
SLUICE_SERVERS_KNOWN=(kdc mariadb mariadb-replica postgres nats)

say() { printf '%s: %s\n' "${SLUICE_SCRIPT:-servers}" "$*"; }
warn() { printf '%s: %s\n' "${SLUICE_SCRIPT:-servers}" "$*" >&2; }

# parse_common_args "$@": sets SERVERS_DIR, ONLY (array), PAM_CLEARTEXT and
# RESTART.
parse_common_args() {
  SERVERS_DIR=""
  ONLY=("${SLUICE_SERVERS_ALL[@]}")
  PAM_CLEARTEXT=0
  RESTART=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir) SERVERS_DIR=${2:?--dir needs a directory}; shift 2 ;;
      --dir=*) SERVERS_DIR=${1#--dir=}; shift ;;
      --only) parse_only "${2:?--only needs a list such as mariadb,postgres,kdc}"; shift 2 ;;
      --only=*) parse_only "${1#--only=}"; shift ;;
      --pam-cleartext) PAM_CLEARTEXT=1; shift ;;
      --restart) RESTART=1; shift ;;
      -h|--help) usage; exit 0 ;;
      *) warn "unknown argument '$1'"; usage >&2; exit 2 ;;
    esac
  done
  [ -n "$SERVERS_DIR" ] || { warn "--dir DIR is required"; usage >&2; exit 2; }
  # An absolute path: it ends up in configuration files and the env file.
  case "$SERVERS_DIR" in /*) ;; *) SERVERS_DIR="$PWD/$SERVERS_DIR" ;; esac
}

parse_only() {
  local item
  ONLY=()
  IFS=',' read -r -a items <<<"$1"
  for item in "${items[@]}"; do
    case "$item" in
      kdc|mariadb|mariadb-replica|postgres|nats) ONLY+=("$item") ;;
      *) warn "--only: unknown server '$item' (known: kdc, mariadb, mariadb-replica, postgres, nats)"; exit 2 ;;
    esac
  done
  if wanted mariadb-replica && ! wanted mariadb; then
    warn "--only: mariadb-replica replicates from mariadb: list both (--only mariadb,mariadb-replica)"; exit 2
  fi
}

wanted() {
  local s
  for s in "${ONLY[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}

# A random password of hex digits: no quoting needed anywhere it goes.
random_secret() { openssl rand -hex 12; }

# --- ports ------------------------------------------------------------------
# Ports come from 20000-32767, below Linux's ephemeral range (32768-60999) so
# outgoing connections never hold them. A port is taken as free when nothing
# listens on it (TCP, and UDP for the KDC); the server's own bind is the final
# word, and start retries with another port when the bind fails.
# Sets PICKED_PORT (not printed: a $(...) subshell would lose PORTS_TAKEN).
PORTS_TAKEN=()
PICKED_PORT=
pick_port() {
  local port tries=0
  while :; do
    tries=$((tries + 1))
    [ $tries -le 200 ] || { warn "no free port found"; return 1; }
    port=$((20000 + (SRANDOM % 12768)))
    [[ " ${PORTS_TAKEN[*]} " == *" $port "* ]] && continue
    [ -z "$(ss -Hltn "sport = :$port")" ] || continue
    [ -z "$(ss -Hlun "sport = :$port")" ] || continue
    PORTS_TAKEN+=("$port")
    PICKED_PORT=$port
    return 0
  done
}

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# --- processes --------------------------------------------------------------
# Every server runs in its own session (setsid), so its PID is also the ID of
# a process group holding it and all its children.

# pid_alive PID COMM: the process exists, is not a zombie, and is the program
# we started (guards against a recycled PID).
pid_alive() {
  local pid=$1 comm=$2 stat
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || return 1
  stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
  [[ "$stat" == "$pid ($comm"* ]] || return 1
  local state=${stat##*) }
  [ "${state%% *}" != "Z" ]
}

# The program each PID file's process runs (pid_alive's COMM).
declare -A SERVER_COMM=([kdc]=krb5kdc [mariadb]=mariadbd [mariadb-replica]=mariadbd [postgres]=postgres
                        [nats-1]=nats-server [nats-2]=nats-server [nats-3]=nats-server)

# running_servers: prints "NAME (pid PID), ..." for every server of
# SERVERS_DIR whose PID file names a live process of that server; nothing
# when none runs (a dead start's leftovers).
running_servers() {
  local name pid listed=""
  for name in kdc mariadb mariadb-replica postgres nats-1 nats-2 nats-3; do
    pid=$(cat "$SERVERS_DIR/$name.pid" 2>/dev/null) || continue
    if pid_alive "$pid" "${SERVER_COMM[$name]}"; then listed+="${listed:+, }$name (pid $pid)"; fi
  done
  printf '%s' "$listed"
}

# group_alive PGID COMM: some process of the group is still running COMM.
# Zombies do not count: PID 1 of a container may reap them late.
group_alive() { pgrep -r D,R,S,T,t,W,I -g "$1" -x "$2" >/dev/null 2>&1; }

# launched PID COMM: waits until the background job PID has exec'd COMM (right
# after `&` it is still a copy of this shell). Fails if it dies first.
launched() {
  local pid=$1 comm=$2 i
  [ -n "$pid" ] || return 1
  for ((i = 0; i < 400; i++)); do
    pid_alive "$pid" "$comm" && return 0
    [ -d "/proc/$pid" ] || return 1
    sleep 0.05
  done
  return 1
}

# stop_process NAME COMM SIGNAL: stops the server whose PID is in
# DIR/NAME.pid with SIGNAL, escalating to SIGKILL of its whole process group
# after 20 s. Returns 0 when nothing of it is left; else says so, keeps the
# PID file (a later stop tries again) and returns 1.
stop_process() {
  local name=$1 comm=$2 sig=$3 pidfile="$SERVERS_DIR/$1.pid" pid i
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if pid_alive "$pid" "$comm"; then
    kill "-$sig" "$pid" 2>/dev/null || true
    for ((i = 0; i < 200; i++)); do
      pid_alive "$pid" "$comm" || break
      sleep 0.1
    done
    if pid_alive "$pid" "$comm"; then
      warn "$name (pid $pid) ignored SIG$sig for 20 s; sending SIGKILL"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  # Children (PostgreSQL's backends) leave shortly after their parent.
  if [[ "$pid" =~ ^[0-9]+$ ]] && group_alive "$pid" "$comm"; then
    for ((i = 0; i < 50; i++)); do
      group_alive "$pid" "$comm" || break
      sleep 0.1
    done
    pkill -KILL -g "$pid" -x "$comm" 2>/dev/null || true
  fi
  for ((i = 0; i < 50; i++)); do
    pid_alive "$pid" "$comm" || { [[ "$pid" =~ ^[0-9]+$ ]] && group_alive "$pid" "$comm"; } || break
    sleep 0.1
  done
  if pid_alive "$pid" "$comm" || { [[ "$pid" =~ ^[0-9]+$ ]] && group_alive "$pid" "$comm"; }; then
    warn "$name (pid $pid) is still running after SIGKILL"
    return 1
  fi
  rm -f "$pidfile" "$SERVERS_DIR/$name.port"
}

# wait_until SECONDS CMD...: polls CMD every 0.1 s; fails after SECONDS.
wait_until() {
  local limit=$(($1 * 10)) i
  shift
  for ((i = 0; i < limit; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

# show_log_tail FILE: what a failed start needs to show: the log's error
# lines (mariadb-install-db buries them under its advice), then its tail.
show_log_tail() {
  [ -f "$1" ] || return 0
  local errors
  errors=$(grep -E '\[ERROR\]|FATAL|ERROR:|[Ee]rror:|krb5kdc: ' "$1" | tail -n 10 || true)
  if [ -n "$errors" ]; then
    warn "---- error lines of $1 ----"
    printf '%s\n' "$errors" >&2
  fi
  warn "---- last lines of $1 ----"
  grep -v '^[[:space:]]*$' "$1" | tail -n 15 >&2
  warn "----"
}

# seconds_since T0: seconds (one decimal) since T0, a ${EPOCHREALTIME/./}.
seconds_since() {
  local tenths=$(((${EPOCHREALTIME/./} - $1) / 100000))
  echo "$((tenths / 10)).$((tenths % 10))"
}

# --- templates --------------------------------------------------------------
# mariadb-install-db and initdb cost seconds of CPU (tens of seconds on a
# loaded machine); copying their result costs a fraction of one. The first
# start makes a template, keyed by the server's version and the recipe, and
# later starts copy it. A template appears atomically (made in a temporary
# directory, then renamed), so concurrent starts never see half of one.
TEMPLATE_ROOT=${SLUICE_SERVER_TEMPLATES:-/var/tmp/sluice-server-templates}

# ensure_template NAME KEY BUILDER LOG: sets TEMPLATE to a directory made by
# `BUILDER DIR` (output to LOG), building it first unless one with this KEY
# exists already.
ensure_template() {
  local name=$1 key=$2 builder=$3 log=$4 hash tmp
  hash=$(printf '%s' "$key" | sha256sum | cut -c1-16)
  TEMPLATE="$TEMPLATE_ROOT/$name-$hash"
  [ -d "$TEMPLATE" ] && return 0
  mkdir -p "$TEMPLATE_ROOT"
  chmod 711 "$TEMPLATE_ROOT"
  tmp=$(mktemp -d "$TEMPLATE_ROOT/.$name-$hash.XXXXXX")
  chmod 711 "$tmp"
  if ! "$builder" "$tmp" >>"$log" 2>&1; then
    rm -rf "$tmp"
    return 1
  fi
  # Another start may have finished the same template first: keep that one.
  mv -T "$tmp" "$TEMPLATE" 2>/dev/null || rm -rf "$tmp"
}

# --- env file ---------------------------------------------------------------
ENV_LINES=()
env_set() { ENV_LINES+=("$1=$2"); }
