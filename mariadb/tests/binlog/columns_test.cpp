// Column decoders at their edges, on hand-built TABLE_MAP + WRITE_ROWS
// events (byte layouts as MariaDB writes them; the fixtures cover the same
// types as captured from a real server).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fixture.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::binlog {
namespace {

using test::TestColumn;

struct OneValue {
    std::vector<std::vector<std::uint8_t>> events;  // kept alive: the value views them
    Decoder dec;
    Value value;
    std::shared_ptr<const TableMap> table;
    std::string text;
};

// Decodes one non-NULL value of one column (plus optional metadata).
std::unique_ptr<OneValue> decode_one(const TestColumn& col, const std::vector<std::uint8_t>& value,
                                     const std::vector<std::pair<std::uint8_t, std::vector<std::uint8_t>>>& optional = {},
                                     const TableSchema* schema = nullptr) {
    auto out = std::make_unique<OneValue>();
    if (schema) out->dec.set_schema("db", "t", *schema);
    out->events.push_back(test::format_description());
    out->events.push_back(test::table_map_event(7, "db", "t", {col}, optional));
    std::vector<std::uint8_t> image = {0x00};  // NULL bitmap: not NULL
    image.insert(image.end(), value.begin(), value.end());
    out->events.push_back(test::rows_event(EventType::write_rows_v1, 7, 1, {0x01}, image));
    Rows rows;
    for (auto& e : out->events) {
        Event ev = out->dec.decode(e);
        if (auto* r = std::get_if<Rows>(&ev.body)) rows = *r;
    }
    RowReader reader(rows);
    RowChange ch;
    EXPECT_TRUE(reader.next(ch));
    out->value = ch.after[0].value;
    out->table = rows.table;
    out->text = to_text(out->value, rows.table->columns[0]);
    EXPECT_FALSE(reader.next(ch));
    return out;
}

std::string text_of(const TestColumn& col, const std::vector<std::uint8_t>& value,
                    const std::vector<std::pair<std::uint8_t, std::vector<std::uint8_t>>>& optional = {}) {
    return decode_one(col, value, optional)->text;
}

constexpr std::uint8_t signedness = 1;
constexpr std::uint8_t set_values = 5;
constexpr std::uint8_t enum_values = 6;

TEST(BinlogColumns, DecimalKnownLayoutPositiveAndNegative) {
    // DECIMAL(14,4) 1234567890.1234 and its negation (the layout example
    // of the MySQL/MariaDB source documentation).
    TestColumn c{ColumnType::newdecimal, {14, 4}};
    EXPECT_EQ(text_of(c, {0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2}), "1234567890.1234");
    EXPECT_EQ(text_of(c, {0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D}), "-1234567890.1234");
}

TEST(BinlogColumns, Decimal65Digits) {
    // DECIMAL(65,0) of 65 nines: a 1-byte group of 2 digits, 7 groups of 9.
    std::vector<std::uint8_t> pos = {0x63};
    for (int g = 0; g < 7; ++g) pos.insert(pos.end(), {0x3B, 0x9A, 0xC9, 0xFF});
    pos[0] |= 0x80;
    std::vector<std::uint8_t> neg = pos;
    for (auto& b : neg) b = static_cast<std::uint8_t>(~b);
    TestColumn c{ColumnType::newdecimal, {65, 0}};
    std::string nines(65, '9');
    EXPECT_EQ(text_of(c, pos), nines);
    EXPECT_EQ(text_of(c, neg), "-" + nines);
    // DECIMAL(65,30) with only the last fraction digit set.
    TestColumn f{ColumnType::newdecimal, {65, 30}};
    std::vector<std::uint8_t> tiny(29, 0);  // 35 int digits: 4 + 3*4 + ... = 3+12 bytes; fraction: 3*4 + 2
    // int: 35 = 8 (4 bytes) + 3*9 (12 bytes) = 16 bytes; frac: 30 = 3*9 (12) + 3 (2 bytes) = 14 bytes
    tiny.assign(30, 0);
    tiny[0] = 0x80;
    tiny[29] = 0x01;
    EXPECT_EQ(text_of(f, tiny), "0.000000000000000000000000000001");
}

// MariaDB's binary DECIMAL of a sign and exactly intg + scale digits.
std::vector<std::uint8_t> encode_decimal(bool negative, const std::string& int_digits, const std::string& frac_digits) {
    static constexpr int bytes_for[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
    std::vector<std::uint8_t> out;
    auto put = [&](std::string_view digits) {
        std::uint32_t v = 0;
        for (char c : digits) v = v * 10 + static_cast<std::uint32_t>(c - '0');
        for (int i = bytes_for[digits.size()] - 1; i >= 0; --i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    };
    std::string_view in(int_digits);
    if (in.size() % 9) put(in.substr(0, in.size() % 9));
    for (std::size_t i = in.size() % 9; i < in.size(); i += 9) put(in.substr(i, 9));
    std::string_view fr(frac_digits);
    for (std::size_t i = 0; i + 9 <= fr.size(); i += 9) put(fr.substr(i, 9));
    if (fr.size() % 9) put(fr.substr(fr.size() - fr.size() % 9));
    out[0] ^= 0x80;
    if (negative)
        for (auto& b : out) b = static_cast<std::uint8_t>(~b);
    return out;
}

TEST(BinlogColumns, DecimalOfEveryPrecisionAndScaleReadsBackAsItsText) {
    // Random digits (many leading zeros, zero values, both signs) at every
    // precision and scale: the text drops the integer part's leading zeros,
    // keeps every scale digit, and prints a negative zero as zero.
    std::mt19937 rng(65);
    for (int precision = 1; precision <= 65; ++precision) {
        for (int scale = 0; scale <= std::min(precision, 30); ++scale) {
            for (int round = 0; round < 12; ++round) {
                const std::size_t intg = static_cast<std::size_t>(precision - scale);
                std::string int_digits(intg, '0'), frac(static_cast<std::size_t>(scale), '0');
                const std::size_t zeros = rng() % (intg + 1);  // leading zeros
                for (std::size_t i = zeros; i < intg; ++i) int_digits[i] = static_cast<char>('0' + rng() % 10);
                if (round % 3 != 0)
                    for (char& c : frac) c = static_cast<char>('0' + rng() % 10);
                const bool negative = round % 2 == 1;
                std::string expected = int_digits.substr(std::min(int_digits.find_first_not_of('0'), intg));
                if (expected.empty()) expected = "0";
                if (scale) expected += "." + frac;
                const bool zero = expected.find_first_not_of("0.") == std::string::npos;
                if (negative && !zero) expected = "-" + expected;
                TestColumn c{ColumnType::newdecimal, {static_cast<std::uint8_t>(precision), static_cast<std::uint8_t>(scale)}};
                ASSERT_EQ(text_of(c, encode_decimal(negative, int_digits, frac)), expected)
                    << "DECIMAL(" << precision << "," << scale << ")";
            }
        }
    }
}

TEST(BinlogColumns, DecimalDigitGroupOverNineDigitsIsAnError) {
    TestColumn c{ColumnType::newdecimal, {9, 0}};
    EXPECT_THROW(text_of(c, {0xBB, 0x9A, 0xCA, 0x00}), Error);  // 1000000000 in a 9-digit group
}

TEST(BinlogColumns, Time2NegativeFractionsEveryPrecision) {
    // -00:00:00.01 at fsp 2: integer part -1 (offset 0x800000), fraction -1.
    EXPECT_EQ(text_of({ColumnType::time2, {2}}, {0x7F, 0xFF, 0xFF, 0xFF}), "-00:00:00.01");
    // -838:59:59.9 at fsp 1.
    std::uint32_t hms = (838u << 12) | (59u << 6) | 59u;
    std::uint32_t stored = 0x800000u - hms - 1u;
    EXPECT_EQ(text_of({ColumnType::time2, {1}},
                      {static_cast<std::uint8_t>(stored >> 16), static_cast<std::uint8_t>(stored >> 8),
                       static_cast<std::uint8_t>(stored), 0xA6}),
              "-838:59:59.9");
    // +01:02:03.4567 at fsp 4.
    std::uint32_t p = 0x800000u + ((1u << 12) | (2u << 6) | 3u);
    EXPECT_EQ(text_of({ColumnType::time2, {4}},
                      {static_cast<std::uint8_t>(p >> 16), static_cast<std::uint8_t>(p >> 8),
                       static_cast<std::uint8_t>(p), 0x11, 0xD7}),
              "01:02:03.4567");
    // -00:00:00.5 at fsp 0 is impossible; -00:00:01 at fsp 0:
    std::uint32_t m = 0x800000u - 1u;
    EXPECT_EQ(text_of({ColumnType::time2, {0}},
                      {static_cast<std::uint8_t>(m >> 16), static_cast<std::uint8_t>(m >> 8), static_cast<std::uint8_t>(m)}),
              "-00:00:01");
}

TEST(BinlogColumns, Datetime2AndTimestamp2Fractions) {
    // 2024-02-29 13:14:15 packed: ((2024*13+2) << 22 | 29 << 17 | 13 << 12 | 14 << 6 | 15) + 2^39
    std::uint64_t ym = 2024u * 13u + 2u;
    std::uint64_t v = (ym << 22) | (29u << 17) | (13u << 12) | (14u << 6) | 15u;
    v += std::uint64_t{1} << 39;
    std::vector<std::uint8_t> b;
    for (int i = 4; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    auto with = [&](std::initializer_list<std::uint8_t> frac) {
        std::vector<std::uint8_t> out = b;
        out.insert(out.end(), frac);
        return out;
    };
    EXPECT_EQ(text_of({ColumnType::datetime2, {0}}, b), "2024-02-29 13:14:15");
    EXPECT_EQ(text_of({ColumnType::datetime2, {1}}, with({50})), "2024-02-29 13:14:15.5");
    EXPECT_EQ(text_of({ColumnType::datetime2, {3}}, with({0x04, 0xD2})), "2024-02-29 13:14:15.123");
    EXPECT_EQ(text_of({ColumnType::datetime2, {5}}, with({0x01, 0xE2, 0x40})), "2024-02-29 13:14:15.12345");
    // TIMESTAMP2(6) 0.000001 seconds past the epoch's first second.
    EXPECT_EQ(text_of({ColumnType::timestamp2, {6}}, {0, 0, 0, 1, 0, 0, 1}), "1970-01-01 00:00:01.000001");
    // The zero timestamp.
    EXPECT_EQ(text_of({ColumnType::timestamp2, {0}}, {0, 0, 0, 0}), "0000-00-00 00:00:00");
}

TEST(BinlogColumns, BitEveryWidth) {
    auto bit = [](unsigned width) {
        return TestColumn{ColumnType::bit, {static_cast<std::uint8_t>(width % 8), static_cast<std::uint8_t>(width / 8)}};
    };
    EXPECT_EQ(text_of(bit(1), {0x01}), "1");
    EXPECT_EQ(text_of(bit(8), {0xFF}), "255");
    EXPECT_EQ(text_of(bit(9), {0x01, 0x00}), "256");
    EXPECT_EQ(text_of(bit(63), {0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), "9223372036854775807");
    EXPECT_EQ(text_of(bit(64), {0x80, 0, 0, 0, 0, 0, 0, 1}), "9223372036854775809");
    auto one = decode_one(bit(13), {0x10, 0x01});
    EXPECT_EQ((std::get<Bit>(one->value)), (Bit{0x1001, 13}));
    // A BIT(9) value with bits above its width: an error, not a silent mask.
    EXPECT_THROW(text_of(bit(9), {0x02, 0x00}), Error);
}

TEST(BinlogColumns, EnumTwoBytesAndSetEightBytes) {
    // ENUM of 300 values: 2-byte index; value 300.
    std::vector<std::uint8_t> names = {0xFC, 0x2C, 0x01};  // lenenc 300
    for (int i = 1; i <= 300; ++i) {
        std::string s = "v" + std::to_string(i);
        names.push_back(static_cast<std::uint8_t>(s.size()));
        names.insert(names.end(), s.begin(), s.end());
    }
    TestColumn e{ColumnType::string, {0xF7, 2}};
    EXPECT_EQ(text_of(e, {0x2C, 0x01}, {{enum_values, names}}), "v300");
    EXPECT_EQ(text_of(e, {0x00, 0x00}, {{enum_values, names}}), "");  // the error value
    EXPECT_THROW(text_of(e, {0x2D, 0x01}, {{enum_values, names}}), Error);
    // SET of 64 members: 8 bytes.
    std::vector<std::uint8_t> members = {64};
    for (int i = 0; i < 64; ++i) {
        std::string s = "m" + std::to_string(i);
        members.push_back(static_cast<std::uint8_t>(s.size()));
        members.insert(members.end(), s.begin(), s.end());
    }
    TestColumn s{ColumnType::string, {0xF8, 8}};
    EXPECT_EQ(text_of(s, {0x01, 0, 0, 0, 0, 0, 0, 0x80}, {{set_values, members}}), "m0,m63");
    EXPECT_EQ(text_of(s, {0, 0, 0, 0, 0, 0, 0, 0}, {{set_values, members}}), "");
    // Without the strings (MINIMAL metadata): numbers, never a guess.
    EXPECT_EQ(text_of(TestColumn{ColumnType::string, {0xF7, 1}}, {0x02}), "2");
}

TEST(BinlogColumns, CharOver255BytesHasATwoByteLength) {
    // CHAR(100) utf8mb4 = 400 bytes: two length bits live in the type byte.
    TestColumn c{ColumnType::string, {0xEE, 0x90}};
    std::vector<std::uint8_t> v = {0x2C, 0x01};  // 300 bytes
    v.insert(v.end(), 300, 'x');
    auto one = decode_one(c, v);
    EXPECT_EQ(one->table->columns[0].max_length, 400u);
    EXPECT_EQ(one->text, std::string(300, 'x'));
}

TEST(BinlogColumns, IntegersSignedAndUnsignedFromTheSignednessBitmap) {
    EXPECT_EQ(text_of({ColumnType::int24, {}}, {0x00, 0x00, 0x80}), "-8388608");
    EXPECT_EQ(text_of({ColumnType::int24, {}}, {0xFF, 0xFF, 0xFF}, {{signedness, {0x80}}}), "16777215");
    EXPECT_EQ(text_of({ColumnType::longlong, {}}, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), "-1");
    EXPECT_EQ(text_of({ColumnType::longlong, {}}, {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, {{signedness, {0x80}}}),
              "18446744073709551615");
    EXPECT_EQ(text_of({ColumnType::year, {}}, {0}), "0000");
    EXPECT_EQ(text_of({ColumnType::year, {}}, {255}), "2155");
}

TEST(BinlogColumns, FloatShortestRoundTrip) {
    auto one = decode_one({ColumnType::float_, {4}}, {0xCD, 0xCC, 0x8C, 0x3F});  // 1.1f
    EXPECT_EQ(one->text, "1.1");
    EXPECT_EQ(std::get<float>(one->value), 1.1f);
}

TEST(BinlogColumns, Inet6TextAsMariaDbPrintsIt) {
    // Expected forms read from MariaDB 10.11: SELECT CAST('...' AS INET6).
    auto text = [](std::initializer_list<std::uint16_t> words) {
        Inet6 a;
        std::size_t i = 0;
        for (std::uint16_t w : words) {
            a.bytes[i++] = static_cast<std::uint8_t>(w >> 8);
            a.bytes[i++] = static_cast<std::uint8_t>(w);
        }
        return to_text(Value{a}, ColumnInfo{});
    };
    EXPECT_EQ(text({0, 0, 0, 0, 0, 0, 0, 1}), "::1");
    EXPECT_EQ(text({0, 0, 0, 0, 0, 0, 0, 0}), "::");
    EXPECT_EQ(text({1, 0, 0, 0, 0, 0, 0, 0}), "1::");
    EXPECT_EQ(text({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}), "2001:db8::1");
    EXPECT_EQ(text({0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304}), "::ffff:1.2.3.4");
    EXPECT_EQ(text({0, 0, 0, 0, 0, 0, 0x0102, 0x0304}), "::1.2.3.4");
    EXPECT_EQ(text({1, 0, 0, 1, 0, 0, 0, 1}), "1:0:0:1::1");
    EXPECT_EQ(text({1, 2, 3, 4, 5, 6, 7, 8}), "1:2:3:4:5:6:7:8");
    EXPECT_EQ(text({1, 0, 2, 3, 4, 5, 6, 7}), "1::2:3:4:5:6:7");
    EXPECT_EQ(text({0, 0, 1, 0, 0, 0, 0, 0}), "0:0:1::");
    EXPECT_EQ(text({0, 0, 0, 0, 0, 0xffff, 0, 0}), "::ffff:0.0.0.0");
    EXPECT_EQ(text({0, 0, 0, 0, 0, 0, 0, 2}), "::2");
    EXPECT_EQ(text({0, 0, 0, 0, 0xffff, 0, 0, 1}), "::ffff:0:0:1");
    EXPECT_EQ(text({0xfe80, 0, 0, 0, 0, 0, 0, 0}), "fe80::");
}

TEST(BinlogColumns, UuidHintNeedsSixteenByteBinary) {
    // A stale hint ("uuid" on a VARCHAR) is ignored, not applied.
    TableSchema schema{{{"c", "uuid"}}};
    auto one = decode_one({ColumnType::varchar, {20, 0}}, {3, 'a', 'b', 'c'}, {}, &schema);
    EXPECT_TRUE(std::holds_alternative<Text>(one->value));
    EXPECT_EQ(one->table->columns[0].name, "c");  // the name still comes from the schema
    auto uuid = decode_one({ColumnType::string, {0xFE, 16}}, {2, 0x12, 0x3e}, {}, &schema);
    ASSERT_TRUE(std::holds_alternative<Uuid>(uuid->value));
    EXPECT_EQ(uuid->text, "123e0000-0000-0000-0000-000000000000");
}

TEST(BinlogColumns, TimestampToUtcCalendar) {
    EXPECT_EQ((to_utc_datetime(Timestamp{951782400, 0})), (DateTime{2000, 2, 29, 0, 0, 0, 0}));
    EXPECT_EQ((to_utc_datetime(Timestamp{2147483647, 5})), (DateTime{2038, 1, 19, 3, 14, 7, 5}));
    EXPECT_EQ((to_utc_datetime(Timestamp{4102444800, 0})), (DateTime{2100, 1, 1, 0, 0, 0, 0}));
}

}  // namespace
}  // namespace sluice::mariadb::binlog
