// Field conversions: one column classification, then for each C++ type the
// exact conversions allowed from each class. Anything lossy is
// Error{conversion}, naming the column, its type, the value and the target.
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb {

using protocol::as_text;
using protocol::Bytes;

namespace {

enum class Class { signed_int, unsigned_int, bit, float32, float64, decimal, date, datetime, time, text, null };

Class classify(const Column& c) noexcept {
    switch (c.type) {
        case ColumnType::tiny:
        case ColumnType::short_:
        case ColumnType::int24:
        case ColumnType::long_:
        case ColumnType::longlong: return c.is_unsigned() ? Class::unsigned_int : Class::signed_int;
        case ColumnType::year: return Class::unsigned_int;
        case ColumnType::bit: return Class::bit;
        case ColumnType::float_: return Class::float32;
        case ColumnType::double_: return Class::float64;
        case ColumnType::decimal:
        case ColumnType::newdecimal: return Class::decimal;
        case ColumnType::date:
        case ColumnType::newdate: return Class::date;
        case ColumnType::datetime:
        case ColumnType::datetime2:
        case ColumnType::timestamp:
        case ColumnType::timestamp2: return Class::datetime;
        case ColumnType::time:
        case ColumnType::time2: return Class::time;
        case ColumnType::null: return Class::null;
        default: return Class::text;
    }
}

bool is_integer(Class k) noexcept { return k == Class::signed_int || k == Class::unsigned_int || k == Class::bit; }

// An integer value of either signedness, before narrowing to the target.
struct Integer {
    bool is_signed = false;
    std::int64_t s = 0;
    std::uint64_t u = 0;
};

std::uint64_t little_endian(Bytes b) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < b.size(); ++i) v |= std::uint64_t{b[i]} << (8 * i);
    return v;
}

// Fraction digits to print for a temporal column (39 = not fixed).
int fraction_digits(const Column& c) noexcept { return c.decimals <= 6 ? c.decimals : -1; }

}  // namespace

// The class-specific readers live in this helper so Field stays small.
struct FieldAccess {
    const Field& f;
    Class k = classify(f.column());

    std::string value_preview() const {
        std::string v;
        try {
            v = f.to_string();
        } catch (const Error&) {
            return "<malformed>";
        }
        if (v.size() > 64) v = v.substr(0, 61) + "...";
        return v;
    }

    [[noreturn]] void fail(std::string_view target, std::string_view why) const {
        std::string msg = "cannot read column '" + f.column().name + "' (" + f.column().type_name() + ") value '" +
                          value_preview() + "' as " + std::string(target) + ": " + std::string(why);
        throw Error(ErrorKind::conversion, msg);
    }

    std::string_view text() const { return as_text(f.raw()); }

