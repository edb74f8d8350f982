// One value of a row image, by the column's type and table-map metadata.
// Fixed-width numbers are little-endian; the MySQL 5.6 temporal types
// (TIME2, DATETIME2, TIMESTAMP2) and BIT are big-endian; strings carry a
// 1-4 byte length. Nothing is copied but UUID/INET bytes (16 at most).
#include <bit>
#include <cstring>
#include <string>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

namespace {

std::uint64_t big_endian(Bytes b) noexcept {
    std::uint64_t v = 0;
    for (std::uint8_t x : b) v = (v << 8) | x;
    return v;
}

std::uint64_t little_endian(Bytes b) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = b.size(); i > 0; --i) v = (v << 8) | b[i - 1];
    return v;
}

// Microseconds of a TIME2/DATETIME2/TIMESTAMP2 fraction of `fsp` digits,
// stored big-endian in (fsp + 1) / 2 bytes (units of 1/100, 1/10000 or
// 1/1000000 second). `is_signed`: TIME2 stores the fraction signed.
std::int64_t fraction_micros(Reader& r, std::uint8_t fsp, bool is_signed, std::string_view field) {
    std::size_t n = (fsp + 1u) / 2u;
    if (n == 0) return 0;
    std::uint64_t raw = big_endian(r.bytes(n, field));
    std::int64_t v = static_cast<std::int64_t>(raw);
    if (is_signed && (raw >> (8 * n - 1)) & 1) v -= std::int64_t{1} << (8 * n);
    static constexpr std::int64_t unit[4] = {1, 10000, 100, 1};
    std::int64_t micros = v * unit[n];
    if (micros < -999999 || micros > 999999)
        r.fail(field, "fraction of " + std::to_string(micros) + " microseconds");
    return micros;
}

Time time_from_packed(std::int64_t packed) {
    Time t;
    if (packed < 0) {
        t.negative = true;
        packed = -packed;
    }
    std::int64_t hms = packed >> 24;
    t.microseconds = static_cast<std::uint32_t>(packed % (1 << 24));
    t.hours = static_cast<std::uint32_t>((hms >> 12) % (1 << 10));
    t.minutes = static_cast<std::uint8_t>((hms >> 6) % (1 << 6));
    t.seconds = static_cast<std::uint8_t>(hms % (1 << 6));
    return t;
}

// TIME2: 3 bytes of (sign-offset) hours/minutes/seconds, then the
// fraction; a negative value with a fraction stores the integer part one
// second further from zero and the fraction as a negative offset.
Time decode_time2(Reader& r, const ColumnInfo& c, std::string_view field) {
    constexpr std::int64_t int_offset = 0x800000;
    std::uint64_t int_raw = big_endian(r.bytes(3, field));
    std::int64_t packed = 0;
    if (c.fsp >= 5) {
        // 5-6 digits: one 48-bit number, fraction included.
        std::uint64_t whole = (int_raw << 24) | big_endian(r.bytes(3, field));
        packed = static_cast<std::int64_t>(whole) - (int_offset << 24);
    } else {
        std::int64_t intpart = static_cast<std::int64_t>(int_raw) - int_offset;
        std::int64_t frac = fraction_micros(r, c.fsp, true, field);
        if (intpart < 0 && frac != 0) intpart += 1;
        packed = intpart * (std::int64_t{1} << 24) + frac;
    }
    Time t = time_from_packed(packed);
    if (t.microseconds > 999999 || t.minutes > 59 || t.seconds > 59 || t.hours > 838)
        r.fail(field, "TIME2 field out of range");
    return t;
}

DateTime datetime_from_packed_int(std::uint64_t ymdhms, std::uint32_t micros) {
    DateTime dt;
    std::uint64_t ymd = ymdhms >> 17;
    std::uint64_t ym = ymd >> 5;
    std::uint64_t hms = ymdhms % (1 << 17);
    dt.day = static_cast<std::uint8_t>(ymd % (1 << 5));
    dt.month = static_cast<std::uint8_t>(ym % 13);
    dt.year = static_cast<std::uint16_t>(ym / 13);
    dt.second = static_cast<std::uint8_t>(hms % (1 << 6));
    dt.minute = static_cast<std::uint8_t>((hms >> 6) % (1 << 6));
    dt.hour = static_cast<std::uint8_t>(hms >> 12);
    dt.microsecond = micros;
    return dt;
}

