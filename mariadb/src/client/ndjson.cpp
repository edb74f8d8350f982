#include "sluice/mariadb/ndjson.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include "sluice/common/json_write.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sluice::mariadb::ndjson {

namespace {

template <class F>
char* write_floating(char* p, F v) noexcept {
    if (!std::isfinite(v)) return write_string(p, std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf"));
    if (v == 0) {  // -0 prints as 0: SQL has no negative zero to show
        *p = '0';
        return p + 1;
    }
    return std::to_chars(p, p + max_number_length, v).ptr;  // shortest round trip
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

inline bool plain(unsigned char c) noexcept { return c >= 0x20 && c != '"' && c != '\\'; }

// Where the next byte that needs escaping is, from i (n when none): 16
// bytes at a time with SSE2 (every x86-64 has it), then 8, then one.
inline std::size_t next_special(const char* s, std::size_t i, std::size_t n) noexcept {
#if defined(__SSE2__)
    const __m128i below_space = _mm_set1_epi8(0x1F), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    for (; i + 16 <= n; i += 16) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
        const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(x, below_space), below_space);  // x <= 0x1F
        const __m128i special =
            _mm_or_si128(control, _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)));
        if (const int mask = _mm_movemask_epi8(special)) return i + static_cast<std::size_t>(std::countr_zero(static_cast<unsigned>(mask)));
    }
#endif
    for (; i + 8 <= n; i += 8)
        if (!plain8(s + i)) break;
    for (; i < n; ++i)
        if (!plain(static_cast<unsigned char>(s[i]))) return i;
    return n;
}

}  // namespace

void Buffer::grow(std::size_t n) {
    std::size_t want = std::max<std::size_t>({capacity_ * 2, size_ + n, 4096});
    auto bigger = std::make_unique_for_overwrite<char[]>(want);
    if (size_) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = want;
}

char* write_null(char* p) noexcept {
    std::memcpy(p, "null", 4);
    return p + 4;
}
char* write_integer(char* p, std::int64_t v) noexcept { return std::to_chars(p, p + max_number_length, v).ptr; }
char* write_unsigned(char* p, std::uint64_t v) noexcept { return std::to_chars(p, p + max_number_length, v).ptr; }
char* write_float(char* p, float v) noexcept { return write_floating(p, v); }
char* write_double(char* p, double v) noexcept { return write_floating(p, v); }

// The escapes of sluice::json::append_string (the shared reference the
// tests hold this to), written in place: runs of plain bytes are copied
// whole, 16 bytes are tested at a time.
char* write_string(char* p, std::string_view text) noexcept {
    static constexpr char hex[] = "0123456789abcdef";
    const char* s = text.data();
    const std::size_t n = text.size();
    *p++ = '"';
    std::size_t run = 0;
    for (std::size_t i = next_special(s, 0, n); i < n; i = next_special(s, i, n)) {
        std::memcpy(p, s + run, i - run);
        p += i - run;
        *p++ = '\\';
        const auto c = static_cast<unsigned char>(s[i]);
        switch (c) {
            case '"': *p++ = '"'; break;
            case '\\': *p++ = '\\'; break;
            case '\n': *p++ = 'n'; break;
            case '\r': *p++ = 'r'; break;
            case '\t': *p++ = 't'; break;
            case '\b': *p++ = 'b'; break;
            case '\f': *p++ = 'f'; break;
            default:
                *p++ = 'u';
                *p++ = '0';
                *p++ = '0';
                *p++ = hex[c >> 4];
                *p++ = hex[c & 0xF];
        }
        run = ++i;
    }
    if (n > run) std::memcpy(p, s + run, n - run);  // (an empty view may have no data pointer)
    p += n - run;
    *p++ = '"';
    return p;
}

char* write_base64(char* d, std::span<const std::uint8_t> bytes, std::size_t zero_padding) noexcept {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::size_t n = bytes.size() + zero_padding;
    auto at = [&](std::size_t i) -> std::uint32_t { return i < bytes.size() ? bytes[i] : 0; };
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
    *d++ = '"';
    return d;
}

void append_null(std::string& out) { out += "null"; }
void append_integer(std::string& out, std::int64_t v) {
    char buf[max_number_length];
    out.append(buf, write_integer(buf, v));
}
void append_unsigned(std::string& out, std::uint64_t v) {
    char buf[max_number_length];
    out.append(buf, write_unsigned(buf, v));
}
void append_float(std::string& out, float v) {
    char buf[max_number_length];
    out.append(buf, write_float(buf, v));
}
void append_double(std::string& out, double v) {
    char buf[max_number_length];
    out.append(buf, write_double(buf, v));
}

void append_string(std::string& out, std::string_view text) {
    // Most values need no escaping: the whole text is copied at once;
    // otherwise the shared escaper does it.
    if (next_special(text.data(), 0, text.size()) == text.size()) {
        out += '"';
        out.append(text);
        out += '"';
        return;
    }
    sluice::json::append_string(out, text);
}

void append_base64(std::string& out, std::span<const std::uint8_t> bytes, std::size_t zero_padding) {
    const std::size_t start = out.size();
    out.resize(start + base64_length(bytes.size() + zero_padding));
    write_base64(out.data() + start, bytes, zero_padding);
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
