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
// A transaction whose line would be longer than a bound (TransactionLines,
// `cdc --max-line-bytes`) is written as consecutive lines, its parts, keys
// in exactly this order:
//
//   {"gtid":"0-1-44","server_id":1,"ts":...,"part":1,"changes":[...]}
//   {"gtid":"0-1-44","server_id":1,"ts":...,"part":2,"changes":[...]}
//   {"gtid":"0-1-44","server_id":1,"ts":...,"part":3,"last":true,"changes":[...]}
//
// and a transaction that fits one line is written as above, without "part".
// (A group the server logged with ROLLBACK after parts went out ends with
// {"gtid":...,"part":K,"last":true,"rolled_back":true,"changes":[]}: its
// parts are void. docs/mariadb-cdc.md, "Transactions in parts".)
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
#include <vector>

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

// Writes a transaction as it arrives (ChangeStream's TransactionParts) in
// lines of at most `max_line_bytes` each, newline included (a single change
// longer than that is a line of its own, over the bound): memory is one
// line's worth whatever the transaction's size. A transaction that fits one
// line is written as append_line writes it, at its last part; otherwise a
// line goes out as soon as the next change would not fit it.
//
// `later_line_bytes` (at most max_line_bytes; 0: the same): the bound of
// part lines after the first. The first line has to be held up to the full
// bound (it may turn out to be the whole transaction's); once a transaction
// is known to need parts, smaller lines keep the line being filled in the
// CPU's cache (the CLI: 128 KiB; an 8 MiB line cost 1.7x the time).
class TransactionLines {
public:
    explicit TransactionLines(std::size_t max_line_bytes, std::size_t later_line_bytes = 0);
    // Part 1 too at most `later_line_bytes`: a transaction that fits one
    // line of `max_line_bytes` is still that one line, but once it needs
    // parts, what was held of line 1 goes out cut at change boundaries into
    // lines of the later bound (the JetStream publisher: a consumer waiting
    // for the last part then decodes 1 MiB messages only).
    void split_first_line() noexcept { split_first_ = true; }
    // Formats the part's changes; complete lines are appended to `out`.
    // Returns the changes formatted.
    std::size_t add(mariadb::ndjson::Buffer& out, const TransactionPart& part);
    // Changes of the transaction in flight so far (0 between transactions).
    std::uint64_t rows_in_flight() const noexcept { return rows_; }
    // Lines of the transaction in flight written so far.
    std::size_t lines_out() const noexcept { return line_ - 1; }
    // The next transaction (its part 1 comes next) continues lines written
    // earlier (a JetStream publisher resuming at the next part): its first
    // `changes` changes are left out and its lines are numbered from
    // `lines_written` + 1, all as parts.
    void resume_after(std::uint64_t changes, std::size_t lines_written) noexcept {
        skip_ = changes;
        resume_lines_ = lines_written;
    }

private:
    void write_line(mariadb::ndjson::Buffer& out, std::string_view changes, bool last, bool rolled_back);
    std::size_t part_line_size(std::size_t changes_bytes) const noexcept;
    // Writes line 1's `changes` as part lines of the later bound but for
    // the last piece; returns where that piece begins (0: nothing written,
    // the whole fits one such line).
    std::size_t write_first_line_split(mariadb::ndjson::Buffer& out, std::string_view changes);

    std::size_t max_;
    std::size_t later_max_;
    mariadb::ndjson::Buffer head_;     // {"gtid":...,"server_id":...,"ts":...
    mariadb::ndjson::Buffer pending_;  // the current line's changes, comma-separated
    mariadb::ndjson::Buffer change_;   // what of a full line starts the next one
    std::size_t fits_ = 0;             // pending_'s prefix (whole changes) that fits a part line
    std::size_t line_ = 1;             // the part number of the line being filled
    std::uint64_t rows_ = 0;
    std::uint64_t skip_ = 0;         // resume_after
    std::size_t resume_lines_ = 0;
    bool resumed_ = false;           // the transaction in flight continues earlier lines
    bool sized_ = false;             // pending_ has room for a full line 1
    bool split_first_ = false;       // split_first_line()
    std::vector<std::size_t> starts_;  // where line 1's changes begin in pending_ (split_first_ only)
};

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
