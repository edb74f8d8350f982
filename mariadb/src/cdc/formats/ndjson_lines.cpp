#include "sluice/mariadb/cdc/ndjson.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace sluice::mariadb::cdc::ndjson {

namespace json = sluice::mariadb::ndjson;
using json::Buffer;

namespace {

// The JSON keys of one table's columns, escaped once for all the row changes
// of that table in a line: `,"name":` per column (the first cell of an image
// skips the comma), and the start of each kind of change up to its first image.
class TableKeys {
public:
    // Forgets the table (a new line: the maps of the last one may be gone).
    void reset() noexcept { table_ = nullptr; }

    // Keys for `table`, made again only when the table changes.
    const TableKeys& of(const binlog::TableMap& table) {
        if (&table == table_) return *this;
        table_ = &table;
        keys_.clear();
        ends_.clear();
        for (std::size_t i = 0; i < table.columns.size(); ++i) {
            keys_ += ',';
            const std::string& name = table.columns[i].name;
            if (!name.empty()) json::append_key(keys_, name);
            else json::append_key(keys_, "@" + std::to_string(i + 1));
            ends_.push_back(keys_.size());
        }
        std::string where = "\",\"db\":";
        json::append_string(where, table.db);
        where += ",\"table\":";
        json::append_string(where, table.table);
        insert_ = "{\"op\":\"insert" + where + ",\"after\":";
        update_ = "{\"op\":\"update" + where + ",\"before\":";
        delete_ = "{\"op\":\"delete" + where + ",\"before\":";
        return *this;
    }

    // `,"name":` of column i.
    std::string_view key(std::size_t i) const noexcept {
        const std::size_t from = i == 0 ? 0 : ends_[i - 1];
        return std::string_view(keys_).substr(from, ends_[i] - from);
    }
    std::string_view head(binlog::RowsKind op) const noexcept {
        switch (op) {
            case binlog::RowsKind::write: return insert_;
            case binlog::RowsKind::update: return update_;
            case binlog::RowsKind::delete_: return delete_;
        }
        return insert_;
    }

private:
    const binlog::TableMap* table_ = nullptr;
    std::string keys_;
    std::vector<std::size_t> ends_;
    std::string insert_, update_, delete_;
};

void write_quoted(Buffer& out, std::string_view plain_text) {
    char* p = out.room(plain_text.size() + 2);
    *p++ = '"';
    std::memcpy(p, plain_text.data(), plain_text.size());
    p += plain_text.size();
    *p++ = '"';
    out.commit(p);
}

void write_string(Buffer& out, std::string_view text) {
    out.commit(json::write_string(out.room(json::string_bound(text.size())), text));
}

void write_base64(Buffer& out, binlog::Bytes bytes, std::size_t zero_padding = 0) {
    out.commit(json::write_base64(out.room(json::base64_length(bytes.size() + zero_padding)), bytes, zero_padding));
}

// Dates and times as strings: binlog::write_text gives the SELECT's text
// (the column's fractional digits, TIMESTAMP in UTC).
template <class T>
void write_temporal(Buffer& out, const T& v, const binlog::ColumnInfo& c) {
    char* p = out.room(binlog::max_temporal_text + 2);
    *p++ = '"';
    if constexpr (std::is_same_v<T, Date>) p = binlog::write_text(p, v);
    else p = binlog::write_text(p, v, c.fsp);
    *p++ = '"';
    out.commit(p);
}

void write_value(Buffer& out, const binlog::Value& value, const binlog::ColumnInfo& column) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t>)
                out.commit(json::write_integer(out.room(json::max_number_length), v));
            else if constexpr (std::is_same_v<T, std::uint64_t>)
                out.commit(json::write_unsigned(out.room(json::max_number_length), v));
            else if constexpr (std::is_same_v<T, float>)
                out.commit(json::write_float(out.room(json::max_number_length), v));
            else if constexpr (std::is_same_v<T, double>)
                out.commit(json::write_double(out.room(json::max_number_length), v));
            else if constexpr (std::is_same_v<T, Decimal>) write_quoted(out, v.text());  // digits, '-', '.'
            else if constexpr (std::is_same_v<T, Date> || std::is_same_v<T, Time> || std::is_same_v<T, DateTime> ||
                               std::is_same_v<T, binlog::Timestamp>)
                write_temporal(out, v, column);
            else if constexpr (std::is_same_v<T, binlog::Year>)
                out.commit(json::write_unsigned(out.room(json::max_number_length), v.value));
            else if constexpr (std::is_same_v<T, binlog::Bit>)
                out.commit(json::write_unsigned(out.room(json::max_number_length), v.value));
            else if constexpr (std::is_same_v<T, binlog::Text>) write_string(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Json>) write_string(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Enum>) write_string(out, v.name);
            else if constexpr (std::is_same_v<T, binlog::Blob>)
                write_base64(out, v.value, v.padded_length > v.value.size() ? v.padded_length - v.value.size() : 0);
            else if constexpr (std::is_same_v<T, binlog::Geometry>) write_base64(out, v.value);
            else {
                // SET, UUID, INET: binlog::append_text gives the SELECT's text.
                thread_local std::string text;
                text.clear();
                binlog::append_text(text, value, column);
                write_string(out, text);
            }
        },
        value);
}

