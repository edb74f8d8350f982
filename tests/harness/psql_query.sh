#!/usr/bin/env bash
# psql reaches the private PostgreSQL over TCP (SLUICE_PG_URL) and over its
# private socket directory, as the trusted superuser, in database sluice.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
load_env

got=$(psql -X -A -t -v ON_ERROR_STOP=1 "$SLUICE_PG_URL" \
  -c "SELECT current_user || ' ' || current_database() || ' ' || (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) || ' ' || sum(g) FROM generate_series(1, 100) g")
expect_equal "psql over TCP" "$SLUICE_PG_USER $SLUICE_PG_DATABASE true 5050" "$got"

version=$(psql -X -A -t -h "$SLUICE_PG_SOCKET_DIR" -p "$SLUICE_PG_PORT" -U "$SLUICE_PG_USER" \
  -d "$SLUICE_PG_DATABASE" -c "SHOW server_version_num")
[[ "$version" == 15* ]] || fail "server_version_num $version is not PostgreSQL 15"
listen=$(psql -X -A -t "$SLUICE_PG_URL" -c "SHOW listen_addresses")
expect_equal "listen_addresses" 127.0.0.1 "$listen"
pass "psql: $got; version $version"
