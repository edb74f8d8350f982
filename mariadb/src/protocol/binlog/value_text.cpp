// Text forms of row-image values, as a SELECT over the text protocol
// shows the same column (TIMESTAMP in UTC), appended to a caller's string
// so a formatter can reuse one buffer.
#include <array>
#include <charconv>
#include <cstring>
#include <string>

#include "sluice/mariadb/binlog/value.hpp"

namespace sluice::mariadb::binlog {

namespace {

template <class T>
void append_number(std::string& out, T v) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, r.ptr);
}

void append_padded(std::string& out, std::uint64_t v, int width) {
    char buf[24];
    int n = 0;
    do {
        buf[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = n; i < width; ++i) out += '0';
    while (n) out += buf[--n];
}

// Temporal text is built in a local buffer and appended once (a formatter
// calls this per cell).
constexpr std::array<char, 200> make_two_digits() {
    std::array<char, 200> t{};
    for (unsigned i = 0; i < 100; ++i) {
        t[2 * i] = static_cast<char>('0' + i / 10);
        t[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
    return t;
}
constexpr std::array<char, 200> two_digits = make_two_digits();

// The last two decimal digits of v.
char* put2(char* p, unsigned v) noexcept {
    std::memcpy(p, two_digits.data() + 2 * (v % 100), 2);
    return p + 2;
}
char* put4(char* p, unsigned v) noexcept {
    p = put2(p, v / 100 % 100);
    return put2(p, v % 100);
}
// The first `digits` (at most 6) of the six fraction digits of micros.
char* put_fraction(char* p, std::uint32_t micros, int digits) noexcept {
    if (digits <= 0) return p;
    if (digits > 6) digits = 6;
    static constexpr std::uint32_t drop[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
    *p++ = '.';
    std::uint32_t v = micros % 1000000 / drop[digits];
    for (int i = digits - 1; i >= 0; --i) {
        p[i] = static_cast<char>('0' + v % 10);
        v /= 10;
    }
    return p + digits;
}
char* put_date(char* p, unsigned y, unsigned m, unsigned d) noexcept {
    p = put4(p, y);
    *p++ = '-';
    p = put2(p, m);
    *p++ = '-';
    return put2(p, d);
}

char* put_datetime(char* p, const DateTime& dt, int fsp) noexcept {
    p = put_date(p, dt.year, dt.month, dt.day);
    *p++ = ' ';
    p = put2(p, dt.hour);
    *p++ = ':';
    p = put2(p, dt.minute);
    *p++ = ':';
    p = put2(p, dt.second);
    return put_fraction(p, dt.microsecond, fsp);
}

char* put_time(char* p, const Time& t, int fsp) noexcept {
    if (t.negative) *p++ = '-';
    std::uint32_t h = t.hours;
    if (h >= 100) p = std::to_chars(p, p + 10, h).ptr;
    else p = put2(p, h);
    *p++ = ':';
    p = put2(p, t.minutes);
    *p++ = ':';
    p = put2(p, t.seconds);
    return put_fraction(p, t.microseconds, fsp);
}

template <class T>
void append_written(std::string& out, const T& v, int fsp) {
    char buf[max_temporal_text];
    out.append(buf, write_text(buf, v, fsp));
}

void append_hex(std::string& out, const std::uint8_t* p, std::size_t n) {
    static const char* digits = "0123456789abcdef";
    for (std::size_t i = 0; i < n; ++i) {
        out += digits[p[i] >> 4];
        out += digits[p[i] & 15];
    }
}

// MariaDB's INET6 text: the first longest run of zero groups as "::"
// (even a single group, unlike RFC 5952), lowercase hex without leading zeros, and the last 4 bytes as a
// dotted quad for IPv4-compatible (::a.b.c.d) and IPv4-mapped
// (::ffff:a.b.c.d) addresses.
void append_inet6(std::string& out, const std::array<std::uint8_t, 16>& b) {
    std::uint16_t w[8];
    for (std::size_t i = 0; i < 8; ++i) w[i] = static_cast<std::uint16_t>((b[2 * i] << 8) | b[2 * i + 1]);
    int best = -1, best_len = 0;
    for (int i = 0; i < 8;) {
        if (w[i] != 0) {
            ++i;
            continue;
        }
        int j = i;
        while (j < 8 && w[j] == 0) ++j;
        if (j - i > best_len) {
            best = i;
            best_len = j - i;
        }
        i = j;
    }
    auto quad = [&](int from) {
        for (int i = from; i < 16; ++i) {
            if (i > from) out += '.';
            append_number(out, static_cast<unsigned>(b[static_cast<std::size_t>(i)]));
        }
    };
    // ::a.b.c.d (not :: or ::1) and ::ffff:a.b.c.d
    if (best == 0 && best_len == 6 && w[6] != 0) {
        out += "::";
        quad(12);
        return;
    }
    if (best == 0 && best_len == 5 && w[5] == 0xffff) {
        out += "::ffff:";
        quad(12);
        return;
    }
    for (int i = 0; i < 8; ++i) {
        if (i == best) {
            out += "::";
            i += best_len - 1;
            continue;
        }
        if (i > 0 && !(best >= 0 && i == best + best_len)) out += ':';
        char buf[8];
        auto r = std::to_chars(buf, buf + sizeof buf, static_cast<unsigned>(w[i]), 16);
        out.append(buf, r.ptr);
    }
}

int fraction_digits(const ColumnInfo& c) noexcept { return c.fsp; }

}  // namespace

char* write_text(char* p, const Date& d) noexcept { return put_date(p, d.year, d.month, d.day); }
char* write_text(char* p, const Time& t, int fsp) noexcept { return put_time(p, t, fsp); }
char* write_text(char* p, const DateTime& dt, int fsp) noexcept { return put_datetime(p, dt, fsp); }
char* write_text(char* p, const Timestamp& ts, int fsp) noexcept {
    if (ts.seconds == 0 && ts.microseconds == 0) return put_datetime(p, DateTime{}, fsp);  // the zero timestamp
    return put_datetime(p, to_utc_datetime(ts), fsp);
}

DateTime to_utc_datetime(const Timestamp& ts) noexcept {
    // Days since the epoch to a civil date (Howard Hinnant's algorithm).
    std::int64_t days = ts.seconds >= 0 ? ts.seconds / 86400 : (ts.seconds - 86399) / 86400;
    std::int64_t secs = ts.seconds - days * 86400;
    days += 719468;
    std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    std::int64_t doe = days - era * 146097;
    std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    std::int64_t y = yoe + era * 400;
    std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    std::int64_t mp = (5 * doy + 2) / 153;
    std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
    std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) ++y;
    DateTime dt;
    dt.year = static_cast<std::uint16_t>(y);
    dt.month = static_cast<std::uint8_t>(m);
    dt.day = static_cast<std::uint8_t>(d);
    dt.hour = static_cast<std::uint8_t>(secs / 3600);
    dt.minute = static_cast<std::uint8_t>(secs / 60 % 60);
    dt.second = static_cast<std::uint8_t>(secs % 60);
    dt.microsecond = ts.microseconds;
    return dt;
}

void append_text(std::string& out, const Value& value, const ColumnInfo& column) {
    struct Visit {
        std::string& out;
        const ColumnInfo& c;
        void operator()(std::int64_t v) const { append_number(out, v); }
        void operator()(std::uint64_t v) const { append_number(out, v); }
        void operator()(float v) const { append_number(out, v); }
        void operator()(double v) const { append_number(out, v); }
        void operator()(const Decimal& v) const { out += v.text(); }
        void operator()(const Date& d) const {
            char buf[max_temporal_text];
            out.append(buf, write_text(buf, d));
        }
        void operator()(const Time& t) const { append_written(out, t, fraction_digits(c)); }
        void operator()(const DateTime& dt) const { append_written(out, dt, fraction_digits(c)); }
        void operator()(const Timestamp& ts) const { append_written(out, ts, fraction_digits(c)); }
        void operator()(const Year& y) const { append_padded(out, y.value, 4); }
        void operator()(const Bit& b) const { append_number(out, b.value); }
        void operator()(const Text& t) const { out += t.value; }
        void operator()(const Blob& b) const {
            out.append(reinterpret_cast<const char*>(b.value.data()), b.value.size());
            if (b.padded_length > b.value.size()) out.append(b.padded_length - b.value.size(), '\0');
        }
        void operator()(const Enum& e) const {
            if (e.index != 0 && e.name.empty()) append_number(out, e.index);  // no ENUM metadata
            else out += e.name;
        }
        void operator()(const Set& s) const {
            bool first = true;
            for (std::size_t i = 0; i < 64; ++i) {
                if (!((s.bits >> i) & 1)) continue;
                if (!first) out += ',';
                first = false;
                if (i < s.names.size()) out += s.names[i];
                else append_number(out, i + 1);  // no SET metadata: the member's number
            }
        }
        void operator()(const Json& j) const { out += j.value; }
        void operator()(const Geometry& g) const {
            out.append(reinterpret_cast<const char*>(g.value.data()), g.value.size());
        }
        void operator()(const Uuid& u) const {
            const std::uint8_t* p = u.bytes.data();
            append_hex(out, p, 4);
            out += '-';
            append_hex(out, p + 4, 2);
            out += '-';
            append_hex(out, p + 6, 2);
            out += '-';
            append_hex(out, p + 8, 2);
            out += '-';
            append_hex(out, p + 10, 6);
        }
        void operator()(const Inet6& a) const { append_inet6(out, a.bytes); }
        void operator()(const Inet4& a) const {
            for (std::size_t i = 0; i < 4; ++i) {
                if (i) out += '.';
                append_number(out, static_cast<unsigned>(a.bytes[i]));
            }
        }
    };
    std::visit(Visit{out, column}, value);
}

std::string to_text(const Value& value, const ColumnInfo& column) {
    std::string out;
    append_text(out, value, column);
    return out;
}

}  // namespace sluice::mariadb::binlog
