#pragma once
// Numbers of the MariaDB client/server protocol: capability bits (the 32
// classic ones plus MariaDB's extension in the upper half), server status
// flags, command bytes, column types and column flags.
#include <cstdint>
#include <string_view>

namespace sluice::mariadb::protocol {

// The max_packet_size the client announces in its handshake response, and
// the default limit on a packet it accepts (ConnectOptions::max_packet_size).
inline constexpr std::uint32_t default_max_packet_size = 0x40000000;  // 1 GiB

// Capabilities as one 64-bit set: bits 0-31 travel in the classic fields,
// bits 32-63 are MariaDB's extended capabilities, sent in the handshake's
// reserved bytes only when CLIENT_MYSQL (bit 0) is clear, i.e. the server
// is MariaDB.
namespace cap {
inline constexpr std::uint64_t client_mysql = 1ull << 0;
inline constexpr std::uint64_t found_rows = 1ull << 1;
inline constexpr std::uint64_t long_flag = 1ull << 2;
inline constexpr std::uint64_t connect_with_db = 1ull << 3;
inline constexpr std::uint64_t compress = 1ull << 5;
inline constexpr std::uint64_t local_files = 1ull << 7;
inline constexpr std::uint64_t protocol_41 = 1ull << 9;
inline constexpr std::uint64_t interactive = 1ull << 10;
inline constexpr std::uint64_t ssl = 1ull << 11;
inline constexpr std::uint64_t transactions = 1ull << 13;
inline constexpr std::uint64_t secure_connection = 1ull << 15;
inline constexpr std::uint64_t multi_statements = 1ull << 16;
inline constexpr std::uint64_t multi_results = 1ull << 17;
inline constexpr std::uint64_t ps_multi_results = 1ull << 18;
inline constexpr std::uint64_t plugin_auth = 1ull << 19;
inline constexpr std::uint64_t connect_attrs = 1ull << 20;
inline constexpr std::uint64_t plugin_auth_lenenc_client_data = 1ull << 21;
inline constexpr std::uint64_t can_handle_expired_passwords = 1ull << 22;
inline constexpr std::uint64_t session_track = 1ull << 23;
inline constexpr std::uint64_t deprecate_eof = 1ull << 24;
inline constexpr std::uint64_t ssl_verify_server_cert = 1ull << 30;
inline constexpr std::uint64_t remember_options = 1ull << 31;
// MariaDB extended capabilities.
inline constexpr std::uint64_t mariadb_progress = 1ull << 32;
inline constexpr std::uint64_t mariadb_com_multi = 1ull << 33;
inline constexpr std::uint64_t mariadb_stmt_bulk_operations = 1ull << 34;
inline constexpr std::uint64_t mariadb_extended_metadata = 1ull << 35;
inline constexpr std::uint64_t mariadb_cache_metadata = 1ull << 36;
inline constexpr std::uint64_t mariadb_bulk_unit_results = 1ull << 37;
}  // namespace cap

// Server status flags (OK and EOF packets).
namespace status {
inline constexpr std::uint16_t in_trans = 0x0001;
inline constexpr std::uint16_t autocommit = 0x0002;
inline constexpr std::uint16_t more_results_exist = 0x0008;
inline constexpr std::uint16_t no_good_index_used = 0x0010;
inline constexpr std::uint16_t no_index_used = 0x0020;
inline constexpr std::uint16_t cursor_exists = 0x0040;
inline constexpr std::uint16_t last_row_sent = 0x0080;
inline constexpr std::uint16_t db_dropped = 0x0100;
inline constexpr std::uint16_t no_backslash_escapes = 0x0200;
inline constexpr std::uint16_t metadata_changed = 0x0400;
inline constexpr std::uint16_t query_was_slow = 0x0800;
inline constexpr std::uint16_t ps_out_params = 0x1000;
inline constexpr std::uint16_t in_trans_readonly = 0x2000;
inline constexpr std::uint16_t session_state_changed = 0x4000;
}  // namespace status

enum class Command : std::uint8_t {
    quit = 0x01,
    init_db = 0x02,
    query = 0x03,
    ping = 0x0e,
    stmt_prepare = 0x16,
    stmt_execute = 0x17,
    stmt_send_long_data = 0x18,
    stmt_close = 0x19,
    stmt_reset = 0x1a,
    reset_connection = 0x1f,
};

enum class ColumnType : std::uint8_t {
    decimal = 0,
    tiny = 1,
    short_ = 2,
    long_ = 3,
    float_ = 4,
    double_ = 5,
    null = 6,
    timestamp = 7,
    longlong = 8,
    int24 = 9,
    date = 10,
    time = 11,
    datetime = 12,
    year = 13,
    newdate = 14,
    varchar = 15,
    bit = 16,
    timestamp2 = 17,
    datetime2 = 18,
    time2 = 19,
    json = 245,
    newdecimal = 246,
    enum_ = 247,
    set = 248,
    tiny_blob = 249,
    medium_blob = 250,
    long_blob = 251,
    blob = 252,
    var_string = 253,
    string = 254,
    geometry = 255,
};

// SQL-ish name of a wire type ("BIGINT", "VARCHAR", ...), for messages.
std::string_view to_string(ColumnType type) noexcept;

namespace column_flag {
inline constexpr std::uint16_t not_null = 0x0001;
inline constexpr std::uint16_t primary_key = 0x0002;
inline constexpr std::uint16_t unique_key = 0x0004;
inline constexpr std::uint16_t multiple_key = 0x0008;
inline constexpr std::uint16_t blob = 0x0010;
inline constexpr std::uint16_t unsigned_ = 0x0020;
inline constexpr std::uint16_t zerofill = 0x0040;
inline constexpr std::uint16_t binary = 0x0080;
inline constexpr std::uint16_t enum_ = 0x0100;
inline constexpr std::uint16_t auto_increment = 0x0200;
inline constexpr std::uint16_t timestamp = 0x0400;
inline constexpr std::uint16_t set = 0x0800;
}  // namespace column_flag

// The `binary` character set: a string column with it holds bytes, not text.
inline constexpr std::uint16_t binary_collation = 63;
// utf8mb4_general_ci, the collation this client asks for.
inline constexpr std::uint8_t utf8mb4_general_ci = 45;

}  // namespace sluice::mariadb::protocol
