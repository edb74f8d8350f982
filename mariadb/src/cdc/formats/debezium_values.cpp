// Debezium's per-type encodings of binlog values (see the header's table;
// each rule is the one of Debezium's BinlogValueConverters /
// JdbcValueConverters with the connector's default modes).
#include "sluice/mariadb/cdc/debezium_values.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <type_traits>
#include <variant>

namespace sluice::mariadb::cdc::debezium {

namespace json = sluice::mariadb::ndjson;
using json::Buffer;

std::int64_t days_since_epoch(int year, unsigned month, unsigned day) noexcept {
    // Howard Hinnant's days_from_civil: eras of 400 years, March-based years.
    const std::int64_t y = static_cast<std::int64_t>(year) - (month <= 2 ? 1 : 0);
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t mp = month > 2 ? month - 3 : month + 9;
    const std::int64_t doy = (153 * mp + 2) / 5 + day - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool is_valid_date(int year, unsigned month, unsigned day) noexcept {
    if (month < 1 || month > 12 || day < 1) return false;
    static constexpr std::array<unsigned, 12> days = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return day <= days[month - 1] + (month == 2 && leap ? 1 : 0);
}

char* write_unscaled_base64(char* p, std::string_view text, unsigned scale) noexcept {
    // The digits as a 256-bit number (65 decimal digits need 216 bits),
    // little-endian 32-bit limbs.
    std::array<std::uint32_t, 8> limbs{};
    auto push_digit = [&](unsigned d) {
        std::uint64_t carry = d;
        for (std::uint32_t& l : limbs) {
            const std::uint64_t v = std::uint64_t{l} * 10 + carry;
            l = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
    };
    bool negative = false;
    bool after_point = false;
    unsigned fraction = 0;
    for (char c : text) {
        if (c == '-') negative = true;
        else if (c == '.') after_point = true;
        else if (c >= '0' && c <= '9') {
            if (after_point) {
                if (fraction == scale) continue;  // more digits than the scale: not from a column of it
                ++fraction;
            }
            push_digit(static_cast<unsigned>(c - '0'));
        }
    }
    for (; fraction < scale; ++fraction) push_digit(0);
    bool zero = true;
    for (std::uint32_t l : limbs) zero &= l == 0;
    if (zero) negative = false;
    if (negative) {  // two's complement: invert, add one
        std::uint64_t carry = 1;
        for (std::uint32_t& l : limbs) {
            const std::uint64_t v = std::uint64_t{static_cast<std::uint32_t>(~l)} + carry;
            l = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
    }
    std::array<std::uint8_t, 32> bytes{};  // big-endian
    for (std::size_t i = 0; i < 32; ++i) bytes[31 - i] = static_cast<std::uint8_t>(limbs[i / 4] >> (8 * (i % 4)));
    // Minimal: drop a leading sign byte while the next byte carries the same sign.
    const std::uint8_t sign_byte = negative ? 0xFF : 0x00;
    std::size_t from = 0;
    while (from < 31 && bytes[from] == sign_byte && ((bytes[from + 1] & 0x80) != 0) == negative) ++from;
    return json::write_base64(p, std::span<const std::uint8_t>(bytes).subspan(from));
}

namespace {

void write_literal(Buffer& out, std::string_view s) { out.append(s); }

void write_null(Buffer& out) { out.commit(json::write_null(out.room(4))); }

void write_signed(Buffer& out, std::int64_t v) { out.commit(json::write_integer(out.room(json::max_number_length), v)); }

void write_unsigned(Buffer& out, std::uint64_t v) {
    out.commit(json::write_unsigned(out.room(json::max_number_length), v));
}

void write_string(Buffer& out, std::string_view text) {
    out.commit(json::write_string(out.room(json::string_bound(text.size())), text));
}

void write_base64(Buffer& out, binlog::Bytes bytes, std::size_t zero_padding = 0) {
    out.commit(json::write_base64(out.room(json::base64_length(bytes.size() + zero_padding)), bytes, zero_padding));
}

// A zero or invalid temporal value: null, or in a NOT NULL column the
// epoch Debezium falls back to.
template <class Epoch>
void write_invalid_temporal(Buffer& out, const binlog::ColumnInfo& c, Epoch&& epoch) {
    if (c.nullable) write_null(out);
    else epoch();
}

constexpr std::int64_t micros_per_second = 1'000'000;

void write_date(Buffer& out, const Date& d, const binlog::ColumnInfo& c) {
    if (!is_valid_date(d.year, d.month, d.day)) return write_invalid_temporal(out, c, [&] { write_signed(out, 0); });
    write_signed(out, days_since_epoch(d.year, d.month, d.day));
}

void write_time(Buffer& out, const Time& t) {
    const std::int64_t micros =
        (static_cast<std::int64_t>(t.hours) * 3600 + t.minutes * 60 + t.seconds) * micros_per_second + t.microseconds;
    write_signed(out, t.negative ? -micros : micros);
}

void write_datetime(Buffer& out, const DateTime& dt, const binlog::ColumnInfo& c) {
    if (!is_valid_date(dt.year, dt.month, dt.day))
        return write_invalid_temporal(out, c, [&] { write_signed(out, 0); });
    const std::int64_t seconds =
        days_since_epoch(dt.year, dt.month, dt.day) * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second;
    // io.debezium.time.Timestamp (milliseconds) up to DATETIME(3),
    // io.debezium.time.MicroTimestamp from DATETIME(4).
    if (c.fsp <= 3) write_signed(out, seconds * 1000 + dt.microsecond / 1000);
    else write_signed(out, seconds * micros_per_second + dt.microsecond);
}

char* two_digits(char* p, unsigned v) noexcept {
    p[0] = static_cast<char>('0' + v / 10 % 10);
    p[1] = static_cast<char>('0' + v % 10);
    return p + 2;
}

// ISO-8601 in UTC as Java's ISO_OFFSET_DATE_TIME prints it, with exactly
// `fsp` fraction digits when fsp > 0 (Debezium's ZonedTimestamp).
void write_timestamp(Buffer& out, const binlog::Timestamp& ts, const binlog::ColumnInfo& c) {
    if (ts.seconds == 0 && ts.microseconds == 0)
        return write_invalid_temporal(out, c, [&] { write_literal(out, "\"1970-01-01T00:00:00Z\""); });
    const DateTime dt = binlog::to_utc_datetime(ts);
    char* p = out.room(40);
    *p++ = '"';
    p = two_digits(p, dt.year / 100);
    p = two_digits(p, dt.year % 100);
    *p++ = '-';
    p = two_digits(p, dt.month);
    *p++ = '-';
    p = two_digits(p, dt.day);
    *p++ = 'T';
    p = two_digits(p, dt.hour);
    *p++ = ':';
    p = two_digits(p, dt.minute);
    *p++ = ':';
    p = two_digits(p, dt.second);
    if (c.fsp > 0) {
        *p++ = '.';
        std::uint32_t f = dt.microsecond;
        char digits[6];
        for (int i = 5; i >= 0; --i) {
            digits[i] = static_cast<char>('0' + f % 10);
            f /= 10;
        }
        const std::size_t n = c.fsp > 6 ? 6 : c.fsp;
        std::memcpy(p, digits, n);
        p += n;
    }
    *p++ = 'Z';
    *p++ = '"';
    out.commit(p);
}

void write_decimal(Buffer& out, const Decimal& d, const binlog::ColumnInfo& c, const ValueOptions& o) {
    switch (o.decimal) {
        case DecimalHandling::precise:
            out.commit(write_unscaled_base64(out.room(max_unscaled_base64), d.text(), c.scale));
            return;
        case DecimalHandling::string: {
            char* p = out.room(d.text().size() + 2);  // digits, '-', '.': nothing to escape
            *p++ = '"';
            std::memcpy(p, d.text().data(), d.text().size());
            p += d.text().size();
            *p++ = '"';
            out.commit(p);
            return;
        }
        case DecimalHandling::double_: {
            double v = 0;
            const std::string_view t = d.text();
            std::from_chars(t.data(), t.data() + t.size(), v);  // always a decimal's text: never fails
            out.commit(json::write_double(out.room(json::max_number_length), v));
            return;
        }
    }
}

void write_bit(Buffer& out, const binlog::Bit& b) {
    if (b.width <= 1) return write_literal(out, b.value ? "true" : "false");
    // io.debezium.data.Bits: the bits little-endian in ceil(n/8) bytes.
    std::array<std::uint8_t, 8> bytes{};
    const std::size_t n = (b.width + 7u) / 8u;
    for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(b.value >> (8 * i));
    write_base64(out, std::span<const std::uint8_t>(bytes).first(n));
}

// io.debezium.data.geometry.Geometry: MariaDB's bytes are a little-endian
// 4-byte SRID then the WKB; SRID 0 is null.
void write_geometry(Buffer& out, const binlog::Geometry& g) {
    write_literal(out, "{\"wkb\":");
    if (g.value.size() < 4) {
        write_base64(out, g.value);
        write_literal(out, ",\"srid\":null,\"extensions\":null}");
        return;
    }
    write_base64(out, g.value.subspan(4));
    const std::uint32_t srid = std::uint32_t{g.value[0]} | std::uint32_t{g.value[1]} << 8 |
                               std::uint32_t{g.value[2]} << 16 | std::uint32_t{g.value[3]} << 24;
    write_literal(out, ",\"srid\":");
    if (srid == 0) write_null(out);
    else write_signed(out, static_cast<std::int32_t>(srid));
    write_literal(out, ",\"extensions\":null}");
}

}  // namespace

void append_value(Buffer& out, const binlog::Value& value, const binlog::ColumnInfo& column, const ValueOptions& options) {
    std::visit(
        [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t>) write_signed(out, v);
            else if constexpr (std::is_same_v<T, std::uint64_t>) {
                // bigint.unsigned.handling.mode=long: a Java long.
                if (column.type == binlog::ColumnType::longlong) write_signed(out, static_cast<std::int64_t>(v));
                else write_unsigned(out, v);
            } else if constexpr (std::is_same_v<T, float>)
                out.commit(json::write_float(out.room(json::max_number_length), v));
            else if constexpr (std::is_same_v<T, double>)
                out.commit(json::write_double(out.room(json::max_number_length), v));
            else if constexpr (std::is_same_v<T, Decimal>) write_decimal(out, v, column, options);
            else if constexpr (std::is_same_v<T, Date>) write_date(out, v, column);
            else if constexpr (std::is_same_v<T, Time>) write_time(out, v);
            else if constexpr (std::is_same_v<T, DateTime>) write_datetime(out, v, column);
            else if constexpr (std::is_same_v<T, binlog::Timestamp>) write_timestamp(out, v, column);
            else if constexpr (std::is_same_v<T, binlog::Year>) write_unsigned(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Bit>) write_bit(out, v);
            else if constexpr (std::is_same_v<T, binlog::Text>) write_string(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Json>) write_string(out, v.value);
            else if constexpr (std::is_same_v<T, binlog::Enum>) write_string(out, v.name);
            else if constexpr (std::is_same_v<T, binlog::Blob>)
                write_base64(out, v.value, v.padded_length > v.value.size() ? v.padded_length - v.value.size() : 0);
            else if constexpr (std::is_same_v<T, binlog::Geometry>) write_geometry(out, v);
            else {
                // SET, UUID, INET4/6: MariaDB's text (a SET's members joined
                // by ','; Debezium's MariaDB connector prints UUIDs the same).
                thread_local std::string text;  // reused: its capacity stays
                text.clear();
                binlog::append_text(text, value, column);
                write_string(out, text);
            }
        },
        value);
}

void append_image(Buffer& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table,
                  const ValueOptions& options) {
    out.push_back('{');
    bool first = true;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const binlog::Cell& cell = cells[i];
        if (!cell.present) continue;
        if (!first) out.push_back(',');
        first = false;
        const binlog::ColumnInfo& column = table.columns[i];
        if (!column.name.empty()) write_string(out, column.name);
        else {
            char* p = out.room(json::max_number_length + 3);
            *p++ = '"';
            *p++ = '@';
            p = json::write_unsigned(p, i + 1);
            *p++ = '"';
            out.commit(p);
        }
        out.push_back(':');
        if (cell.null) write_null(out);
        else append_value(out, cell.value, column, options);
    }
    out.push_back('}');
}

void append_image(std::string& out, std::span<const binlog::Cell> cells, const binlog::TableMap& table,
                  const ValueOptions& options) {
    thread_local Buffer scratch;
    scratch.clear();
    append_image(scratch, cells, table, options);
    out.append(scratch.view());
}

}  // namespace sluice::mariadb::cdc::debezium
