#pragma once
// The NDJSON lines of `sluice-mariadb cdc`, one per event:
//
//   {"gtid":"0-1-42","server_id":1,"ts":1764576000,"changes":[
//       {"op":"insert","db":"shop","table":"orders","after":{...}},
//       {"op":"update","db":...,"table":...,"before":{...},"after":{...}},
//       {"op":"delete",...,"before":{...}}]}
//   {"gtid":"0-1-43","server_id":1,"ts":...,"db":"shop","ddl":"ALTER TABLE ..."}
//   {"snapshot":{"gtid":"0-1-41","db":...,"table":...},"rows":[{...},...]}
//   {"snapshot":{"gtid":"0-1-41","done":true}}
//
// Images are objects keyed by column name with the columns the server
// logged; every value is written by the formatter of sluice/mariadb/ndjson.hpp
// (as `sluice-mariadb --format ndjson` prints it from a SELECT). A column
// without a name (binlog_row_metadata=MINIMAL and no schema) is "@N",
// N counting from 1 as mariadb-binlog does.
//
// The Buffer overloads write into the formatter's own buffer (no zeroing,
// no per-cell std::string): the CLI formats its whole output that way. The
// std::string overloads give the same bytes.
#include <cstring>
#include <string>
#include <string_view>

#include "sluice/mariadb/binlog/rows.hpp"
#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/ndjson.hpp"

namespace sluice::mariadb::cdc::ndjson {

// One binlog value, as the SELECT formatter prints the same column.
void append_value(std::string& out, const binlog::Value& value, const binlog::ColumnInfo& column);
// {"name":value,...} over the present cells.
void append_image(std::string& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table);
// {"name":value,...} of snapshot row `row` (as in the chunk's line).
void append_snapshot_row(std::string& out, const SnapshotChunk& chunk, std::size_t row);
// The event's line, newline included.
void append_line(std::string& out, const ChangeEvent& event);

void append_value(mariadb::ndjson::Buffer& out, const binlog::Value& value, const binlog::ColumnInfo& column);
void append_image(mariadb::ndjson::Buffer& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table);
// Returns the row changes in the line (0 but for a transaction's).
std::size_t append_line(mariadb::ndjson::Buffer& out, const ChangeEvent& event);

// The row changes in transaction lines (0 for the other kinds): each change
// opens with {"op":" and a value cannot hold that unescaped, so counting it
// (memmem) is exact without parsing.
inline std::uint64_t count_row_changes(std::string_view lines) {
    static constexpr std::string_view mark = "{\"op\":\"";
    std::uint64_t n = 0;
    const char* p = lines.data();
    const char* end = p + lines.size();
    while (const void* hit = memmem(p, static_cast<std::size_t>(end - p), mark.data(), mark.size())) {
        ++n;
        p = static_cast<const char*>(hit) + mark.size();
    }
    return n;
}

}  // namespace sluice::mariadb::cdc::ndjson
