// QUERY_EVENT and QUERY_COMPRESSED_EVENT: BEGIN, COMMIT, DDL, XA COMMIT.
// The status variables are walked as the server does: each code has a
// known size; an unknown code ends the walk (the raw bytes stay available).
#include <string>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

namespace {

enum StatusCode : std::uint8_t {
    q_flags2 = 0,
    q_sql_mode = 1,
    q_catalog = 2,
    q_auto_increment = 3,
    q_charset = 4,
    q_time_zone = 5,
    q_catalog_nz = 6,
    q_lc_time_names = 7,
    q_charset_database = 8,
    q_table_map_for_update = 9,
    q_master_data_written = 10,
    q_invoker = 11,
    q_updated_db_names = 12,
    q_microseconds = 13,
    q_commit_ts = 14,
    q_commit_ts2 = 15,
    q_explicit_defaults_for_timestamp = 16,
    q_ddl_logged_with_xid = 17,
    q_default_collation_for_utf8mb4 = 18,
    q_sql_require_primary_key = 19,
    q_default_table_encryption = 20,
    q_hrnow = 128,      // MariaDB: microseconds of the statement's start
    q_xid = 129,        // MariaDB: the xid of a DDL
    q_gtid_flags3 = 130,
    q_character_set_collations = 131,
};

constexpr std::uint8_t over_max_dbs = 254;

void parse_status_vars(Bytes vars, Query& q) {
    Reader r(vars, "QUERY_EVENT status variables");
    while (!r.at_end()) {
        std::uint8_t code = r.u8("status variable code");
        switch (code) {
            case q_flags2: q.flags2 = r.u32("Q_FLAGS2"); break;
            case q_sql_mode: q.sql_mode = r.u64("Q_SQL_MODE"); break;
            case q_catalog: {
                std::uint8_t n = r.u8("Q_CATALOG length");
                r.skip(std::size_t{n} + 1, "Q_CATALOG");
                break;
            }
            case q_auto_increment: r.skip(4, "Q_AUTO_INCREMENT"); break;
            case q_charset:
                q.charset_client = r.u16("Q_CHARSET client");
                r.skip(4, "Q_CHARSET connection and server");
                break;
            case q_time_zone:
            case q_catalog_nz: {
                std::uint8_t n = r.u8("status variable length");
                r.skip(n, "status variable");
                break;
            }
            case q_lc_time_names: r.skip(2, "Q_LC_TIME_NAMES"); break;
            case q_charset_database: r.skip(2, "Q_CHARSET_DATABASE"); break;
            case q_table_map_for_update: r.skip(8, "Q_TABLE_MAP_FOR_UPDATE"); break;
            case q_master_data_written: r.skip(4, "Q_MASTER_DATA_WRITTEN"); break;
            case q_invoker: {
                std::uint8_t user = r.u8("Q_INVOKER user length");
                r.skip(user, "Q_INVOKER user");
                std::uint8_t host = r.u8("Q_INVOKER host length");
                r.skip(host, "Q_INVOKER host");
                break;
            }
            case q_updated_db_names: {
                std::uint8_t n = r.u8("Q_UPDATED_DB_NAMES count");
                if (n != over_max_dbs)
                    for (std::uint8_t i = 0; i < n; ++i) r.nul_text("Q_UPDATED_DB_NAMES name");
                break;
            }
            case q_microseconds: r.skip(3, "Q_MICROSECONDS"); break;
            case q_explicit_defaults_for_timestamp: r.skip(1, "Q_EXPLICIT_DEFAULTS_FOR_TIMESTAMP"); break;
            case q_ddl_logged_with_xid: r.skip(8, "Q_DDL_LOGGED_WITH_XID"); break;
            case q_default_collation_for_utf8mb4: r.skip(2, "Q_DEFAULT_COLLATION_FOR_UTF8MB4"); break;
            case q_sql_require_primary_key: r.skip(1, "Q_SQL_REQUIRE_PRIMARY_KEY"); break;
            case q_default_table_encryption: r.skip(1, "Q_DEFAULT_TABLE_ENCRYPTION"); break;
            case q_hrnow: r.skip(3, "Q_HRNOW"); break;
            case q_xid: q.xid = r.u64("Q_XID"); break;
            case q_gtid_flags3: r.skip(1, "Q_GTID_FLAGS3"); break;
            default: return;  // unknown (or variable-length we do not need): the server stops here too
        }
    }
}

}  // namespace

Query parse_query(Reader& r, std::uint8_t post_header_length, bool compressed,
                  std::vector<std::uint8_t>& inflated) {
    Query q;
    q.compressed = compressed;
    if (post_header_length < 11)
        r.fail("post-header", "QUERY_EVENT post-header of " + std::to_string(post_header_length) +
                                  " bytes (at least 11)");
    q.thread_id = r.u32("thread id");
    q.exec_time = r.u32("exec time");
    std::uint8_t schema_length = r.u8("schema length");
    q.error_code = r.u16("error code");
    std::uint16_t status_length = post_header_length >= 13 ? r.u16("status vars length") : 0;
    if (post_header_length > 13) r.skip(post_header_length - 13u, "post-header");
    q.status_vars = r.bytes(status_length, "status vars");
    q.schema = as_text(r.bytes(schema_length, "schema"));
    if (r.u8("schema terminator") != 0) r.fail("schema terminator", "schema name not NUL-terminated");
    q.sql = compressed ? as_text(inflate(r, "compressed statement", inflated)) : as_text(r.rest());
    parse_status_vars(q.status_vars, q);
    return q;
}

}  // namespace sluice::mariadb::binlog::detail
