// Field conversions on hand-built fields (both protocols), no server needed:
// every exact conversion works, every lossy one is Error{conversion}.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <limits>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb {
namespace {

using protocol::ColumnType;
using protocol::FieldSlice;

struct Value {
    Column column;
    std::vector<std::uint8_t> bytes;
    bool binary;
    bool null = false;
    Field field() const { return Field(column, FieldSlice{bytes, null}, binary); }
    template <class T>
    T get() const {
        return field().get<T>();
    }
};

Column column(ColumnType t, std::uint16_t flags = 0, std::uint16_t collation = 45) {
    Column c;
    c.name = "c";
    c.type = t;
    c.flags = flags;
    c.collation = collation;
    return c;
}

Value text(ColumnType t, std::string_view s, std::uint16_t flags = 0) {
    return Value{column(t, flags), std::vector<std::uint8_t>(s.begin(), s.end()), false};
}

template <class T>
Value binary(ColumnType t, T v, std::uint16_t flags = 0) {
    std::vector<std::uint8_t> b(sizeof(T));
    std::memcpy(b.data(), &v, sizeof(T));
    return Value{column(t, flags), b, true};
}

template <class T, class V>
ErrorKind failure(const V& v) {
    try {
        v.template get<T>();
    } catch (const Error& e) {
        return e.kind();
    }
    return ErrorKind::io;  // "no error": never equal to conversion
}

constexpr auto U = protocol::column_flag::unsigned_;

TEST(Conversion, IntegersNarrowOnlyWhenTheyFit) {
    auto v300 = text(ColumnType::long_, "300");
    EXPECT_EQ(v300.get<std::int16_t>(), 300);
    EXPECT_EQ(failure<std::int8_t>(v300), ErrorKind::conversion);
    EXPECT_EQ(failure<std::uint8_t>(v300), ErrorKind::conversion);
    auto neg = binary(ColumnType::tiny, std::int8_t{-128});
    EXPECT_EQ(neg.get<std::int8_t>(), -128);
    EXPECT_EQ(neg.get<std::int64_t>(), -128);
    EXPECT_EQ(failure<std::uint64_t>(neg), ErrorKind::conversion);
    auto umax = binary(ColumnType::longlong, std::numeric_limits<std::uint64_t>::max(), U);
    EXPECT_EQ(umax.get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(failure<std::int64_t>(umax), ErrorKind::conversion);
    auto umax_text = text(ColumnType::longlong, "18446744073709551615", U);
    EXPECT_EQ(umax_text.get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
    EXPECT_EQ(failure<std::int64_t>(umax_text), ErrorKind::conversion);
    auto tiny_unsigned = binary(ColumnType::tiny, std::uint8_t{255}, U);
    EXPECT_EQ(tiny_unsigned.get<int>(), 255);  // not -1
    auto int24 = binary(ColumnType::int24, std::int32_t{-8388608});
    EXPECT_EQ(int24.get<std::int32_t>(), -8388608);
}

TEST(Conversion, DecimalsAreExactAndRefuseToLoseFractions) {
    std::string digits65(65, '9');
    auto big = text(ColumnType::newdecimal, digits65);
    EXPECT_EQ(big.get<Decimal>().text(), digits65);
    EXPECT_EQ(failure<std::int64_t>(big), ErrorKind::conversion);
    auto frac = Value{column(ColumnType::newdecimal), {'1', '2', '.', '5'}, true};
    EXPECT_EQ(failure<std::int32_t>(frac), ErrorKind::conversion);
    EXPECT_DOUBLE_EQ(frac.get<double>(), 12.5);
    EXPECT_EQ(frac.get<std::string_view>(), "12.5");
    auto whole = text(ColumnType::newdecimal, "-12.000");
    EXPECT_EQ(whole.get<int>(), -12);
    EXPECT_EQ(text(ColumnType::longlong, "-5").get<Decimal>().text(), "-5");
}

TEST(Conversion, FloatingPointIsExactOrRefused) {
    auto d = binary(ColumnType::double_, 0.1);
    EXPECT_EQ(d.get<double>(), 0.1);
    EXPECT_EQ(failure<float>(d), ErrorKind::conversion);  // 0.1 is not a float
    EXPECT_EQ(failure<int>(d), ErrorKind::conversion);
    auto half = binary(ColumnType::double_, 0.5);
    EXPECT_EQ(half.get<float>(), 0.5f);
    auto f = binary(ColumnType::float_, 3.4028235e38f);
    EXPECT_EQ(f.get<float>(), 3.4028235e38f);
    EXPECT_EQ(text(ColumnType::float_, "3.40282e38").get<float>(), 3.40282e38f);
    auto big_int = binary(ColumnType::longlong, std::int64_t{(1LL << 53) + 1});
    EXPECT_EQ(failure<double>(big_int), ErrorKind::conversion);
    EXPECT_EQ(binary(ColumnType::longlong, std::int64_t{1LL << 53}).get<double>(), 9007199254740992.0);
    auto whole = binary(ColumnType::double_, -3.0);
    EXPECT_EQ(whole.get<std::int8_t>(), -3);
}

TEST(Conversion, TemporalValuesFromBothProtocols) {
    Value dt{column(ColumnType::datetime), {0xE8, 0x07, 2, 29, 13, 14, 15, 0x40, 0xE2, 0x01, 0x00}, true};
    dt.column.decimals = 6;  // DATETIME(6)
    EXPECT_EQ(dt.get<DateTime>(), (DateTime{2024, 2, 29, 13, 14, 15, 123456}));
    EXPECT_EQ(dt.get<std::string>(), "2024-02-29 13:14:15.123456");
    EXPECT_EQ(failure<Date>(dt), ErrorKind::conversion);
    EXPECT_EQ(failure<std::string_view>(dt), ErrorKind::conversion);
    Value zero{column(ColumnType::date), {}, true};
    EXPECT_EQ(zero.get<Date>(), (Date{0, 0, 0}));
    EXPECT_EQ(zero.get<std::string>(), "0000-00-00");
    Value t{column(ColumnType::time), {1, 34, 0, 0, 0, 22, 59, 59}, true};
    EXPECT_EQ(t.get<Time>(), (Time{true, 838, 59, 59, 0}));
    EXPECT_EQ(t.get<std::string>(), "-838:59:59");
    EXPECT_EQ(text(ColumnType::time, "-838:59:59.000001").get<Time>(), (Time{true, 838, 59, 59, 1}));
    EXPECT_EQ(text(ColumnType::timestamp, "2038-01-19 03:14:07.999999").get<DateTime>(),
              (DateTime{2038, 1, 19, 3, 14, 7, 999999}));
    EXPECT_EQ(text(ColumnType::date, "1000-01-01").get<DateTime>(), (DateTime{1000, 1, 1, 0, 0, 0, 0}));
    EXPECT_EQ(failure<Time>(text(ColumnType::datetime, "2024-01-01 00:00:00")), ErrorKind::conversion);
}

TEST(Conversion, NullNeedsOptional) {
    Value null{column(ColumnType::long_), {}, false, true};
    EXPECT_EQ(null.get<std::optional<int>>(), std::nullopt);
    EXPECT_EQ(failure<int>(null), ErrorKind::conversion);
    EXPECT_EQ(text(ColumnType::long_, "5").get<std::optional<int>>(), 5);
}

TEST(Conversion, BitYearBoolAndStrings) {
    Value bit{column(ColumnType::bit), {0x01, 0x02}, true};
    EXPECT_EQ(bit.get<std::uint16_t>(), 0x0102);
    EXPECT_EQ(failure<std::uint8_t>(bit), ErrorKind::conversion);
    Value bit1{column(ColumnType::bit), {0x01}, false};
    EXPECT_TRUE(bit1.get<bool>());
    EXPECT_EQ(failure<bool>(text(ColumnType::tiny, "2")), ErrorKind::conversion);
    EXPECT_FALSE(text(ColumnType::tiny, "0").get<bool>());
    EXPECT_EQ(binary(ColumnType::year, std::uint16_t{2155}).get<int>(), 2155);
    EXPECT_EQ(text(ColumnType::year, "1901").get<std::int16_t>(), 1901);
    auto s = text(ColumnType::var_string, "abc");
    EXPECT_EQ(s.get<std::string_view>(), "abc");
    EXPECT_EQ(failure<int>(s), ErrorKind::conversion);
    auto bytes = s.get<std::span<const std::uint8_t>>();
    EXPECT_EQ(bytes.size(), 3u);
    EXPECT_EQ(binary(ColumnType::long_, std::int32_t{-7}).get<std::string>(), "-7");
    EXPECT_EQ(binary(ColumnType::double_, 0.1).get<std::string>(), "0.1");
}

TEST(Conversion, ErrorMessageNamesColumnTypeValueAndTarget) {
    auto v = binary(ColumnType::longlong, std::numeric_limits<std::uint64_t>::max(), U);
    try {
        v.get<std::int64_t>();
        FAIL();
    } catch (const Error& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("'c'"), std::string::npos) << m;
        EXPECT_NE(m.find("BIGINT UNSIGNED"), std::string::npos) << m;
        EXPECT_NE(m.find("18446744073709551615"), std::string::npos) << m;
        EXPECT_NE(m.find("int64_t"), std::string::npos) << m;
    }
}

}  // namespace
}  // namespace sluice::mariadb