    Integer integer(std::string_view target) const {
        Integer v;
        Bytes b = f.raw();
        if (k == Class::bit) {
            if (b.size() > 8) fail(target, "BIT value wider than 64 bits");
            for (std::uint8_t byte : b) v.u = (v.u << 8) | byte;  // big-endian, both protocols
            return v;
        }
        if (k == Class::signed_int || k == Class::unsigned_int) {
            v.is_signed = k == Class::signed_int;
            if (f.binary_protocol()) {
                std::uint64_t raw = little_endian(b);
                if (v.is_signed) {
                    switch (b.size()) {
                        case 1: v.s = static_cast<std::int8_t>(raw); break;
                        case 2: v.s = static_cast<std::int16_t>(raw); break;
                        case 4: v.s = static_cast<std::int32_t>(raw); break;
                        default: v.s = static_cast<std::int64_t>(raw); break;
                    }
                } else {
                    v.u = raw;
                }
                return v;
            }
            std::string_view t = text();
            auto r = v.is_signed ? std::from_chars(t.data(), t.data() + t.size(), v.s)
                                 : std::from_chars(t.data(), t.data() + t.size(), v.u);
            if (r.ec != std::errc{} || r.ptr != t.data() + t.size()) fail(target, "malformed integer text");
            return v;
        }
        if (k == Class::decimal) {
            std::optional<Decimal> d = Decimal::parse(text());
            if (!d) fail(target, "malformed decimal text");
            if (d->has_fraction()) fail(target, "has a fractional part");
            std::string_view digits = d->integer_digits();
            std::string buf = d->negative() ? "-" + std::string(digits) : std::string(digits);
            v.is_signed = d->negative();
            auto r = v.is_signed ? std::from_chars(buf.data(), buf.data() + buf.size(), v.s)
                                 : std::from_chars(buf.data(), buf.data() + buf.size(), v.u);
            if (r.ec != std::errc{}) fail(target, "out of range");
            return v;
        }
        if (k == Class::float32 || k == Class::float64) {
            double d = floating();
            if (!std::isfinite(d) || std::trunc(d) != d) fail(target, "not an integer");
            if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
                v.is_signed = true;
                v.s = static_cast<std::int64_t>(d);
            } else if (d >= 0 && d < 18446744073709551616.0) {
                v.u = static_cast<std::uint64_t>(d);
            } else {
                fail(target, "out of range");
            }
            return v;
        }
        fail(target, "not a number");
    }

    template <class I>
    I narrow(std::string_view target) const {
        Integer v = integer(target);
        if (v.is_signed) {
            if constexpr (std::is_signed_v<I>) {
                if (v.s >= std::numeric_limits<I>::min() && v.s <= std::numeric_limits<I>::max()) {
                    return static_cast<I>(v.s);
                }
            } else {
                if (v.s >= 0 && static_cast<std::uint64_t>(v.s) <= std::numeric_limits<I>::max()) {
                    return static_cast<I>(v.s);
                }
            }
        } else if (v.u <= static_cast<std::uint64_t>(std::numeric_limits<I>::max())) {
            return static_cast<I>(v.u);
        }
        fail(target, "out of range");
    }

    // FLOAT and DOUBLE columns, and DECIMAL (nearest value).
    double floating() const {
        Bytes b = f.raw();
        if (k == Class::float32) {
            if (f.binary_protocol()) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(little_endian(b))));
            float x = 0;
            parse_float(text(), x, "float");
            return static_cast<double>(x);
        }
        if (k == Class::float64 && f.binary_protocol()) return std::bit_cast<double>(little_endian(b));
        double x = 0;
        parse_float(text(), x, "double");
        return x;
    }

    template <class F>
    void parse_float(std::string_view t, F& out, std::string_view target) const {
        auto r = std::from_chars(t.data(), t.data() + t.size(), out);
        if (r.ec != std::errc{} || r.ptr != t.data() + t.size()) fail(target, "malformed number text");
    }

    double to_double() const {
        if (k == Class::float32 || k == Class::float64 || k == Class::decimal) return floating();
        if (is_integer(k)) {
            Integer v = integer("double");
            // Every integer of magnitude up to 2^53 is exactly a double.
            constexpr std::int64_t exact = std::int64_t{1} << 53;
            if (v.is_signed ? (v.s >= -exact && v.s <= exact) : v.u <= static_cast<std::uint64_t>(exact)) {
                return v.is_signed ? static_cast<double>(v.s) : static_cast<double>(v.u);
            }
            fail("double", "integer not exactly representable as double");
        }
        fail("double", "not a number");
    }

    float to_float() const {
        if (k == Class::float32) return static_cast<float>(floating());
        if (k == Class::decimal) {
            float x = 0;
            parse_float(text(), x, "float");
            return x;
        }
        double d = to_double();
        float x = static_cast<float>(d);
        if (!(static_cast<double>(x) == d) && !std::isnan(d)) fail("float", "not exactly representable as float");
        return x;
    }

    // Views are possible when the wire bytes are the value's text or bytes.
    bool viewable() const noexcept {
        return !f.binary_protocol() || k == Class::text || k == Class::decimal || k == Class::bit;
    }

    DateTime datetime(std::string_view target) const {
        if (k != Class::date && k != Class::datetime) fail(target, "not a date or datetime column");
        if (f.binary_protocol()) {
            try {
                return protocol::decode_binary_datetime(f.raw());
            } catch (const Error& e) {
                fail(target, e.what());
            }
        }
        auto dt = parse_datetime(text());
        if (!dt) fail(target, "malformed date/time text");
        return *dt;
    }
};

void Field::throw_null(std::string_view cpp_type) const {
    throw Error(ErrorKind::conversion, "column '" + column_->name + "' is NULL; read it as std::optional<" +
                                           std::string(cpp_type) + ">");
}

std::string Field::to_string() const {
    if (is_null()) return "NULL";
    FieldAccess a{*this};
    if (a.viewable()) return std::string(a.text());
    char buf[64];
    switch (a.k) {
        case Class::signed_int:
        case Class::unsigned_int: {
            Integer v = a.integer("text");
            auto r = v.is_signed ? std::to_chars(buf, buf + sizeof buf, v.s) : std::to_chars(buf, buf + sizeof buf, v.u);
            return std::string(buf, r.ptr);
        }
        case Class::float32: {
            float x = static_cast<float>(a.floating());
            return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
        }
        case Class::float64: {
            double x = a.floating();
            return std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr);
        }
        case Class::date: {
            DateTime dt = protocol::decode_binary_datetime(raw());
            return mariadb::to_string(Date{dt.year, dt.month, dt.day});
        }
        case Class::datetime:
            return mariadb::to_string(protocol::decode_binary_datetime(raw()), fraction_digits(*column_));
        case Class::time: return mariadb::to_string(protocol::decode_binary_time(raw()), fraction_digits(*column_));
        default: return std::string(a.text());
    }
}

template <>
bool Field::read<bool>() const {
    FieldAccess a{*this};
    if (!is_integer(a.k) && a.k != Class::decimal) a.fail("bool", "not an integer column");
    std::uint64_t v = a.narrow<std::uint64_t>("bool");
    if (v > 1) a.fail("bool", "only 0 and 1 are booleans");
    return v == 1;
}

