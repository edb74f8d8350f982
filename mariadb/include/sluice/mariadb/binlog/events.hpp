#pragma once
// The typed binlog events Decoder::decode() returns: an EventHeader and one
// alternative of EventBody.
//
// LIFETIME: string_views and spans in an event point into the bytes given
// to decode() or, for the compressed events (QUERY_COMPRESSED,
// *_ROWS_COMPRESSED), into the decoder's inflate buffer, which the next
// decode() call on the same Decoder reuses. Copy what you keep past that.
// TableMap pointers are shared_ptrs and may be kept freely.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/mariadb/binlog/event_type.hpp"
#include "sluice/mariadb/binlog/table_map.hpp"

namespace sluice::mariadb::binlog {

using Bytes = std::span<const std::uint8_t>;

enum class Checksum : std::uint8_t {
    off = 0,
    crc32 = 1,
    undefined = 255,  // not declared (pre-5.6 FORMAT_DESCRIPTION, or before any FORMAT_DESCRIPTION)
};

struct FormatDescription {
    std::uint16_t binlog_version = 0;       // 4
    std::string_view server_version;        // "10.11.6-MariaDB-log" (NUL padding removed)
    std::uint32_t create_timestamp = 0;
    std::uint8_t header_length = 0;         // 19
    Bytes post_header_lengths;              // index = event type code - 1
    Checksum checksum = Checksum::undefined;
};

// ROTATE: the next events come from `next_file` at `position`. The dump
// stream starts with an artificial one (header flag artificial, timestamp
// 0, next_position 0) naming the file the dump starts in.
struct Rotate {
    std::uint64_t position = 0;
    std::string_view next_file;
    bool artificial = false;
};

// X/Open XID of an XA transaction.
struct XaXid {
    std::uint32_t format_id = 0;
    std::string_view gtrid;
    std::string_view bqual;
};

namespace gtid_flag {
inline constexpr std::uint8_t standalone = 0x01;      // no transaction follows (DDL, non-transactional)
inline constexpr std::uint8_t group_commit_id = 0x02;
inline constexpr std::uint8_t transactional = 0x04;
inline constexpr std::uint8_t allow_parallel = 0x08;
inline constexpr std::uint8_t waited = 0x10;
inline constexpr std::uint8_t ddl = 0x20;
inline constexpr std::uint8_t prepared_xa = 0x40;     // XA PREPARE's event group
inline constexpr std::uint8_t completed_xa = 0x80;    // XA COMMIT/ROLLBACK's event group
}  // namespace gtid_flag

struct GtidPosition {
    std::uint32_t domain_id = 0;
    std::uint32_t server_id = 0;
    std::uint64_t seq_no = 0;
    friend bool operator==(const GtidPosition&, const GtidPosition&) = default;
};
// "0-1-42"
std::string to_string(const GtidPosition& gtid);

// GTID: starts an event group (a transaction, or one standalone statement).
struct Gtid {
    std::uint32_t domain_id = 0;
    std::uint32_t server_id = 0;  // from the event header
    std::uint64_t seq_no = 0;
    std::uint8_t flags = 0;       // gtid_flag
    std::optional<std::uint64_t> commit_id;  // group_commit_id
    std::optional<XaXid> xa_xid;             // prepared_xa / completed_xa
    std::uint8_t flags_extra = 0;            // MariaDB 10.8+: multi-engine, alter, ...

