#!/usr/bin/env bash
# The server runs with the settings change data capture and the client tests
# rely on: binlog ROW/FULL/CRC32 with full metadata, server_id, GTID strict
# mode, local_infile, a 1 GiB max_allowed_packet, the three auth plugins.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
load_env

admin=(-u "$SLUICE_MARIADB_ADMIN_USER" -p"$SLUICE_MARIADB_ADMIN_PASSWORD")
got=$(mariadb_tls "${admin[@]}" -e "SELECT CONCAT_WS(' ', @@log_bin, @@binlog_format, @@binlog_row_image,
  @@binlog_row_metadata, @@binlog_checksum, @@server_id, @@gtid_strict_mode, @@local_infile,
  @@max_allowed_packet, @@have_ssl, @@bind_address, LEFT(@@version, 5))")
expect_equal "server settings" \
  "ON ROW FULL FULL CRC32 $SLUICE_MARIADB_SERVER_ID ON ON 1073741824 YES 127.0.0.1 10.11" "$got"

plugins=$(mariadb_tls "${admin[@]}" -e "SELECT GROUP_CONCAT(PLUGIN_NAME ORDER BY PLUGIN_NAME)
  FROM information_schema.PLUGINS WHERE PLUGIN_TYPE = 'AUTHENTICATION' AND PLUGIN_STATUS = 'ACTIVE'
  AND PLUGIN_NAME IN ('ed25519', 'pam', 'gssapi')")
expected=ed25519,pam
[ -n "${SLUICE_MARIADB_GSSAPI_USER:-}" ] && expected=ed25519,gssapi,pam
expect_equal "active auth plugins" "$expected" "$plugins"

# A transaction is written to the binlog as Gtid, Annotate_rows, Table_map,
# Write_rows_v1, Xid (in a database of its own, away from the tests' tables).
# Other tests write at the same time, some with 17 MiB rows: read only from
# the position before our insert, with a large enough packet limit, and pick
# our transaction out by a marker in its annotated statement.
mariadb_tls "${admin[@]}" -e "
  CREATE DATABASE IF NOT EXISTS sluice_harness;
  CREATE TABLE IF NOT EXISTS sluice_harness.binlog_check (id BIGINT UNSIGNED PRIMARY KEY, note VARCHAR(20));"
read -r file pos < <(mariadb_tls "${admin[@]}" -e "SHOW MASTER STATUS" | cut -f1,2)
marker="harness-$RANDOM$RANDOM"
mariadb_tls "${admin[@]}" -e "INSERT INTO sluice_harness.binlog_check VALUES (UUID_SHORT(), '$marker')"
events=""
for f in $(mariadb_tls "${admin[@]}" -e "SHOW BINARY LOGS" | cut -f1 | sed -n "/^$file\$/,\$p"); do
  from=4
  [ "$f" = "$file" ] && from=$pos
  events=$(mariadb_tls "${admin[@]}" --max-allowed-packet=1G -e "SHOW BINLOG EVENTS IN '$f' FROM $from" |
    awk -F'\t' -v m="$marker" '
      { type[NR] = $3; if (index($6, m) > 0) hit = NR }
      END {
        if (!hit) exit
        for (s = hit; s > 1 && type[s] != "Gtid"; s--) {}
        for (e = hit; e < NR && type[e] != "Xid"; e++) {}
        for (k = s; k <= e; k++) printf "%s ", type[k]
      }')
  [ -n "$events" ] && break
done
expect_equal "binlog events of one insert" "Gtid Annotate_rows Table_map Write_rows_v1 Xid " "$events"
gtid=$(mariadb_tls "${admin[@]}" -e "SELECT @@gtid_binlog_pos")
[[ "$gtid" =~ ^0-$SLUICE_MARIADB_SERVER_ID-[0-9]+ ]] || fail "gtid_binlog_pos '$gtid' is not 0-$SLUICE_MARIADB_SERVER_ID-N"
pass "settings, plugins ($plugins) and binlog events ($events) as expected; gtid $gtid"
