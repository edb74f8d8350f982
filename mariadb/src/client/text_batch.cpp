#include "sluice/mariadb/text_batch.hpp"

#include <charconv>
#include <cmath>

#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb {

using protocol::ParamValue;

void append_string_literal(std::string& out, std::string_view text, bool no_backslash_escapes) {
    out.reserve(out.size() + text.size() + 2);
    out.push_back('\'');
    if (no_backslash_escapes) {
        for (char c : text) {
            if (c == '\'') out.push_back('\'');
            out.push_back(c);
        }
    } else {
        for (char c : text) {
            switch (c) {
                case '\0': out += "\\0"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\x1a': out += "\\Z"; break;
                case '\\': out += "\\\\"; break;
                case '\'': out += "\\'"; break;
                case '"': out += "\\\""; break;
                default: out.push_back(c);
            }
        }
    }
    out.push_back('\'');
}

namespace {
template <class N>
void append_number(std::string& out, N n) {
    if constexpr (std::is_floating_point_v<N>) {
        if (!std::isfinite(n)) throw Error(ErrorKind::usage, "a NaN or infinite number has no SQL literal");
    }
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, n);
    out.append(buf, end);
}
}  // namespace

void append_literal(std::string& out, const ParamValue& v, bool no_backslash_escapes) {
    using K = ParamValue::Kind;
    switch (v.kind) {
        case K::null: out += "NULL"; return;
        case K::int64: append_number(out, v.i); return;
        case K::uint64: append_number(out, v.u); return;
        case K::float32: append_number(out, v.f); return;
        case K::float64: append_number(out, v.d); return;
        case K::decimal: out.append(protocol::as_text(v.bytes)); return;  // validated digits (Decimal)
        case K::text: append_string_literal(out, protocol::as_text(v.bytes), no_backslash_escapes); return;
        case K::blob: {
            static constexpr char hex[] = "0123456789ABCDEF";
            out += "X'";
            for (std::uint8_t b : v.bytes) {
                out.push_back(hex[b >> 4]);
                out.push_back(hex[b & 15]);
            }
            out.push_back('\'');
            return;
        }
        case K::date:
            out += '\'';
            out += to_string(Date{v.datetime.year, v.datetime.month, v.datetime.day});
            out += '\'';
            return;
        case K::datetime:
            out += '\'';
            out += to_string(v.datetime);
            out += '\'';
            return;
        case K::time:
            out += '\'';
            out += to_string(v.time);
            out += '\'';
            return;
    }
}

bool no_backslash_escapes(Connection& conn) {
    return conn.server_status() & protocol::status::no_backslash_escapes;
}

InsertBatch::InsertBatch(Connection& conn, std::string prefix, std::size_t max_statement_bytes)
    : conn_(conn), prefix_(std::move(prefix)), max_bytes_(max_statement_bytes) {}

void InsertBatch::add_values(std::span<const ParamValue> values) {
    const bool nbe = no_backslash_escapes(conn_);
    if (pending_rows_ > 0 && nbe != pending_no_backslash_) {
        // A statement changed sql_mode after the pending rows were escaped:
        // sent now, they would mean something else. They are dropped.
        const std::size_t dropped = pending_rows_;
        pending_rows_ = 0;
        throw Error(ErrorKind::usage, "NO_BACKSLASH_ESCAPES changed after " + std::to_string(dropped) +
                                          " rows of the batch were escaped; those rows were not sent");
    }
    row_.clear();
    row_ += '(';
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) row_ += ',';
        append_literal(row_, values[i], nbe);
    }
    row_ += ')';
    if (pending_rows_ > 0 && text_.size() + 1 + row_.size() > max_bytes_) flush();
    if (pending_rows_ == 0) {
        text_ = prefix_;
        text_ += ' ';
        pending_no_backslash_ = nbe;
    } else {
        text_ += ',';
    }
    text_ += row_;
    ++pending_rows_;
}

const OkInfo& InsertBatch::flush() {
    if (pending_rows_ == 0) return total_;
    if (no_backslash_escapes(conn_) != pending_no_backslash_) {
        const std::size_t dropped = pending_rows_;
        pending_rows_ = 0;
        throw Error(ErrorKind::usage, "NO_BACKSLASH_ESCAPES changed after " + std::to_string(dropped) +
                                          " rows of the batch were escaped; those rows were not sent");
    }
    OkInfo ok = conn_.execute(text_);
    pending_rows_ = 0;
    ++statements_;
    total_.affected_rows += ok.affected_rows;
    if (total_.last_insert_id == 0) total_.last_insert_id = ok.last_insert_id;
    total_.warnings = static_cast<std::uint16_t>(total_.warnings + ok.warnings);
    total_.status_flags = ok.status_flags;
    return total_;
}

OkInfo execute_batch(Connection& conn, std::span<const std::string> statements) {
    std::string text;
    for (const std::string& s : statements) {
        if (!text.empty()) text += ';';
        text += s;
    }
    OkInfo total;
    ResultSet rs = conn.query(text);
    do {
        while (rs.next()) {
        }
        const OkInfo& ok = rs.ok();
        total.affected_rows += ok.affected_rows;
        if (total.last_insert_id == 0) total.last_insert_id = ok.last_insert_id;
        total.warnings = static_cast<std::uint16_t>(total.warnings + ok.warnings);
        total.status_flags = ok.status_flags;
    } while (rs.next_result());
    return total;
}

}  // namespace sluice::mariadb