void write_image(Buffer& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table,
                 const TableKeys& keys) {
    out.push_back('{');
    bool first = true;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const binlog::Cell& cell = cells[i];
        if (!cell.present) continue;
        std::string_view key = keys.key(i);
        if (first) key.remove_prefix(1);  // no comma
        first = false;
        out.append(key);
        if (cell.null) out.commit(json::write_null(out.room(4)));
        else write_value(out, cell.value, table.columns[i]);
    }
    out.push_back('}');
}

void write_gtid_head(Buffer& out, const GtidPosition& g, std::uint32_t ts) {
    char* p = out.room(128);
    auto put = [&p](std::string_view s) {
        std::memcpy(p, s.data(), s.size());
        p += s.size();
    };
    put("{\"gtid\":\"");
    p = json::write_unsigned(p, g.domain_id);
    *p++ = '-';
    p = json::write_unsigned(p, g.server_id);
    *p++ = '-';
    p = json::write_unsigned(p, g.seq_no);
    put("\",\"server_id\":");
    p = json::write_unsigned(p, g.server_id);
    put(",\"ts\":");
    p = json::write_unsigned(p, ts);
    out.commit(p);
}

// One change, as an element of "changes".
void write_change(Buffer& out, const Change& c, TableKeys& keys) {
    const TableKeys& k = keys.of(*c.table);
    out.append(k.head(c.op));
    if (c.op != binlog::RowsKind::write) {
        write_image(out, c.before, *c.table, k);
        if (c.op == binlog::RowsKind::update) out.append(",\"after\":");
    }
    if (c.op != binlog::RowsKind::delete_) write_image(out, c.after, *c.table, k);
    out.push_back('}');
}

// ,"part":K and on the last part ,"last":true (after "ts", before "changes").
void write_part_keys(Buffer& out, std::size_t part, bool last) {
    char* p = out.room(64);
    static constexpr std::string_view key = ",\"part\":";
    std::memcpy(p, key.data(), key.size());
    p = json::write_unsigned(p + key.size(), part);
    if (last) {
        static constexpr std::string_view mark = ",\"last\":true";
        std::memcpy(p, mark.data(), mark.size());
        p += mark.size();
    }
    out.commit(p);
}

std::size_t write_changes(Buffer& out, const Transaction& t) {
    thread_local TableKeys keys;
    keys.reset();  // the table maps of an earlier line may have been freed
    out.append(",\"changes\":[");
    bool first = true;
    std::size_t changes = 0;
    t.for_each_change([&](const Change& c) {
        if (!first) out.push_back(',');
        first = false;
        ++changes;
        write_change(out, c, keys);
    });
    out.append("]}\n");
    return changes;
}

std::size_t append_line_of(Buffer& out, const Transaction& t) {
    write_gtid_head(out, t.gtid, t.timestamp);
    return write_changes(out, t);
}

// A transaction in one part is its ordinary line; otherwise the part's line
// (docs/mariadb-cdc.md, "Transactions in parts").
std::size_t append_line_of(Buffer& out, const TransactionPart& p) {
    write_gtid_head(out, p.changes.gtid, p.changes.timestamp);
    if (!(p.first() && p.last)) write_part_keys(out, p.part, p.last);
    return write_changes(out, p.changes);
}

