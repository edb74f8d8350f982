#include "sluice/mariadb/ndjson.hpp"

#include <charconv>
#include <cmath>
#include <cstring>

#include "sluice/common/json_write.hpp"

namespace sluice::mariadb::ndjson {

namespace {

template <class T>
void append_number(std::string& out, T v) {
    char buf[40];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, end);
}

template <class F>
void append_floating(std::string& out, F v) {
    if (!std::isfinite(v)) {
        append_string(out, std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"));
        return;
    }
    if (v == 0) {  // -0 prints as 0: SQL has no negative zero to show
        out += '0';
        return;
    }
    append_number(out, v);  // shortest round trip
}

bool is_bytes(const Column& c) noexcept {
    if (c.type == ColumnType::geometry) return true;
    if (!c.is_binary() || c.is_json()) return false;
    // UUID and INET types carry binary collation but print as text.
    if (!c.extended_type.empty() && c.extended_type != "point" && c.extended_type.find("geometry") == std::string::npos &&
        c.type == ColumnType::string)
        return false;
    switch (c.type) {
        case ColumnType::tiny_blob:
        case ColumnType::medium_blob:
        case ColumnType::long_blob:
        case ColumnType::blob:
        case ColumnType::var_string:
        case ColumnType::varchar:
        case ColumnType::string: return true;
        default: return false;
    }
}

}  // namespace

void append_null(std::string& out) { out += "null"; }
void append_integer(std::string& out, std::int64_t v) { append_number(out, v); }
void append_unsigned(std::string& out, std::uint64_t v) { append_number(out, v); }
void append_float(std::string& out, float v) { append_floating(out, v); }
void append_double(std::string& out, double v) { append_floating(out, v); }
namespace {
// True when none of the 8 bytes needs escaping ('"', '\\', below 0x20),
// tested in one word (the classic has-zero-byte trick on three masks).
inline bool plain8(const char* p) noexcept {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    constexpr std::uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
    auto has_zero = [](std::uint64_t x) { return (x - ones) & ~x & high; };
    const std::uint64_t control = (w - ones * 0x20) & ~w & high;  // bytes < 0x20 (high bit clear)
    return (control | has_zero(w ^ (ones * '"')) | has_zero(w ^ (ones * '\\'))) == 0;
}
}  // namespace

void append_string(std::string& out, std::string_view text) {
    // Most values need no escaping: check 8 bytes at a time and copy the
    // whole text at once; otherwise the shared escaper does it.
    std::size_t i = 0;
    for (; i + 8 <= text.size(); i += 8)
        if (!plain8(text.data() + i)) break;
    if (i + 8 > text.size()) {
        bool plain = true;
        for (; i < text.size() && plain; ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            plain = c >= 0x20 && c != '"' && c != '\\';
        }
        if (plain) {
            out += '"';
            out.append(text);
            out += '"';
            return;
        }
    }
    sluice::json::append_string(out, text);
}

void append_base64(std::string& out, std::span<const std::uint8_t> bytes, std::size_t zero_padding) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::size_t n = bytes.size() + zero_padding;
    auto at = [&](std::size_t i) -> std::uint32_t { return i < bytes.size() ? bytes[i] : 0; };
    const std::size_t start = out.size();
    out.resize(start + 4 * ((n + 2) / 3) + 2);
    char* d = out.data() + start;
    *d++ = '"';
    std::size_t i = 0;
    // Whole groups of the bytes themselves (no padding to look up).
    for (; i + 3 <= bytes.size(); i += 3) {
        std::uint32_t v = std::uint32_t{bytes[i]} << 16 | std::uint32_t{bytes[i + 1]} << 8 | bytes[i + 2];
        d[0] = alphabet[v >> 18];
        d[1] = alphabet[(v >> 12) & 63];
        d[2] = alphabet[(v >> 6) & 63];
        d[3] = alphabet[v & 63];
        d += 4;
    }
    for (; i + 3 <= n; i += 3) {
        std::uint32_t v = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
        d[0] = alphabet[v >> 18];
        d[1] = alphabet[(v >> 12) & 63];
        d[2] = alphabet[(v >> 6) & 63];
        d[3] = alphabet[v & 63];
        d += 4;
    }
    if (n - i == 1) {
        std::uint32_t v = at(i) << 16;
        d[0] = alphabet[v >> 18];
        d[1] = alphabet[(v >> 12) & 63];
        d[2] = '=';
        d[3] = '=';
        d += 4;
    } else if (n - i == 2) {
        std::uint32_t v = at(i) << 16 | at(i + 1) << 8;
        d[0] = alphabet[v >> 18];
        d[1] = alphabet[(v >> 12) & 63];
        d[2] = alphabet[(v >> 6) & 63];
        d[3] = '=';
        d += 4;
    }
    *d = '"';
}

void append_key(std::string& out, std::string_view key) {
    append_string(out, key);
    out += ':';
}

ValueStyle style_of(const Column& c) noexcept {
    switch (c.type) {
        case ColumnType::tiny:
        case ColumnType::short_:
        case ColumnType::int24:
        case ColumnType::long_:
        case ColumnType::longlong: return c.is_unsigned() ? ValueStyle::unsigned_integer : ValueStyle::integer;
        case ColumnType::year: return ValueStyle::unsigned_integer;
        case ColumnType::bit: return ValueStyle::bit;
        case ColumnType::float_: return ValueStyle::float32;
        case ColumnType::double_: return ValueStyle::float64;
        default: return is_bytes(c) ? ValueStyle::bytes : ValueStyle::text;
    }
}

void append_field(std::string& out, const Field& f) {
    if (f.is_null()) {
        append_null(out);
        return;
    }
    switch (style_of(f.column())) {
        case ValueStyle::integer: append_integer(out, f.get<std::int64_t>()); return;
        case ValueStyle::unsigned_integer:
        case ValueStyle::bit: append_unsigned(out, f.get<std::uint64_t>()); return;
        case ValueStyle::float32: append_float(out, f.get<float>()); return;
        case ValueStyle::float64: append_double(out, f.get<double>()); return;
        case ValueStyle::bytes: append_base64(out, f.raw()); return;
        case ValueStyle::text:
            if (f.binary_protocol()) append_string(out, f.to_string());
            else append_string(out, protocol::as_text(f.raw()));
            return;
    }
}

void append_row(std::string& out, const Row& row) {
    out += '{';
    const auto& cols = row.columns();
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (i) out += ',';
        append_key(out, cols[i].name);
        append_field(out, row[i]);
    }
    out += '}';
}

}  // namespace sluice::mariadb::ndjson
