#include "sluice/mariadb/cdc/ndjson.hpp"

#include "sluice/mariadb/ndjson.hpp"

namespace sluice::mariadb::cdc::ndjson {

namespace json = sluice::mariadb::ndjson;

namespace {

void append_text_of(std::string& out, const binlog::Value& v, const binlog::ColumnInfo& c) {
    // binlog::append_text gives the SELECT's text (temporals with the column's
    // fractional digits, TIMESTAMP in UTC, ENUM/SET names, UUID/INET text).
    thread_local std::string text;
    text.clear();
    binlog::append_text(text, v, c);
    json::append_string(out, text);
}

}  // namespace

void append_value(std::string& out, const binlog::Value& value, const binlog::ColumnInfo& column) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t>) json::append_integer(out, v);
            else if constexpr (std::is_same_v<T, std::uint64_t>) json::append_unsigned(out, v);
            else if constexpr (std::is_same_v<T, float>) json::append_float(out, v);
            else if constexpr (std::is_same_v<T, double>) json::append_double(out, v);
            else if constexpr (std::is_same_v<T, Decimal>) json::append_string(out, v.text());
            else if constexpr (std::is_same_v<T, binlog::Year>) json::append_unsigned(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Bit>) json::append_unsigned(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Text>) json::append_string(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Json>) json::append_string(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Enum>) json::append_string(out, v.name);
            else if constexpr (std::is_same_v<T, binlog::Blob>)
                json::append_base64(out, v.value, v.padded_length > v.value.size() ? v.padded_length - v.value.size() : 0);
            else if constexpr (std::is_same_v<T, binlog::Geometry>) json::append_base64(out, v.value);
            else append_text_of(out, value, column);  // dates, times, SET, UUID, INET
        },
        value);
}

void append_image(std::string& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table) {
    out += '{';
    bool first = true;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const binlog::Cell& cell = cells[i];
        if (!cell.present) continue;
        if (!first) out += ',';
        first = false;
        const binlog::ColumnInfo& col = table.columns[i];
        if (!col.name.empty()) json::append_key(out, col.name);
        else json::append_key(out, "@" + std::to_string(i + 1));
        if (cell.null) json::append_null(out);
        else append_value(out, cell.value, col);
    }
    out += '}';
}

namespace {

void append_gtid_head(std::string& out, const GtidPosition& g, std::uint32_t ts) {
    out += "{\"gtid\":\"";
    out += std::to_string(g.domain_id);
    out += '-';
    out += std::to_string(g.server_id);
    out += '-';
    out += std::to_string(g.seq_no);
    out += "\",\"server_id\":";
    out += std::to_string(g.server_id);
    out += ",\"ts\":";
    out += std::to_string(ts);
}

void append_line_of(std::string& out, const Transaction& t) {
    append_gtid_head(out, t.gtid, t.timestamp);
    out += ",\"changes\":[";
    bool first = true;
    t.for_each_change([&](const Change& c) {
        if (!first) out += ',';
        first = false;
        out += "{\"op\":\"";
        out += binlog::to_string(c.op);
        out += "\",\"db\":";
        json::append_string(out, c.table->db);
        out += ",\"table\":";
        json::append_string(out, c.table->table);
        if (c.op != binlog::RowsKind::write) {
            out += ",\"before\":";
            append_image(out, c.before, *c.table);
        }
        if (c.op != binlog::RowsKind::delete_) {
            out += ",\"after\":";
            append_image(out, c.after, *c.table);
        }
        out += '}';
    });
    out += "]}\n";
}

void append_line_of(std::string& out, const Ddl& d) {
    append_gtid_head(out, d.gtid, d.timestamp);
    out += ",\"db\":";
    json::append_string(out, d.db);
    out += ",\"ddl\":";
    json::append_string(out, d.sql);
    out += "}\n";
}

void append_line_of(std::string& out, const SnapshotChunk& c) {
    out += "{\"snapshot\":{\"gtid\":";
    json::append_string(out, c.at.to_string());
    out += ",\"db\":";
    json::append_string(out, c.db);
    out += ",\"table\":";
    json::append_string(out, c.table);
    out += "},\"rows\":[";
    const auto& cols = *c.columns;
    for (std::size_t r = 0; r < c.size(); ++r) {
        if (r) out += ',';
        out += '{';
        for (std::size_t i = 0; i < cols.size(); ++i) {
            if (i) out += ',';
            json::append_key(out, cols[i].name);
            json::append_field(out, c.field(r, i));
        }
        out += '}';
    }
    out += "]}\n";
}

void append_line_of(std::string& out, const SnapshotDone& d) {
    out += "{\"snapshot\":{\"gtid\":";
    json::append_string(out, d.at.to_string());
    out += ",\"done\":true}}\n";
}

}  // namespace

void append_line(std::string& out, const ChangeEvent& event) {
    std::visit([&](const auto& e) { append_line_of(out, e); }, event);
}

}  // namespace sluice::mariadb::cdc::ndjson