namespace {
// The commonest read of all -- an integer column of a prepared result into
// an integer that holds it -- without the general machinery (column class,
// Integer, text parsing). Anything else (other types, a width that does
// not match the column's, a value out of range) returns false and takes
// the general path, which converts it or names the failure.
template <class I>
bool read_binary_integer(const Column& c, Bytes b, I& out) noexcept {
    std::size_t width = 0;
    bool is_signed = !c.is_unsigned();
    switch (c.type) {
        case ColumnType::tiny: width = 1; break;
        case ColumnType::short_: width = 2; break;
        case ColumnType::year:
            width = 2;
            is_signed = false;
            break;
        case ColumnType::int24:
        case ColumnType::long_: width = 4; break;
        case ColumnType::longlong: width = 8; break;
        default: return false;
    }
    if (b.size() != width) return false;
    std::uint64_t u = 0;
    for (std::size_t i = 0; i < width; ++i) u |= std::uint64_t{b[i]} << (8 * i);
    if (is_signed) {
        const unsigned shift = 64 - 8 * static_cast<unsigned>(width);
        const auto v = static_cast<std::int64_t>(u << shift) >> shift;  // sign-extended
        if constexpr (std::is_signed_v<I>) {
            if (v < std::numeric_limits<I>::min() || v > std::numeric_limits<I>::max()) return false;
        } else {
            if (v < 0 || static_cast<std::uint64_t>(v) > std::numeric_limits<I>::max()) return false;
        }
        out = static_cast<I>(v);
        return true;
    }
    if (u > static_cast<std::uint64_t>(std::numeric_limits<I>::max())) return false;
    out = static_cast<I>(u);
    return true;
}
}  // namespace

#define SLUICE_INTEGER_READ(T)                                                        \
    template <>                                                                       \
    T Field::read<T>() const {                                                        \
        T v{};                                                                        \
        if (binary_ && read_binary_integer(*column_, slice_.bytes, v)) return v;      \
        return FieldAccess{*this}.narrow<T>(#T);                                      \
    }
SLUICE_INTEGER_READ(std::int8_t)
SLUICE_INTEGER_READ(std::int16_t)
SLUICE_INTEGER_READ(std::int32_t)
SLUICE_INTEGER_READ(std::int64_t)
SLUICE_INTEGER_READ(std::uint8_t)
SLUICE_INTEGER_READ(std::uint16_t)
SLUICE_INTEGER_READ(std::uint32_t)
SLUICE_INTEGER_READ(std::uint64_t)
#undef SLUICE_INTEGER_READ

template <>
double Field::read<double>() const {
    return FieldAccess{*this}.to_double();
}

template <>
float Field::read<float>() const {
    return FieldAccess{*this}.to_float();
}

template <>
std::string_view Field::read<std::string_view>() const {
    FieldAccess a{*this};
    if (!a.viewable()) a.fail("std::string_view", "binary-protocol value has no text form; read it as std::string");
    return a.text();
}

template <>
std::span<const std::uint8_t> Field::read<std::span<const std::uint8_t>>() const {
    FieldAccess a{*this};
    if (!a.viewable()) a.fail("bytes", "binary-protocol value has no byte-string form");
    return raw();
}

template <>
std::string Field::read<std::string>() const {
    return to_string();
}

template <>
Decimal Field::read<Decimal>() const {
    FieldAccess a{*this};
    if (a.k == Class::decimal) {
        auto d = Decimal::parse(a.text());
        if (!d) a.fail("Decimal", "malformed decimal text");
        return *d;
    }
    if (a.k == Class::signed_int || a.k == Class::unsigned_int) {
        auto d = Decimal::parse(to_string());
        if (!d) a.fail("Decimal", "malformed integer");
        return *d;
    }
    a.fail("Decimal", "not a DECIMAL or integer column");
}

template <>
DateTime Field::read<DateTime>() const {
    return FieldAccess{*this}.datetime("DateTime");
}

template <>
Date Field::read<Date>() const {
    FieldAccess a{*this};
    if (a.k != Class::date) a.fail("Date", "not a DATE column (read DATETIME/TIMESTAMP as DateTime)");
    DateTime dt = a.datetime("Date");
    return Date{dt.year, dt.month, dt.day};
}

template <>
Time Field::read<Time>() const {
    FieldAccess a{*this};
    if (a.k != Class::time) a.fail("Time", "not a TIME column");
    if (binary_protocol()) {
        try {
            return protocol::decode_binary_time(raw());
        } catch (const Error& e) {
            a.fail("Time", e.what());
        }
    }
    auto t = parse_time(a.text());
    if (!t) a.fail("Time", "malformed time text");
    return *t;
}

Field Row::operator[](std::size_t index) const {
    if (index >= fields_.size()) {
        throw Error(ErrorKind::usage, "column index " + std::to_string(index) + " out of range (row has " +
                                          std::to_string(fields_.size()) + " columns)");
    }
    return Field((*columns_)[index], fields_[index], binary_);
}

std::size_t Row::index_of(std::string_view name) const {
    for (std::size_t i = 0; i < columns_->size(); ++i) {
        if ((*columns_)[i].name == name) return i;
    }
    throw Error(ErrorKind::usage, "no column named '" + std::string(name) + "' in the result");
}

}  // namespace sluice::mariadb