    GtidPosition position() const noexcept { return {domain_id, server_id, seq_no}; }
    bool standalone() const noexcept { return flags & gtid_flag::standalone; }
    bool transactional() const noexcept { return flags & gtid_flag::transactional; }
    bool ddl() const noexcept { return flags & gtid_flag::ddl; }
    bool xa_prepare() const noexcept { return flags & gtid_flag::prepared_xa; }
    bool xa_complete() const noexcept { return flags & gtid_flag::completed_xa; }
};

// GTID_LIST: the binlog state at the start of a file (and, in the dump
// stream, where a GTID-based dump starts).
struct GtidList {
    std::uint8_t flags = 0;  // the upper 4 bits of the count word
    std::vector<GtidPosition> gtids;
};

struct BinlogCheckpoint {
    std::string_view file;
};

// TABLE_MAP: also remembered by the decoder for the Rows events after it.
struct TableMapEvent {
    std::shared_ptr<const TableMap> table;
};

enum class RowsKind : std::uint8_t { write, update, delete_ };
std::string_view to_string(RowsKind kind) noexcept;  // "insert", "update", "delete"

// WRITE/UPDATE/DELETE_ROWS v1, v2 and their compressed forms (inflated).
// Read its row changes with RowReader (rows.hpp).
struct Rows {
    RowsKind kind = RowsKind::write;
    EventType type = EventType::unknown;
    std::uint8_t version = 1;      // 1 or 2
    bool compressed = false;
    std::uint64_t table_id = 0;
    std::uint16_t flags = 0;       // rows_flag
    Bytes extra_data;              // v2 extra row info (without its length)
    std::shared_ptr<const TableMap> table;
    std::uint32_t column_count = 0;  // as the event says (checked against the table map)
    Bytes columns_before;          // present-columns bitmap of the before image (update, delete)
    Bytes columns_after;           // present-columns bitmap of the after image (write, update)
    Bytes rows;                    // the row images
    // For RowReader's error messages: where the event is.
    std::shared_ptr<const std::string> log_file;
    std::uint64_t log_offset = 0;

    bool end_of_statement() const noexcept { return flags & 0x0001; }
};

namespace rows_flag {
inline constexpr std::uint16_t end_of_statement = 0x0001;
inline constexpr std::uint16_t no_foreign_key_checks = 0x0002;
inline constexpr std::uint16_t relaxed_unique_checks = 0x0004;
inline constexpr std::uint16_t complete_rows = 0x0008;
}  // namespace rows_flag

// QUERY and QUERY_COMPRESSED (inflated): BEGIN, COMMIT, ROLLBACK, DDL, XA
// COMMIT, statement-based DML.
struct Query {
    std::uint32_t thread_id = 0;
    std::uint32_t exec_time = 0;
    std::uint16_t error_code = 0;
    std::string_view schema;      // the default database ("" for none)
    std::string_view sql;
    Bytes status_vars;            // raw; the ones below are parsed from it
    std::optional<std::uint32_t> flags2;
    std::optional<std::uint64_t> sql_mode;
    std::optional<std::uint16_t> charset_client;  // character_set_client collation id
    std::optional<std::uint64_t> xid;             // MariaDB Q_XID (DDL logged with an xid)
    bool compressed = false;
};

struct Xid {
    std::uint64_t xid = 0;
};

// XA_PREPARE_LOG_EVENT: ends the event group of XA PREPARE (or of XA
// COMMIT ... ONE PHASE when one_phase).
struct XaPrepare {
    bool one_phase = false;
    XaXid xid;
};

// ANNOTATE_ROWS: the statement that produced the following row events.
struct AnnotateRows {
    std::string_view sql;
};

// HEARTBEAT (artificial): no events for a while; the dump is at `log_file`
// and header.next_position.
struct Heartbeat {
    std::string_view log_file;
};

struct Stop {};

struct Incident {
    std::uint16_t code = 0;   // 1 = LOST_EVENTS
    std::string_view message;
};

// Any other event (INTVAR, RAND, USER_VAR, START_ENCRYPTION, MySQL-only
// codes, codes from newer servers): skipped by its length.
struct Unknown {
    Bytes body;  // after the header, without the checksum
};

using EventBody = std::variant<FormatDescription, Rotate, Gtid, GtidList, BinlogCheckpoint, TableMapEvent,
                               Rows, Query, Xid, XaPrepare, AnnotateRows, Heartbeat, Stop, Incident,
                               Unknown>;

struct Event {
    EventHeader header;
    EventBody body;
};

}  // namespace sluice::mariadb::binlog
