#!/usr/bin/env bash
# Logins that must fail: a wrong password, a certificate checked against a CA
# that did not sign it, and the REQUIRE SSL user without TLS.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
load_env
case_name=${1:?usage: mariadb_refusals.sh wrong_password|wrong_ca|ssl_user_without_tls}

# expect_refused WHAT OUTPUT-PATTERN COMMAND...
expect_refused() {
  local what=$1 pattern=$2 out
  shift 2
  if out=$("$@" -e "SELECT 1" 2>&1); then
    fail "$what: the login succeeded"
  fi
  [[ "$out" =~ $pattern ]] || fail "$what: refused for another reason than expected: $out"
  pass "$what: $out"
}

case "$case_name" in
  wrong_password)
    expect_refused "wrong password" "ERROR 1045" \
      mariadb_tls -u "$SLUICE_MARIADB_NATIVE_USER" -p"wrong-$SLUICE_MARIADB_NATIVE_PASSWORD" ;;
  wrong_ca)
    expect_refused "unrelated CA" "ERROR 2026.*certificate" \
      mariadb --no-defaults --protocol=TCP -h "$SLUICE_HOST" -P "$SLUICE_MARIADB_PORT" \
      --ssl-ca="$SLUICE_WRONG_CA" --ssl-verify-server-cert \
      -u "$SLUICE_MARIADB_NATIVE_USER" -p"$SLUICE_MARIADB_NATIVE_PASSWORD" ;;
  ssl_user_without_tls)
    expect_refused "REQUIRE SSL user over plain TCP" "ERROR 1045" \
      mariadb --no-defaults --protocol=TCP -h "$SLUICE_HOST" -P "$SLUICE_MARIADB_PORT" --skip-ssl \
      -u "$SLUICE_MARIADB_SSL_USER" -p"$SLUICE_MARIADB_SSL_PASSWORD" ;;
  *) fail "unknown case '$case_name'" ;;
esac
