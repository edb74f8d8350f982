# Shared by the harness checks: loads the servers' env file and offers small
# assertion helpers. Sourced, not run.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

load_env() {
  local file=${SLUICE_ENV_FILE:?SLUICE_ENV_FILE is not set (run through ctest, or export it)}
  [ -r "$file" ] || fail "env file $file is missing: are the servers up?"
  set -a
  # shellcheck disable=SC1090
  . "$file"
  set +a
}

# The stock client over TCP with the server certificate verified against
# SLUICE_CA; --no-defaults keeps the machine's my.cnf out of the picture.
mariadb_tls() {
  mariadb --no-defaults --protocol=TCP -h "$SLUICE_HOST" -P "$SLUICE_MARIADB_PORT" \
    --ssl-ca="$SLUICE_CA" --ssl-verify-server-cert --batch --skip-column-names "$@"
}

# expect_equal WHAT EXPECTED ACTUAL
expect_equal() {
  [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}
