// Debezium's value encodings on values alone, every type at its edges, and
// the schema change message of a DDL statement. The expected texts were
// computed apart from this code (Python's datetime and int.to_bytes, the
// Java rules quoted in docs/mariadb-cdc.md), not by running it.
#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <string>
#include <vector>

#include "json_scan.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"
#include "sluice/mariadb/cdc/debezium_values.hpp"

namespace sluice::mariadb::cdc::debezium {

// The schema change message and its resume point are the JetStream envelope's.
using namespace jetstream;
namespace {

using binlog::ColumnInfo;
using binlog::ColumnType;
using binlog::Value;

ColumnInfo column(ColumnType type, std::uint8_t fsp = 0, bool nullable = true) {
    ColumnInfo c;
    c.type = type;
    c.binlog_type = type;
    c.fsp = fsp;
    c.nullable = nullable;
    return c;
}

ColumnInfo decimal_column(std::uint8_t precision, std::uint8_t scale) {
    ColumnInfo c = column(ColumnType::newdecimal);
    c.precision = precision;
    c.scale = scale;
    return c;
}

ColumnInfo bit_column(std::uint8_t width) {
    ColumnInfo c = column(ColumnType::bit);
    c.bit_width = width;
    return c;
}

std::string encoded(const Value& v, const ColumnInfo& c, DecimalHandling decimal = DecimalHandling::precise) {
    mariadb::ndjson::Buffer b;
    append_value(b, v, c, ValueOptions{decimal});
    return std::string(b.view());
}

Decimal dec(std::string_view text) { return Decimal::from_string(text); }

TEST(DebeziumValues, IntegersAreNumbersAndBigintUnsignedIsAJavaLong) {
    EXPECT_EQ(encoded(std::int64_t{-128}, column(ColumnType::tiny)), "-128");
    EXPECT_EQ(encoded(std::numeric_limits<std::int64_t>::min(), column(ColumnType::longlong)), "-9223372036854775808");
    EXPECT_EQ(encoded(std::uint64_t{4294967295U}, column(ColumnType::long_)), "4294967295");
    EXPECT_EQ(encoded(std::uint64_t{255}, column(ColumnType::tiny)), "255");
    // bigint.unsigned.handling.mode=long: above 2^63-1 the value wraps.
    EXPECT_EQ(encoded(std::uint64_t{9223372036854775807U}, column(ColumnType::longlong)), "9223372036854775807");
    EXPECT_EQ(encoded(std::uint64_t{9223372036854775808U}, column(ColumnType::longlong)), "-9223372036854775808");
    EXPECT_EQ(encoded(std::numeric_limits<std::uint64_t>::max(), column(ColumnType::longlong)), "-1");
    EXPECT_EQ(encoded(binlog::Year{2155}, column(ColumnType::year)), "2155");
    EXPECT_EQ(encoded(binlog::Year{0}, column(ColumnType::year)), "0");
}

TEST(DebeziumValues, FloatAndDoubleAreNumbers) {
    EXPECT_EQ(encoded(0.1F, column(ColumnType::float_)), "0.1");
    EXPECT_EQ(encoded(-1.5, column(ColumnType::double_)), "-1.5");
    EXPECT_EQ(encoded(1e308, column(ColumnType::double_)), "1e+308");
}

TEST(DebeziumValues, DecimalPreciseIsTheUnscaledTwosComplementInBase64) {
    const ColumnInfo d10_2 = decimal_column(10, 2);
    EXPECT_EQ(encoded(dec("0.00"), d10_2), "\"AA==\"");
    EXPECT_EQ(encoded(dec("0.01"), d10_2), "\"AQ==\"");
    EXPECT_EQ(encoded(dec("-0.01"), d10_2), "\"/w==\"");
    EXPECT_EQ(encoded(dec("1.27"), d10_2), "\"fw==\"");
    EXPECT_EQ(encoded(dec("1.28"), d10_2), "\"AIA=\"");   // 128 needs a sign byte
    EXPECT_EQ(encoded(dec("-1.28"), d10_2), "\"gA==\"");  // -128 does not
    EXPECT_EQ(encoded(dec("-1.29"), d10_2), "\"/38=\"");
    EXPECT_EQ(encoded(dec("12.50"), d10_2), "\"BOI=\"");
    EXPECT_EQ(encoded(dec("-12.50"), d10_2), "\"+x4=\"");
    EXPECT_EQ(encoded(dec("327.68"), d10_2), "\"AIAA\"");
    EXPECT_EQ(encoded(dec("-327.69"), d10_2), "\"/3//\"");
    // A text with fewer fraction digits than the scale is scaled up.
    EXPECT_EQ(encoded(dec("-12.5"), d10_2), "\"+x4=\"");
    // DECIMAL(65,30) at its edges: 65 nines, and -10^64 (scale 0).
    const std::string nines = std::string(35, '9') + "." + std::string(30, '9');
    EXPECT_EQ(encoded(dec(nines), decimal_column(65, 30)), "\"APMWJxx/w5CKi+9GTjlF73olNgn//////////w==\"");
    EXPECT_EQ(encoded(dec("-" + nines), decimal_column(65, 30)), "\"/wzp2OOAPG91dBC5sca6EIXayfYAAAAAAAAAAQ==\"");
    EXPECT_EQ(encoded(dec("-1" + std::string(64, '0')), decimal_column(65, 0)), "\"57D8FsAGCyVYaBKRxxKbQJXg/wAAAAAAAAAA\"");
}

TEST(DebeziumValues, DecimalStringAndDoubleModes) {
    const ColumnInfo d10_2 = decimal_column(10, 2);
    EXPECT_EQ(encoded(dec("-12.50"), d10_2, DecimalHandling::string), "\"-12.50\"");
    EXPECT_EQ(encoded(dec("0.00"), d10_2, DecimalHandling::string), "\"0.00\"");
    EXPECT_EQ(encoded(dec("-12.50"), d10_2, DecimalHandling::double_), "-12.5");
    EXPECT_EQ(encoded(dec("0.10"), d10_2, DecimalHandling::double_), "0.1");
    EXPECT_EQ(encoded(dec(std::string(35, '9') + "." + std::string(30, '9')), decimal_column(65, 30),
                      DecimalHandling::double_),
              "1e+35");
}

TEST(DebeziumValues, DateIsDaysSinceTheEpochAndInvalidDatesAreNull) {
    const ColumnInfo date = column(ColumnType::date);
    EXPECT_EQ(encoded(Date{1970, 1, 1}, date), "0");
    EXPECT_EQ(encoded(Date{2024, 2, 29}, date), "19782");
    EXPECT_EQ(encoded(Date{1969, 12, 31}, date), "-1");
    EXPECT_EQ(encoded(Date{1000, 1, 1}, date), "-354285");
    EXPECT_EQ(encoded(Date{9999, 12, 31}, date), "2932896");
    EXPECT_EQ(encoded(Date{1, 1, 1}, date), "-719162");
    // The zero date, partial zero dates and impossible days.
    EXPECT_EQ(encoded(Date{0, 0, 0}, date), "null");
    EXPECT_EQ(encoded(Date{2024, 0, 10}, date), "null");
    EXPECT_EQ(encoded(Date{2024, 3, 0}, date), "null");
    EXPECT_EQ(encoded(Date{2023, 2, 29}, date), "null");
    EXPECT_EQ(encoded(Date{2100, 2, 29}, date), "null");
    EXPECT_EQ(encoded(Date{2000, 2, 29}, date), "11016");
    // NOT NULL: Debezium's fallback, the epoch.
    EXPECT_EQ(encoded(Date{0, 0, 0}, column(ColumnType::date, 0, false)), "0");
}

TEST(DebeziumValues, TimeIsSignedMicrosecondsBeyondADay) {
    const ColumnInfo time6 = column(ColumnType::time2, 6);
    EXPECT_EQ(encoded(Time{false, 0, 0, 0, 0}, time6), "0");
    EXPECT_EQ(encoded(Time{false, 13, 14, 15, 123456}, time6), "47655123456");
    EXPECT_EQ(encoded(Time{false, 25, 0, 0, 0}, time6), "90000000000");
    EXPECT_EQ(encoded(Time{false, 838, 59, 59, 999999}, time6), "3020399999999");
    EXPECT_EQ(encoded(Time{true, 838, 59, 59, 0}, time6), "-3020399000000");
    EXPECT_EQ(encoded(Time{true, 0, 0, 1, 500000}, time6), "-1500000");
}

TEST(DebeziumValues, DatetimeIsMillisecondsUpToThreeDigitsThenMicroseconds) {
    const DateTime dt{2024, 2, 29, 13, 14, 15, 123456};
    EXPECT_EQ(encoded(DateTime{2024, 2, 29, 13, 14, 15, 0}, column(ColumnType::datetime2, 0)), "1709212455000");
    EXPECT_EQ(encoded(DateTime{2024, 2, 29, 13, 14, 15, 123000}, column(ColumnType::datetime2, 3)), "1709212455123");
    EXPECT_EQ(encoded(DateTime{2024, 2, 29, 13, 14, 15, 123400}, column(ColumnType::datetime2, 4)), "1709212455123400");
    EXPECT_EQ(encoded(dt, column(ColumnType::datetime2, 6)), "1709212455123456");
    EXPECT_EQ(encoded(DateTime{9999, 12, 31, 23, 59, 59, 999999}, column(ColumnType::datetime2, 6)),
              "253402300799999999");
    EXPECT_EQ(encoded(DateTime{1969, 12, 31, 23, 59, 59, 999000}, column(ColumnType::datetime2, 3)), "-1");
    EXPECT_EQ(encoded(DateTime{1969, 12, 31, 23, 59, 59, 999999}, column(ColumnType::datetime2, 6)), "-1");
    EXPECT_EQ(encoded(DateTime{}, column(ColumnType::datetime2, 6)), "null");
    EXPECT_EQ(encoded(DateTime{0, 0, 0, 14, 2, 10, 0}, column(ColumnType::datetime2, 0)), "null");
    EXPECT_EQ(encoded(DateTime{}, column(ColumnType::datetime2, 2, false)), "0");
}

TEST(DebeziumValues, TimestampIsIsoUtcWithTheColumnsFractionDigits) {
    const binlog::Timestamp ts{1709212455, 120000};
    EXPECT_EQ(encoded(ts, column(ColumnType::timestamp2, 3)), "\"2024-02-29T13:14:15.120Z\"");
    EXPECT_EQ(encoded(ts, column(ColumnType::timestamp2, 6)), "\"2024-02-29T13:14:15.120000Z\"");
    EXPECT_EQ(encoded(binlog::Timestamp{1709212455, 0}, column(ColumnType::timestamp2, 5)),
              "\"2024-02-29T13:14:15.00000Z\"");
    EXPECT_EQ(encoded(binlog::Timestamp{1709212455, 0}, column(ColumnType::timestamp2, 0)), "\"2024-02-29T13:14:15Z\"");
    EXPECT_EQ(encoded(binlog::Timestamp{1, 0}, column(ColumnType::timestamp, 0)), "\"1970-01-01T00:00:01Z\"");
    EXPECT_EQ(encoded(binlog::Timestamp{2147483647, 999999}, column(ColumnType::timestamp2, 6)),
              "\"2038-01-19T03:14:07.999999Z\"");
    // TIMESTAMP 0 is MariaDB's zero timestamp.
    EXPECT_EQ(encoded(binlog::Timestamp{0, 0}, column(ColumnType::timestamp2, 3)), "null");
    EXPECT_EQ(encoded(binlog::Timestamp{0, 0}, column(ColumnType::timestamp2, 3, false)), "\"1970-01-01T00:00:00Z\"");
}

TEST(DebeziumValues, BitOneIsABooleanWiderBitsAreLittleEndianBytes) {
    EXPECT_EQ(encoded(binlog::Bit{1, 1}, bit_column(1)), "true");
    EXPECT_EQ(encoded(binlog::Bit{0, 1}, bit_column(1)), "false");
    EXPECT_EQ(encoded(binlog::Bit{0xFFFFFFFFFFFFFFFFULL, 64}, bit_column(64)), "\"//////////8=\"");
    EXPECT_EQ(encoded(binlog::Bit{0x0102030405060708ULL, 64}, bit_column(64)), "\"CAcGBQQDAgE=\"");
    EXPECT_EQ(encoded(binlog::Bit{0x2AB, 10}, bit_column(10)), "\"qwI=\"");
    EXPECT_EQ(encoded(binlog::Bit{0, 8}, bit_column(8)), "\"AA==\"");
}

TEST(DebeziumValues, TextEnumSetJsonAndUuidAreStrings) {
    const ColumnInfo text = column(ColumnType::varchar);
    EXPECT_EQ(encoded(binlog::Text{"caf\xC3\xA9 \xF0\x9F\x98\x80"}, text), "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
    EXPECT_EQ(encoded(binlog::Text{"a\"b\\\n"}, text), "\"a\\\"b\\\\\\n\"");
    EXPECT_EQ(encoded(binlog::Text{""}, text), "\"\"");
    EXPECT_EQ(encoded(binlog::Enum{2, "medium"}, column(ColumnType::enum_)), "\"medium\"");
    EXPECT_EQ(encoded(binlog::Enum{0, ""}, column(ColumnType::enum_)), "\"\"");
    const std::vector<std::string> members = {"a", "b", "c"};
    EXPECT_EQ(encoded(binlog::Set{0b101, members}, column(ColumnType::set)), "\"a,c\"");
    EXPECT_EQ(encoded(binlog::Set{0, members}, column(ColumnType::set)), "\"\"");
    EXPECT_EQ(encoded(binlog::Json{"{\"k\": [1, \"x\"]}"}, column(ColumnType::blob)), "\"{\\\"k\\\": [1, \\\"x\\\"]}\"");
    binlog::Uuid u;
    for (std::size_t i = 0; i < 16; ++i) u.bytes[i] = static_cast<std::uint8_t>(i * 17);
    EXPECT_EQ(encoded(u, column(ColumnType::string)), "\"00112233-4455-6677-8899-aabbccddeeff\"");
}

TEST(DebeziumValues, BinaryIsBase64PaddedToItsLength) {
    const std::array<std::uint8_t, 2> bytes{0x00, 0xFF};
    EXPECT_EQ(encoded(binlog::Blob{bytes, 2}, column(ColumnType::varchar)), "\"AP8=\"");
    const std::array<std::uint8_t, 1> one{0x01};
    EXPECT_EQ(encoded(binlog::Blob{one, 4}, column(ColumnType::string)), "\"AQAAAA==\"");  // BINARY(4)
    EXPECT_EQ(encoded(binlog::Blob{{}, 0}, column(ColumnType::blob)), "\"\"");
}

TEST(DebeziumValues, GeometryIsWkbAndSrid) {
    // POINT(1 2) with SRID 4326: MariaDB's bytes are the SRID (little-endian) then the WKB.
    std::vector<std::uint8_t> bytes = {0xE6, 0x10, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00};
    const std::array<std::uint8_t, 16> xy = {0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0, 0, 0, 0, 0, 0, 0, 0x40};
    bytes.insert(bytes.end(), xy.begin(), xy.end());
    EXPECT_EQ(encoded(binlog::Geometry{bytes}, column(ColumnType::geometry)),
              "{\"wkb\":\"AQEAAAAAAAAAAADwPwAAAAAAAABA\",\"srid\":4326,\"extensions\":null}");
    bytes[0] = bytes[1] = 0;
    EXPECT_EQ(encoded(binlog::Geometry{bytes}, column(ColumnType::geometry)),
              "{\"wkb\":\"AQEAAAAAAAAAAADwPwAAAAAAAABA\",\"srid\":null,\"extensions\":null}");
}

TEST(DebeziumValues, ImagesHaveThePresentCellsNullsAndNamelessColumns) {
    binlog::TableMap table;
    table.columns = {column(ColumnType::long_), column(ColumnType::date), column(ColumnType::varchar),
                     column(ColumnType::timestamp2, 3)};
    table.columns[0].name = "id";
    table.columns[2].name = "na\"me";
    table.columns[3].name = "at";
    std::vector<binlog::Cell> cells(4);
    cells[0] = {true, false, std::int64_t{7}};
    cells[1] = {true, false, Date{2024, 2, 29}};
    cells[2] = {true, true, {}};
    cells[3] = {false, false, {}};  // not logged (binlog_row_image=MINIMAL)
    std::string out = "x";
    append_image(out, cells, table);
    EXPECT_EQ(out, "x{\"id\":7,\"@2\":19782,\"na\\\"me\":null}");
    std::vector<binlog::Cell> none(4);
    out.clear();
    append_image(out, none, table);
    EXPECT_EQ(out, "{}");
}

TEST(DebeziumValues, DaysSinceEpochAgreesWithDateValidity) {
    // Consecutive valid dates are consecutive days, over four centuries.
    std::int64_t last = days_since_epoch(1799, 12, 31);
    for (int y = 1800; y < 2200; ++y)
        for (unsigned m = 1; m <= 12; ++m)
            for (unsigned d = 1; d <= 31; ++d) {
                if (!is_valid_date(y, m, d)) continue;
                const std::int64_t day = days_since_epoch(y, m, d);
                ASSERT_EQ(day, last + 1) << y << "-" << m << "-" << d;
                last = day;
            }
    EXPECT_EQ(last, days_since_epoch(2199, 12, 31));
}

// A DDL statement in the debezium envelope: Debezium's schema change event
// on subject PREFIX, its GTID as the message id, resumed after.
TEST(DebeziumDdl, IsASchemaChangeEventResumedAfter) {
    cdc::Ddl ddl;
    ddl.gtid = {0, 7, 42};
    ddl.timestamp = 1764576000;
    ddl.db = "shop";
    ddl.sql = "ALTER TABLE orders ADD note VARCHAR(5) DEFAULT \"x\"";
    std::vector<OutMessage> out;
    messages_of(out, ddl, cdc::GtidState::parse("0-7-41"), cdc::GtidState::parse("0-7-42"), Envelope::debezium, "pre",
                1764576000123);
    ASSERT_EQ(out.size(), 1U);
    const OutMessage& m = out[0];
    EXPECT_EQ(m.subject, "pre");
    EXPECT_EQ(m.data,
              "{\"source\":{\"version\":\"sluice\",\"connector\":\"mariadb\",\"name\":\"pre\",\"ts_ms\":1764576000000,"
              "\"snapshot\":\"false\",\"db\":\"shop\",\"table\":null,\"server_id\":7,\"gtid\":\"0-7-42\",\"file\":\"\","
              "\"pos\":0,\"row\":0,\"thread\":null,\"query\":null},\"ts_ms\":1764576000123,\"databaseName\":\"shop\","
              "\"schemaName\":null,\"ddl\":\"ALTER TABLE orders ADD note VARCHAR(5) DEFAULT \\\"x\\\"\","
              "\"tableChanges\":[]}");
    StoredMessage stored;
    stored.seq = 3;
    stored.subject = m.subject;
    for (const auto& [k, v] : m.headers) stored.headers[k] = v;
    EXPECT_EQ(stored.header(msg_id_header, "S"), "0-7-42");
    EXPECT_EQ(stored.header(gtid_header, "S"), "0-7-42");
    EXPECT_FALSE(stored.headers.count(change_header));
    const ResumePoint r = resume_point(stored, "S");
    ASSERT_TRUE(r.from.has_value());
    EXPECT_EQ(r.from->to_string(), "0-7-42");
    EXPECT_FALSE(r.skip_gtid);
    // The sluice envelope is unchanged: the NDJSON line.
    out.clear();
    messages_of(out, ddl, cdc::GtidState::parse("0-7-41"), cdc::GtidState::parse("0-7-42"), Envelope::sluice, "pre", 0);
    ASSERT_EQ(out.size(), 1U);
    EXPECT_EQ(sluice::mariadb::test::member(out[0].data, "ddl"), "\"ALTER TABLE orders ADD note VARCHAR(5) DEFAULT \\\"x\\\"\"");
}

}  // namespace
}  // namespace sluice::mariadb::cdc::debezium
