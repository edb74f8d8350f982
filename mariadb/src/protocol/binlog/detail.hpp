#pragma once
// Internal interfaces between the binlog decoder's files: one parser per
// event kind, the column decoders, CRC32 and inflate. Every parser reads
// through protocol::Reader (which names the event and field on failure);
// Decoder::decode() adds the binlog file and offset to the message.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "sluice/mariadb/binlog/events.hpp"
#include "sluice/mariadb/binlog/table_map.hpp"
#include "sluice/mariadb/binlog/value.hpp"
#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::binlog::detail {

using protocol::as_text;
using protocol::Reader;

// The CRC-32 of zlib (the binlog's BINLOG_CHECKSUM_ALG_CRC32): crc32()
// picks crc32_sliced() below `long_event` bytes and libdeflate's from there.
inline constexpr std::size_t long_event = 1024;
std::uint32_t crc32(Bytes bytes) noexcept;
std::uint32_t crc32_sliced(Bytes bytes) noexcept;
inline std::uint32_t stored_crc32(Bytes event) noexcept {
    const std::uint8_t* p = event.data() + event.size() - 4;
    return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
           (std::uint32_t{p[3]} << 24);
}

// MariaDB's compressed-event payload (binlog_buf_compress): one byte
// 0x80 | n, n bytes of the inflated length (big-endian), then a zlib
// stream. Inflates into `out` (replacing its contents) and returns it.
// The claimed length is checked against what zlib can produce from the
// bytes present before anything is allocated.
Bytes inflate(Reader& r, std::string_view field, std::vector<std::uint8_t>& out);

// FORMAT_DESCRIPTION: `event` is the whole event (its checksum algorithm
// byte sits 5 bytes from its end).
FormatDescription parse_format_description(Bytes event);

Rotate parse_rotate(Reader& r, const EventHeader& header);
Gtid parse_gtid(Reader& r, const EventHeader& header);
GtidList parse_gtid_list(Reader& r);
BinlogCheckpoint parse_binlog_checkpoint(Reader& r);
Query parse_query(Reader& r, std::uint8_t post_header_length, bool compressed,
                  std::vector<std::uint8_t>& inflated);
Xid parse_xid(Reader& r);
XaPrepare parse_xa_prepare(Reader& r);
AnnotateRows parse_annotate_rows(Reader& r);
Heartbeat parse_heartbeat(Reader& r);
Incident parse_incident(Reader& r);

std::shared_ptr<TableMap> parse_table_map(Reader& r, std::uint8_t post_header_length);
// Fills schema_type (and missing names) from the hint when the column
// count matches; clears what an earlier hint set otherwise.
void apply_schema(TableMap& table, const TableSchema* schema);

// The fixed part of a rows event up to its row images. `find_table` maps
// the table id to the table map (nullptr when unknown: an error).
template <class FindTable>
Rows parse_rows(Reader& r, EventType type, std::uint8_t post_header_length,
                std::vector<std::uint8_t>& inflated, FindTable&& find_table);
struct RowsHead {
    std::uint64_t table_id = 0;
    std::uint16_t flags = 0;
    Bytes extra_data;
};
RowsHead parse_rows_head(Reader& r, EventType type, std::uint8_t post_header_length);
void parse_rows_body(Reader& r, Rows& rows);
RowsKind rows_kind(EventType type) noexcept;
bool is_rows_event(EventType type) noexcept;
bool is_compressed_rows_event(EventType type) noexcept;
std::uint8_t rows_version(EventType type) noexcept;

template <class FindTable>
Rows parse_rows(Reader& r, EventType type, std::uint8_t post_header_length,
                std::vector<std::uint8_t>& inflated, FindTable&& find_table) {
    Rows rows;
    rows.type = type;
    rows.kind = rows_kind(type);
    rows.version = rows_version(type);
    rows.compressed = is_compressed_rows_event(type);
    RowsHead head = parse_rows_head(r, type, post_header_length);
    rows.table_id = head.table_id;
    rows.flags = head.flags;
    rows.extra_data = head.extra_data;
    rows.table = find_table(head.table_id);
    if (!rows.table) {
        // A dummy rows event with table id 0x00ffffff ends a statement
        // whose rows were all filtered: nothing to read, nothing to map.
        if (head.table_id == 0x00ffffff && r.at_end()) return rows;
        r.fail("table id", "rows for table id " + std::to_string(head.table_id) +
                               " with no TABLE_MAP_EVENT before them");
    }
    parse_rows_body(r, rows);
    // Compressed events deflate only the row images: the column count and
    // bitmaps before them are plain.
    if (rows.compressed) {
        Reader images(rows.rows, to_string(type));
        rows.rows = inflate(images, "compressed rows", inflated);
    }
    return rows;
}

// One value of a row image, per the column's type and metadata.
void decode_value(const ColumnInfo& column, Reader& r, Value& out);

// DECIMAL's binary form (precision, scale) -> text; its size in bytes.
std::size_t decimal_binary_size(std::uint8_t precision, std::uint8_t scale) noexcept;
Decimal decode_decimal(Bytes bytes, std::uint8_t precision, std::uint8_t scale, Reader& for_errors,
                       std::string_view field);

}  // namespace sluice::mariadb::binlog::detail
