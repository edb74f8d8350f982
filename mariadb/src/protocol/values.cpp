#include "sluice/mariadb/values.hpp"

#include <charconv>
#include <cstdio>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {

std::optional<Decimal> Decimal::parse(std::string_view text) noexcept {
    Decimal d;
    std::size_t i = 0;
    std::size_t out = 0;
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
        if (text[0] == '-') d.text_[out++] = '-';
        ++i;
    }
    std::size_t digits = 0;
    std::size_t int_digits = 0;
    bool point = false;
    for (; i < text.size(); ++i) {
        char c = text[i];
        if (c >= '0' && c <= '9') {
            if (++digits > max_digits) return std::nullopt;
            if (!point) ++int_digits;
            d.text_[out++] = c;
        } else if (c == '.' && !point) {
            point = true;
            if (int_digits == 0) {
                // ".5" is kept as "0.5", the form the server prints.
                if (digits + 1 > max_digits) return std::nullopt;
                d.text_[out++] = '0';
                ++digits;
                ++int_digits;
            }
            d.text_[out++] = '.';
        } else {
            return std::nullopt;
        }
    }
    if (int_digits == 0) return std::nullopt;            // "", "-", "+"
    if (point && d.text_[out - 1] == '.') return std::nullopt;  // "1."
    d.size_ = static_cast<std::uint8_t>(out);
    return d;
}

Decimal Decimal::from_string(std::string_view text) {
    if (auto d = parse(text)) return *d;
    throw Error(ErrorKind::usage, "invalid decimal '" + std::string(text) +
                                      "' (expected [-]digits[.digits], at most 65 digits)");
}

std::string_view Decimal::fraction() const noexcept {
    std::string_view t = text();
    auto p = t.find('.');
    return p == std::string_view::npos ? std::string_view{} : t.substr(p + 1);
}

std::string_view Decimal::integer_digits() const noexcept {
    std::string_view t = text();
    if (!t.empty() && t[0] == '-') t.remove_prefix(1);
    return t.substr(0, t.find('.'));
}

bool Decimal::has_fraction() const noexcept {
    return fraction().find_first_not_of('0') != std::string_view::npos;
}

namespace {

void append_fraction(std::string& out, std::uint32_t micros, int fraction_digits) {
    if (fraction_digits < 0) {
        if (micros == 0) return;
        fraction_digits = 6;
    }
    if (fraction_digits == 0) return;
    char buf[8];
    std::snprintf(buf, sizeof buf, "%06u", static_cast<unsigned>(micros % 1000000));
    out += '.';
    out.append(buf, static_cast<std::size_t>(fraction_digits > 6 ? 6 : fraction_digits));
}

// Parses exactly n decimal digits at text[pos]; advances pos.
bool digits(std::string_view text, std::size_t& pos, std::size_t n, std::uint32_t& value) {
    if (pos + n > text.size()) return false;
    value = 0;
    for (std::size_t i = 0; i < n; ++i) {
        char c = text[pos + i];
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<std::uint32_t>(c - '0');
    }
    pos += n;
    return true;
}

// Optional ".f{1,6}" at pos, to the end of text; returns microseconds.
bool fraction_at(std::string_view text, std::size_t& pos, std::uint32_t& micros) {
    micros = 0;
    if (pos == text.size()) return true;
    if (text[pos] != '.') return false;
    ++pos;
    std::size_t n = text.size() - pos;
    if (n < 1 || n > 6) return false;
    std::uint32_t v = 0;
    if (!digits(text, pos, n, v)) return false;
    for (std::size_t i = n; i < 6; ++i) v *= 10;
    micros = v;
    return true;
}

bool date_at(std::string_view text, std::size_t& pos, Date& d) {
    std::uint32_t y = 0, m = 0, day = 0;
    if (!digits(text, pos, 4, y) || pos >= text.size() || text[pos++] != '-') return false;
    if (!digits(text, pos, 2, m) || pos >= text.size() || text[pos++] != '-') return false;
    if (!digits(text, pos, 2, day)) return false;
    if (m > 12 || day > 31) return false;
    d = Date{static_cast<std::uint16_t>(y), static_cast<std::uint8_t>(m), static_cast<std::uint8_t>(day)};
    return true;
}

}  // namespace

std::string to_string(const Date& d) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04u-%02u-%02u", unsigned{d.year}, unsigned{d.month}, unsigned{d.day});
    return buf;
}

std::string to_string(const Time& t, int fraction_digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%02u:%02u:%02u", t.negative ? "-" : "", static_cast<unsigned>(t.hours),
                  unsigned{t.minutes}, unsigned{t.seconds});
    std::string out = buf;
    append_fraction(out, t.microseconds, fraction_digits);
    return out;
}

std::string to_string(const DateTime& dt, int fraction_digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04u-%02u-%02u %02u:%02u:%02u", unsigned{dt.year}, unsigned{dt.month},
                  unsigned{dt.day}, unsigned{dt.hour}, unsigned{dt.minute}, unsigned{dt.second});
    std::string out = buf;
    append_fraction(out, dt.microsecond, fraction_digits);
    return out;
}

std::optional<Date> parse_date(std::string_view text) noexcept {
    std::size_t pos = 0;
    Date d;
    if (!date_at(text, pos, d) || pos != text.size()) return std::nullopt;
    return d;
}

std::optional<Time> parse_time(std::string_view text) noexcept {
    Time t;
    std::size_t pos = 0;
    if (!text.empty() && text[0] == '-') {
        t.negative = true;
        pos = 1;
    }
    std::size_t colon = text.find(':', pos);
    if (colon == std::string_view::npos || colon - pos < 2 || colon - pos > 3) return std::nullopt;
    std::uint32_t h = 0, m = 0, s = 0, us = 0;
    if (!digits(text, pos, colon - pos, h)) return std::nullopt;
    if (text[pos++] != ':' || !digits(text, pos, 2, m)) return std::nullopt;
    if (pos >= text.size() || text[pos++] != ':' || !digits(text, pos, 2, s)) return std::nullopt;
    if (!fraction_at(text, pos, us)) return std::nullopt;
    if (m > 59 || s > 59) return std::nullopt;
    t.hours = h;
    t.minutes = static_cast<std::uint8_t>(m);
    t.seconds = static_cast<std::uint8_t>(s);
    t.microseconds = us;
    return t;
}

std::optional<DateTime> parse_datetime(std::string_view text) noexcept {
    std::size_t pos = 0;
    Date d;
    if (!date_at(text, pos, d)) return std::nullopt;
    DateTime dt{d.year, d.month, d.day, 0, 0, 0, 0};
    if (pos == text.size()) return dt;
    if (text[pos] != ' ' && text[pos] != 'T') return std::nullopt;
    ++pos;
    std::uint32_t h = 0, m = 0, s = 0, us = 0;
    if (!digits(text, pos, 2, h) || pos >= text.size() || text[pos++] != ':') return std::nullopt;
    if (!digits(text, pos, 2, m) || pos >= text.size() || text[pos++] != ':') return std::nullopt;
    if (!digits(text, pos, 2, s) || !fraction_at(text, pos, us)) return std::nullopt;
    if (h > 23 || m > 59 || s > 59) return std::nullopt;
    dt.hour = static_cast<std::uint8_t>(h);
    dt.minute = static_cast<std::uint8_t>(m);
    dt.second = static_cast<std::uint8_t>(s);
    dt.microsecond = us;
    return dt;
}

}  // namespace sluice::mariadb