void check_datetime(Reader& r, const DateTime& dt, std::string_view field) {
    if (dt.year > 9999 || dt.month > 12 || dt.day > 31 || dt.hour > 23 || dt.minute > 59 || dt.second > 59 ||
        dt.microsecond > 999999)
        r.fail(field, "DATETIME field out of range");
}

DateTime decode_datetime2(Reader& r, const ColumnInfo& c, std::string_view field) {
    constexpr std::uint64_t int_offset = 0x8000000000;
    std::uint64_t raw = big_endian(r.bytes(5, field));
    if (raw < int_offset) r.fail(field, "negative DATETIME2");
    std::int64_t micros = fraction_micros(r, c.fsp, false, field);
    DateTime dt = datetime_from_packed_int(raw - int_offset, static_cast<std::uint32_t>(micros));
    check_datetime(r, dt, field);
    return dt;
}

// MariaDB 5.3's "hires" temporal formats (mysql56_temporal_format=OFF),
// sized by the fsp the schema hint gave: big-endian, the value scaled down
// to fsp digits.
constexpr std::uint8_t hires_fraction_bytes[7] = {0, 1, 1, 2, 2, 3, 3};
constexpr std::int64_t scale_down[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};

Time decode_time_hires(Reader& r, const ColumnInfo& c, std::string_view field) {
    constexpr std::int64_t max_seconds_plus_one = 838 * 3600 + 59 * 60 + 59 + 1;
    std::int64_t zero = max_seconds_plus_one * 1000000 / scale_down[c.fsp];
    std::int64_t raw = static_cast<std::int64_t>(big_endian(r.bytes(3u + hires_fraction_bytes[c.fsp], field)));
    std::int64_t v = (raw - zero) * scale_down[c.fsp];  // signed microseconds
    Time t;
    if (v < 0) {
        t.negative = true;
        v = -v;
    }
    t.microseconds = static_cast<std::uint32_t>(v % 1000000);
    std::int64_t s = v / 1000000;
    t.seconds = static_cast<std::uint8_t>(s % 60);
    t.minutes = static_cast<std::uint8_t>(s / 60 % 60);
    t.hours = static_cast<std::uint32_t>(s / 3600);
    if (t.hours > 838) r.fail(field, "TIME over 838 hours");
    return t;
}

DateTime decode_datetime_hires(Reader& r, const ColumnInfo& c, std::string_view field) {
    std::uint64_t v = big_endian(r.bytes(5u + hires_fraction_bytes[c.fsp], field)) *
                      static_cast<std::uint64_t>(scale_down[c.fsp]);
    DateTime dt;
    dt.microsecond = static_cast<std::uint32_t>(v % 1000000);
    v /= 1000000;
    dt.second = static_cast<std::uint8_t>(v % 60);
    v /= 60;
    dt.minute = static_cast<std::uint8_t>(v % 60);
    v /= 60;
    dt.hour = static_cast<std::uint8_t>(v % 24);
    v /= 24;
    dt.day = static_cast<std::uint8_t>(v % 32);
    v /= 32;
    dt.month = static_cast<std::uint8_t>(v % 13);
    v /= 13;
    if (v > 9999) r.fail(field, "DATETIME year over 9999");
    dt.year = static_cast<std::uint16_t>(v);
    check_datetime(r, dt, field);
    return dt;
}

// The old 8-byte DATETIME: the decimal number YYYYMMDDhhmmss.
DateTime decode_datetime_old(Reader& r, std::string_view field) {
    std::uint64_t v = r.u64(field);
    DateTime dt;
    dt.second = static_cast<std::uint8_t>(v % 100);
    v /= 100;
    dt.minute = static_cast<std::uint8_t>(v % 100);
    v /= 100;
    dt.hour = static_cast<std::uint8_t>(v % 100);
    v /= 100;
    dt.day = static_cast<std::uint8_t>(v % 100);
    v /= 100;
    dt.month = static_cast<std::uint8_t>(v % 100);
    v /= 100;
    if (v > 9999) r.fail(field, "DATETIME year over 9999");
    dt.year = static_cast<std::uint16_t>(v);
    check_datetime(r, dt, field);
    return dt;
}

