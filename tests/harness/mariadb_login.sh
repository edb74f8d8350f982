#!/usr/bin/env bash
# The stock `mariadb` client logs in as one test user (native, ed25519, pam,
# ssl, admin or gssapi) over TLS with the server certificate verified, and the
# server agrees on who it is and that the session is encrypted.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
load_env
kind=${1:?usage: mariadb_login.sh native|ed25519|pam|ssl|admin|gssapi}

args=()
case "$kind" in
  native)  user=$SLUICE_MARIADB_NATIVE_USER;  args=(-p"$SLUICE_MARIADB_NATIVE_PASSWORD") ;;
  ed25519) user=$SLUICE_MARIADB_ED25519_USER; args=(-p"$SLUICE_MARIADB_ED25519_PASSWORD") ;;
  pam)     user=$SLUICE_MARIADB_PAM_USER;     args=(-p"$SLUICE_MARIADB_PAM_PASSWORD") ;;
  ssl)     user=$SLUICE_MARIADB_SSL_USER;     args=(-p"$SLUICE_MARIADB_SSL_PASSWORD") ;;
  admin)   user=$SLUICE_MARIADB_ADMIN_USER;   args=(-p"$SLUICE_MARIADB_ADMIN_PASSWORD") ;;
  gssapi)
    user=$SLUICE_MARIADB_GSSAPI_USER
    # The ticket obtained at start; KRB5_CONFIG (from the env file) names the
    # private realm's KDC.
    export KRB5CCNAME=$SLUICE_KRB5_CCACHE
    klist -s || fail "no valid ticket in $KRB5CCNAME"
    ;;
  *) fail "unknown user kind '$kind'" ;;
esac

out=$(mariadb_tls -u "$user" "${args[@]}" -D "$SLUICE_MARIADB_DATABASE" \
  -e "SELECT CURRENT_USER(); SELECT VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Ssl_version'; SELECT DATABASE();") \
  || fail "$kind: login as $user failed"
mapfile -t lines <<<"$out"
expect_equal "CURRENT_USER() for $kind" "$user@%" "${lines[0]}"
[[ "${lines[1]}" == TLSv1.[23] ]] || fail "$kind: session not encrypted with TLS 1.2/1.3 (Ssl_version='${lines[1]}')"
expect_equal "DATABASE() for $kind" "$SLUICE_MARIADB_DATABASE" "${lines[2]}"

# The plugin the account uses is the one its kind names.
plugin=$(mariadb_tls -u "$SLUICE_MARIADB_ADMIN_USER" -p"$SLUICE_MARIADB_ADMIN_PASSWORD" \
  -e "SELECT plugin FROM mysql.user WHERE user = '$user' AND host = '%'")
case "$kind" in
  native|ssl|admin) expect_equal "plugin of $user" mysql_native_password "$plugin" ;;
  pam) expect_equal "plugin of $user" pam "$plugin" ;;
  *) expect_equal "plugin of $user" "$kind" "$plugin" ;;
esac
pass "$kind: $user@% over ${lines[1]}, plugin $plugin"