// The lines that are not row changes are few: built as strings.
std::size_t append_line_of(Buffer& out, const Ddl& d) {
    write_gtid_head(out, d.gtid, d.timestamp);
    std::string s = ",\"db\":";
    json::append_string(s, d.db);
    s += ",\"ddl\":";
    json::append_string(s, d.sql);
    s += "}\n";
    out.append(s);
    return 0;
}

std::size_t append_line_of(Buffer& out, const SnapshotChunk& c) {
    std::string s = "{\"snapshot\":{\"gtid\":";
    json::append_string(s, c.at.to_string());
    s += ",\"db\":";
    json::append_string(s, c.db);
    s += ",\"table\":";
    json::append_string(s, c.table);
    s += "},\"rows\":[";
    for (std::size_t r = 0; r < c.size(); ++r) {
        if (r) s += ',';
        append_snapshot_row(s, c, r);
    }
    s += "]}\n";
    out.append(s);
    return 0;
}

std::size_t append_line_of(Buffer& out, const SnapshotDone& d) {
    std::string s = "{\"snapshot\":{\"gtid\":";
    json::append_string(s, d.at.to_string());
    s += ",\"done\":true}}\n";
    out.append(s);
    return 0;
}

// No line: an Idle event only tells the caller the stream went quiet.
std::size_t append_line_of(Buffer&, const Idle&) { return 0; }

// The std::string overloads format into this and copy it out.
Buffer& scratch() {
    thread_local Buffer b;
    b.clear();
    return b;
}

}  // namespace


namespace {

constexpr std::string_view changes_key = ",\"changes\":[";
constexpr std::string_view line_end = "]}\n";
// ,"part":K,"last":true with K of up to 20 digits.
constexpr std::size_t part_keys_max = 8 + 20 + 12;
// Room beyond a full line 1 for the change that overflows it (most are far
// shorter; a longer one grows the buffer as before).
constexpr std::size_t line_slack = std::size_t{64} << 10;

}  // namespace

TransactionLines::TransactionLines(std::size_t max_line_bytes, std::size_t later_line_bytes)
    : max_(max_line_bytes),
      later_max_(later_line_bytes == 0 ? max_line_bytes : std::min(later_line_bytes, max_line_bytes)) {}

std::size_t TransactionLines::part_line_size(std::size_t changes_bytes) const noexcept {
    return head_.size() + part_keys_max + changes_key.size() + changes_bytes + line_end.size();
}

void TransactionLines::write_line(Buffer& out, std::string_view changes, bool last, bool rolled_back) {
    out.append(head_.view());
    write_part_keys(out, line_, last);
    if (rolled_back) out.append(",\"rolled_back\":true");
    out.append(changes_key);
    out.append(changes);
    out.append(line_end);
    ++line_;
}

std::size_t TransactionLines::write_first_line_split(Buffer& out, std::string_view changes) {
    // starts_ holds where each change of line 1 begins; those before the
    // end of `changes` are its changes, cut into lines at change boundaries.
    // The last piece is not written: it starts the next line, which the
    // caller goes on filling (so no part but the last is short).
    std::size_t piece = 0, end = 0;
    for (std::size_t k = 0; k < starts_.size() && starts_[k] < changes.size(); ++k) {
        const std::size_t next = k + 1 < starts_.size() && starts_[k + 1] <= changes.size() ? starts_[k + 1] - 1
                                                                                              : changes.size();
        if (end > piece && part_line_size(next - piece) > later_max_) {
            write_line(out, changes.substr(piece, end - piece), false, false);
            piece = starts_[k];
        }
        end = next;
    }
    starts_.clear();
    std::vector<std::size_t>().swap(starts_);
    return piece;
}