// The old 3-byte TIME: the signed decimal number [-]hhhmmss.
Time decode_time_old(Reader& r, std::string_view field) {
    std::uint32_t raw = r.u24(field);
    std::int32_t v = static_cast<std::int32_t>(raw << 8) >> 8;
    Time t;
    if (v < 0) {
        t.negative = true;
        v = -v;
    }
    t.seconds = static_cast<std::uint8_t>(v % 100);
    t.minutes = static_cast<std::uint8_t>(v / 100 % 100);
    t.hours = static_cast<std::uint32_t>(v / 10000);
    if (t.seconds > 59 || t.minutes > 59 || t.hours > 838) r.fail(field, "TIME field out of range");
    return t;
}

std::uint32_t string_length(Reader& r, std::uint32_t max_length, std::string_view field) {
    return max_length > 255 ? r.u16(field) : r.u8(field);
}

template <std::size_t N>
std::array<std::uint8_t, N> padded(Reader& r, Bytes v, std::string_view field, std::string_view type) {
    if (v.size() > N)
        r.fail(field, std::string(type) + " value of " + std::to_string(v.size()) + " bytes (at most " +
                          std::to_string(N) + ")");
    std::array<std::uint8_t, N> out{};
    if (!v.empty()) std::memcpy(out.data(), v.data(), v.size());
    return out;
}

}  // namespace

