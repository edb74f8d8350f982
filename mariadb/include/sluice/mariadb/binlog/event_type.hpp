#pragma once
// Binlog event type codes (MariaDB 10.11 and the MySQL codes it shares) and
// the 19-byte common event header.
#include <cstdint>
#include <string_view>

namespace sluice::mariadb::binlog {

enum class EventType : std::uint8_t {
    unknown = 0,
    start_v3 = 1,
    query = 2,
    stop = 3,
    rotate = 4,
    intvar = 5,
    load = 6,
    slave = 7,
    create_file = 8,
    append_block = 9,
    exec_load = 10,
    delete_file = 11,
    new_load = 12,
    rand = 13,
    user_var = 14,
    format_description = 15,
    xid = 16,
    begin_load_query = 17,
    execute_load_query = 18,
    table_map = 19,
    pre_ga_write_rows = 20,
    pre_ga_update_rows = 21,
    pre_ga_delete_rows = 22,
    write_rows_v1 = 23,
    update_rows_v1 = 24,
    delete_rows_v1 = 25,
    incident = 26,
    heartbeat = 27,
    ignorable = 28,
    rows_query = 29,
    write_rows_v2 = 30,
    update_rows_v2 = 31,
    delete_rows_v2 = 32,
    mysql_gtid = 33,
    mysql_anonymous_gtid = 34,
    mysql_previous_gtids = 35,
    mysql_transaction_context = 36,
    mysql_view_change = 37,
    mysql_xa_prepare = 38,
    mysql_partial_update_rows = 39,
    // MariaDB's own events, from 160.
    annotate_rows = 160,
    binlog_checkpoint = 161,
    gtid = 162,
    gtid_list = 163,
    start_encryption = 164,
    query_compressed = 165,
    write_rows_compressed_v1 = 166,
    update_rows_compressed_v1 = 167,
    delete_rows_compressed_v1 = 168,
    write_rows_compressed = 169,
    update_rows_compressed = 170,
    delete_rows_compressed = 171,
    // (MariaDB 11.x adds 172 PARTIAL_ROW_DATA; decoded as Unknown here.)
};

// "WRITE_ROWS_EVENT_V1", "GTID_EVENT", ...; "UNKNOWN_EVENT" for codes it
// does not know (error messages then add the code: "UNKNOWN_EVENT(200)").
std::string_view to_string(EventType type) noexcept;

// The common header every event starts with (19 bytes, v4 format).
struct EventHeader {
    std::uint32_t timestamp = 0;      // seconds since the epoch (the statement's start)
    EventType type = EventType::unknown;
    std::uint8_t type_code = 0;       // the raw code (type may be `unknown` for codes we do not know)
    std::uint32_t server_id = 0;
    std::uint32_t event_length = 0;   // whole event: header + body + checksum
    std::uint32_t next_position = 0;  // end of this event in its binlog file; 0 for artificial events
    std::uint16_t flags = 0;          // see header_flag
};

inline constexpr std::size_t event_header_length = 19;

namespace header_flag {
inline constexpr std::uint16_t binlog_in_use = 0x0001;
inline constexpr std::uint16_t thread_specific = 0x0004;
inline constexpr std::uint16_t suppress_use = 0x0008;
inline constexpr std::uint16_t artificial = 0x0020;
inline constexpr std::uint16_t relay_log = 0x0040;
inline constexpr std::uint16_t ignorable = 0x0080;
inline constexpr std::uint16_t skip_replication = 0x8000;
}  // namespace header_flag

}  // namespace sluice::mariadb::binlog