std::size_t TransactionLines::add(Buffer& out, const TransactionPart& part) {
    if (part.first()) {
        head_.clear();
        pending_.clear();
        starts_.clear();
        fits_ = 0;
        line_ = resume_lines_ + 1;
        resumed_ = resume_lines_ > 0;
        resume_lines_ = 0;
        rows_ = 0;
        write_gtid_head(head_, part.changes.gtid, part.changes.timestamp);
    }
    thread_local TableKeys keys;
    keys.reset();  // the table maps of an earlier part may have been freed
    std::size_t changes = 0;
    part.changes.for_each_change([&](const Change& c) {
        if (skip_ > 0) {  // written before a resume
            --skip_;
            return;
        }
        ++changes;
        // Formatted in place at the end of the line being filled (no copy
        // per change): `before` is where it starts, its comma included.
        std::size_t before = pending_.size();
        // Line 1 of a transaction past the later lines' bound may fill the
        // whole bound: its room is taken at once rather than doubled up to
        // it (each doubling copied the line and faulted in fresh pages).
        if (line_ == 1 && !sized_ && before > later_max_ && before < max_) {
            pending_.room(max_ - before + line_slack);
            sized_ = true;
        }
        if (split_first_ && line_ == 1) starts_.push_back(before == 0 ? 0 : before + 1);
        if (before > 0) pending_.push_back(',');
        write_change(pending_, c, keys);
        for (;;) {
            const std::size_t grown = pending_.size();
            const bool fits_whole = head_.size() + changes_key.size() + grown + line_end.size() <= max_;
            const bool fits_part = part_line_size(grown) <= (line_ == 1 ? max_ : later_max_);
            // Line 1 may still become the transaction's only line (no part
            // keys); a later line is a part line for sure.
            if (before == 0 || fits_part || (line_ == 1 && !resumed_ && fits_whole)) {
                if (fits_part || fits_ == 0) fits_ = grown;
                break;
            }
            // Full: the prefix that fits goes out as part line_; what is
            // left (this change, and on line 1 at most one before it: the
            // part keys are shorter than any change) starts the next line.
            const std::string_view all = pending_.view();
            if (split_first_ && line_ == 1) {
                // Parts of the later bound; the unwritten tail of line 1
                // (from `tail`, a change's start) opens line 2 with what
                // follows it, commas kept.
                if (const std::size_t tail = write_first_line_split(out, all.substr(0, fits_)); tail > 0) {
                    change_.clear();
                    change_.append(all.substr(tail));
                    before -= tail;
                    fits_ -= tail;
                    pending_.clear();
                    pending_.append(change_.view());
                    continue;
                }
            }
            write_line(out, all.substr(0, fits_), false, false);
            change_.clear();
            change_.append(all.substr(fits_ + 1));  // after the comma
            // fits_ == before: this change opens the next line (the comma
            // cut was its own); else its comma follows the change kept.
            before = before > fits_ ? before - fits_ - 1 : 0;
            pending_.clear();
            pending_.append(change_.view());
            fits_ = before;
        }
    });
    rows_ += changes;
    if (part.last) {
        if (part.rolled_back) {
            if (line_ > 1 || resumed_) write_line(out, {}, true, true);  // void the parts already out
        } else if (line_ == 1 && !resumed_) {
            out.append(head_.view());
            out.append(changes_key);
            out.append(pending_.view());
            out.append(line_end);
        } else {
            write_line(out, pending_.view(), true, false);
        }
        pending_.clear();
        rows_ = 0;
        line_ = 1;
        resumed_ = false;
        skip_ = 0;
    }
    return changes;
}

void append_value(Buffer& out, const binlog::Value& value, const binlog::ColumnInfo& column) {
    write_value(out, value, column);
}

void append_image(Buffer& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table) {
    TableKeys keys;
    write_image(out, cells, table, keys.of(table));
}

std::size_t append_line(Buffer& out, const ChangeEvent& event) {
    return std::visit([&](const auto& e) { return append_line_of(out, e); }, event);
}

void append_value(std::string& out, const binlog::Value& value, const binlog::ColumnInfo& column) {
    Buffer& b = scratch();
    write_value(b, value, column);
    out.append(b.view());
}

void append_snapshot_row(std::string& out, const SnapshotChunk& chunk, std::size_t row) {
    const auto& cols = *chunk.columns;
    out += '{';
    for (std::size_t i = 0; i < cols.size(); ++i) {
        if (i) out += ',';
        json::append_key(out, cols[i].name);
        json::append_field(out, chunk.field(row, i));
    }
    out += '}';
}

void append_image(std::string& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table) {
    Buffer& b = scratch();
    append_image(b, cells, table);
    out.append(b.view());
}

void append_line(std::string& out, const ChangeEvent& event) {
    Buffer& b = scratch();
    append_line(b, event);
    out.append(b.view());
}

}  // namespace sluice::mariadb::cdc::ndjson