void decode_value(const ColumnInfo& c, Reader& r, Value& out) {
    std::string_view field = c.name.empty() ? std::string_view("column value") : std::string_view(c.name);
    switch (c.type) {
        case ColumnType::tiny: {
            std::uint8_t v = r.u8(field);
            if (c.is_unsigned) out = std::uint64_t{v};
            else out = std::int64_t{static_cast<std::int8_t>(v)};
            return;
        }
        case ColumnType::short_: {
            std::uint16_t v = r.u16(field);
            if (c.is_unsigned) out = std::uint64_t{v};
            else out = std::int64_t{static_cast<std::int16_t>(v)};
            return;
        }
        case ColumnType::int24: {
            std::uint32_t v = r.u24(field);
            if (c.is_unsigned) out = std::uint64_t{v};
            else out = std::int64_t{static_cast<std::int32_t>(v << 8) >> 8};
            return;
        }
        case ColumnType::long_: {
            std::uint32_t v = r.u32(field);
            if (c.is_unsigned) out = std::uint64_t{v};
            else out = std::int64_t{static_cast<std::int32_t>(v)};
            return;
        }
        case ColumnType::longlong: {
            std::uint64_t v = r.u64(field);
            if (c.is_unsigned) out = v;
            else out = static_cast<std::int64_t>(v);
            return;
        }
        case ColumnType::float_: out = std::bit_cast<float>(r.u32(field)); return;
        case ColumnType::double_: out = std::bit_cast<double>(r.u64(field)); return;
        case ColumnType::newdecimal: {
            Bytes b = r.bytes(decimal_binary_size(c.precision, c.scale), field);
            out = decode_decimal(b, c.precision, c.scale, r, field);
            return;
        }
        case ColumnType::year: {
            std::uint8_t v = r.u8(field);
            out = Year{static_cast<std::uint16_t>(v == 0 ? 0 : 1900 + v)};
            return;
        }
        case ColumnType::date:
        case ColumnType::newdate: {
            std::uint32_t v = r.u24(field);
            Date d{static_cast<std::uint16_t>(v >> 9), static_cast<std::uint8_t>((v >> 5) & 15),
                   static_cast<std::uint8_t>(v & 31)};
            if (d.month > 12) r.fail(field, "DATE month " + std::to_string(d.month));
            out = d;
            return;
        }
        case ColumnType::time:
            out = c.fsp ? decode_time_hires(r, c, field) : decode_time_old(r, field);
            return;
        case ColumnType::time2: out = decode_time2(r, c, field); return;
        case ColumnType::datetime:
            out = c.fsp ? decode_datetime_hires(r, c, field) : decode_datetime_old(r, field);
            return;
        case ColumnType::datetime2: out = decode_datetime2(r, c, field); return;
        case ColumnType::timestamp: {
            Timestamp ts;
            if (c.fsp) {
                ts.seconds = static_cast<std::int64_t>(big_endian(r.bytes(4, field)));
                std::uint64_t f = big_endian(r.bytes(hires_fraction_bytes[c.fsp], field)) *
                                  static_cast<std::uint64_t>(scale_down[c.fsp]);
                if (f > 999999) r.fail(field, "TIMESTAMP fraction over 999999 microseconds");
                ts.microseconds = static_cast<std::uint32_t>(f);
            } else {
                ts.seconds = r.u32(field);
            }
            out = ts;
            return;
        }
        case ColumnType::timestamp2: {
            Timestamp ts;
            ts.seconds = static_cast<std::int64_t>(big_endian(r.bytes(4, field)));
            ts.microseconds = static_cast<std::uint32_t>(fraction_micros(r, c.fsp, false, field));
            out = ts;
            return;
        }
        case ColumnType::bit: {
            Bytes b = r.bytes((c.bit_width + 7u) / 8u, field);
            std::uint64_t v = big_endian(b);
            if (c.bit_width < 64 && (v >> c.bit_width) != 0)
                r.fail(field, "BIT(" + std::to_string(c.bit_width) + ") value with higher bits set");
            out = Bit{v, c.bit_width};
            return;
        }
        case ColumnType::enum_: {
            std::uint16_t index = c.pack_length == 1 ? r.u8(field) : r.u16(field);
            std::string_view name;
            if (index > 0 && index <= c.enum_values.size()) name = c.enum_values[index - 1];
            else if (index > 0 && !c.enum_values.empty())
                r.fail(field, "ENUM index " + std::to_string(index) + " of " + std::to_string(c.enum_values.size()) +
                                  " values");
            out = Enum{index, name};
            return;
        }
        case ColumnType::set: {
            std::uint64_t bits = little_endian(r.bytes(c.pack_length, field));
            if (!c.set_values.empty() && c.set_values.size() < 64 && (bits >> c.set_values.size()) != 0)
                r.fail(field, "SET bits beyond its " + std::to_string(c.set_values.size()) + " members");
            out = Set{bits, std::span<const std::string>(c.set_values)};
            return;
        }
        case ColumnType::string: {
            std::uint32_t n = string_length(r, c.max_length, field);
            if (n > c.max_length)
                r.fail(field, "CHAR/BINARY value of " + std::to_string(n) + " bytes in a column of " +
                                  std::to_string(c.max_length));
            Bytes v = r.bytes(n, field);
            switch (c.schema_type) {
                case SchemaType::uuid: out = Uuid{padded<16>(r, v, field, "UUID")}; return;
                case SchemaType::inet6: out = Inet6{padded<16>(r, v, field, "INET6")}; return;
                case SchemaType::inet4: out = Inet4{padded<4>(r, v, field, "INET4")}; return;
                default: break;
            }
            if (c.is_text()) out = Text{as_text(v)};
            else out = Blob{v, c.max_length};
            return;
        }
        case ColumnType::varchar:
        case ColumnType::var_string: {
            std::uint32_t n = string_length(r, c.max_length, field);
            if (n > c.max_length)
                r.fail(field, "VARCHAR value of " + std::to_string(n) + " bytes in a column of " +
                                  std::to_string(c.max_length));
            Bytes v = r.bytes(n, field);
            if (c.is_text()) out = Text{as_text(v)};
            else out = Blob{v, static_cast<std::uint32_t>(v.size())};
            return;
        }
        case ColumnType::blob:
        case ColumnType::tiny_blob:
        case ColumnType::medium_blob:
        case ColumnType::long_blob:
        case ColumnType::geometry:
        case ColumnType::json: {
            std::uint64_t n = little_endian(r.bytes(c.max_length, field));
            Bytes v = r.bytes(static_cast<std::size_t>(n), field);
            if (c.type == ColumnType::geometry) out = Geometry{v};
            else if (c.schema_type == SchemaType::json) out = Json{as_text(v)};
            else if (c.is_text()) out = Text{as_text(v)};
            else out = Blob{v, static_cast<std::uint32_t>(v.size())};
            return;
        }
        default:
            r.fail(field, "column type " + std::string(protocol::to_string(c.type)) + " (" +
                              std::to_string(static_cast<int>(c.type)) + ") cannot appear in a row image");
    }
}

}  // namespace sluice::mariadb::binlog::detail
