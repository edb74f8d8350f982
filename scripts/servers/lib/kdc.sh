# MIT Kerberos KDC: a private realm on 127.0.0.1 (UDP and TCP on one port).
# Makes the realm database, a user principal with a password, the service
# principal mariadb/localhost with a keytab for MariaDB, and a ticket for the
# user in a FILE: credential cache.

KDC_REALM=SLUICE.TEST
KDC_USER=tester

kdc_start() {
  local kdir="$DATA_DIR/kdc" log="$SERVERS_DIR/logs/kdc.log" port
  mkdir -p "$kdir"
  KDC_PASSWORD=$(random_secret)
  KDC_KEYTAB="$DATA_DIR/kdc/mariadb.keytab"
  KDC_CCACHE="FILE:$DATA_DIR/kdc/$KDC_USER.ccache"
  export KRB5_CONFIG="$SERVERS_DIR/krb5.conf" KRB5_KDC_PROFILE="$SERVERS_DIR/kdc.conf"

  local attempt
  for attempt in 1 2 3; do
    pick_port || return 1
    port=$PICKED_PORT
    kdc_write_config "$port" "$kdir"
    if [ $attempt = 1 ]; then
      kdc_make_realm "$kdir" >>"$log" 2>&1 || { warn "kdc: creating the realm failed"; show_log_tail "$log"; return 1; }
    fi
    setsid /usr/sbin/krb5kdc -n -r "$KDC_REALM" </dev/null >>"$log" 2>&1 &
    local pid=$!
    echo $pid >"$SERVERS_DIR/kdc.pid"
    echo "$port" >"$SERVERS_DIR/kdc.port"
    # Ready when it hands out a ticket.
    if launched "$pid" krb5kdc && wait_until 30 kdc_kinit; then
      KDC_PORT=$port
      return 0
    fi
    stop_process kdc krb5kdc TERM
    grep -qi 'address already in use' "$log" && { warn "kdc: port $port taken, retrying"; continue; }
    break
  done
  warn "kdc: did not come up"
  show_log_tail "$log"
  return 1
}

kdc_write_config() {
  local port=$1 kdir=$2
  cat >"$KRB5_CONFIG" <<CONF
# Private Kerberos client configuration for the sluice test servers.
[libdefaults]
    default_realm = $KDC_REALM
    dns_lookup_realm = false
    dns_lookup_kdc = false
    rdns = false
    dns_canonicalize_hostname = false
    ticket_lifetime = 24h
    forwardable = true
    udp_preference_limit = 1

[realms]
    $KDC_REALM = {
        kdc = 127.0.0.1:$port
        admin_server = 127.0.0.1:$port
    }

[domain_realm]
    localhost = $KDC_REALM
    127.0.0.1 = $KDC_REALM
CONF
  cat >"$KRB5_KDC_PROFILE" <<CONF
# Private KDC configuration for the sluice test servers.
[kdcdefaults]
    kdc_listen = 127.0.0.1:$port
    kdc_tcp_listen = 127.0.0.1:$port

[realms]
    $KDC_REALM = {
        database_name = $kdir/principal
        key_stash_file = $kdir/stash
        acl_file = $kdir/kadm5.acl
        kdc_listen = 127.0.0.1:$port
        kdc_tcp_listen = 127.0.0.1:$port
        max_life = 24h
    }

[logging]
    kdc = STDERR
CONF
}

kdc_make_realm() {
  local kdir=$1
  : >"$kdir/kadm5.acl" &&
    kdb5_util create -s -r "$KDC_REALM" -P "$(random_secret)" &&
    kadmin.local -r "$KDC_REALM" <<KADMIN &&
addprinc -pw $KDC_PASSWORD $KDC_USER
addprinc -randkey mariadb/localhost
ktadd -k $KDC_KEYTAB mariadb/localhost
KADMIN
    chmod 600 "$KDC_KEYTAB"
}

kdc_kinit() {
  echo "$KDC_PASSWORD" | KRB5CCNAME="$KDC_CCACHE" kinit "$KDC_USER@$KDC_REALM" >/dev/null
}

kdc_env() {
  env_set SLUICE_KRB5_REALM "$KDC_REALM"
  env_set KRB5_CONFIG "$KRB5_CONFIG"
  env_set SLUICE_KDC_PORT "$KDC_PORT"
  env_set SLUICE_KRB5_PRINCIPAL "$KDC_USER@$KDC_REALM"
  env_set SLUICE_KRB5_PASSWORD "$KDC_PASSWORD"
  env_set SLUICE_KRB5_SERVICE_PRINCIPAL "mariadb/localhost@$KDC_REALM"
  env_set SLUICE_KRB5_KEYTAB "$KDC_KEYTAB"
  env_set SLUICE_KRB5_CCACHE "$KDC_CCACHE"
}

kdc_stop() { stop_process kdc krb5kdc TERM; }
