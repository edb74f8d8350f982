// Debezium's encodings of snapshot rows (a prepared SELECT's Fields) against
// those of the binlog changes of the same rows, every type at its edges, on
// the shared private MariaDB (the `servers` fixture, database
// cdc_jetstream; no NATS needed).
#include <gtest/gtest.h>

#include <map>

#include "cdc_support.hpp"
#include "json_scan.hpp"
#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/cdc/debezium_values.hpp"

namespace sluice::mariadb::test {
namespace {

namespace dbz = sluice::mariadb::cdc::debezium;

const char* const types_table = R"(CREATE TABLE cdc_jetstream.dbz_types (
  id INT PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
  f FLOAT, d DOUBLE, d65 DECIMAL(65,30), d10 DECIMAL(10,2), d0 DECIMAL(20,0),
  da DATE, dn DATE NOT NULL, t0 TIME, t6 TIME(6), dt0 DATETIME, dt3 DATETIME(3), dt6 DATETIME(6),
  ts0 TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, ts6 TIMESTAMP(6) NULL, y YEAR,
  b1 BIT(1), b10 BIT(10), b64 BIT(64), e ENUM('a','b','c'), s SET('x','y','z'),
  c CHAR(10), vc VARCHAR(300), tx TEXT, bn BINARY(4), vb VARBINARY(20), bl BLOB,
  j JSON, g GEOMETRY, u UUID, ip4 INET4))";

const char* const type_rows[] = {
    "(1, -128, 0, -2147483648, 0, -9223372036854775808, 0, -3.40282e38, -1.7976931348623157e308,"
    " -99999999999999999999999999999999999.999999999999999999999999999999, -99999999.99, -99999999999999999999,"
    " '1000-01-01', '1969-12-31', '-838:59:59', '-838:59:59.999999', '1000-01-01 00:00:00', '1969-12-31 23:59:59.999',"
    " '1000-01-01 00:00:00.000001', '1970-01-01 00:00:01', '1970-01-01 00:00:01.100', '1970-01-01 00:00:01.000001', 1901,"
    " b'0', b'0', b'0', 'a', '', '', '', '', X'00', X'', X'', '[]', ST_GeomFromText('POINT(1 2)'),"
    " '00000000-0000-0000-0000-000000000000', '0.0.0.0')",
    "(2, 127, 255, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615, 3.40282e38,"
    " 1.7976931348623157e308, 99999999999999999999999999999999999.999999999999999999999999999999, 99999999.99,"
    " 99999999999999999999, '9999-12-31', '2024-02-29', '838:59:59', '838:59:59.999999', '9999-12-31 23:59:59',"
    " '2024-02-29 13:14:15.123', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07', '2024-02-29 13:14:15.120',"
    " '2038-01-19 03:14:07.999999', 2155, b'1', b'1010101011', 0xFFFFFFFFFFFFFFFF, 'c', 'x,z', 'abcdefghij',"
    " 'caf\xC3\xA9 \xF0\x9F\x98\x80', 'line\\nbreak \"quoted\" \\\\', X'01', X'00FF00', REPEAT(X'00FF', 100),"
    " '{\"a\": [1, 2, {\"b\": null}]}', ST_GeomFromText('POINT(1 2)', 4326), '123e4567-e89b-12d3-a456-426614174000',"
    " '10.0.0.1')",
    "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '0000-00-00', NULL, NULL, NULL,"
    " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    " NULL, NULL)",
    "(4, 0, 0, 0, 0, 0, 0, 0, 0, -0.000000000000000000000000000001, -12.50, 0, '0000-00-00', '2024-00-10',"
    " '00:00:00', '-00:00:00.000001', '0000-00-00 00:00:00', '2024-02-00 10:00:00', '1970-01-01 00:00:00',"
    " NULL, NULL, NULL, 0, b'1', b'1', 1, 'b', '', ' lead', 'sp ', '', X'', X'00', X'', '\"s\"',"
    " ST_GeomFromText('LINESTRING(0 0, 1 1)'), 'ffffffff-ffff-ffff-ffff-ffffffffffff', '255.255.255.255')",
};

class DebeziumSnapshotRows : public ::testing::Test {
protected:
    void SetUp() override {
        conn_.emplace(Connection::connect(admin_options()));
        conn_->execute("CREATE DATABASE IF NOT EXISTS cdc_jetstream");
        conn_->execute("SET time_zone = '+00:00', sql_mode = 'NO_ENGINE_SUBSTITUTION'");  // zero dates allowed
    }
    std::optional<Connection> conn_;
};

TEST_F(DebeziumSnapshotRows, ASnapshotReadEncodesEveryTypeAsTheChangeOfTheSameRow) {
    Connection& sql = *conn_;
    sql.execute("DROP TABLE IF EXISTS cdc_jetstream.dbz_types");
    const std::string start = binlog_pos(sql);
    sql.execute(types_table);
    for (const char* row : type_rows) sql.execute(std::string("INSERT INTO cdc_jetstream.dbz_types VALUES ") + row);

    std::map<std::string, std::string> changed;  // id -> the binlog after image
    {
        mariadb::cdc::StreamOptions so;
        so.start = mariadb::cdc::StartAt::gtid;
        so.gtid = mariadb::cdc::GtidState::parse(start);
        so.tables = mariadb::cdc::TableFilter::parse("cdc_jetstream.dbz_types");
        so.until_end = true;
        mariadb::cdc::ChangeStream cs = mariadb::cdc::ChangeStream::open(admin_options(), so);
        while (const mariadb::cdc::ChangeEvent* e = cs.next())
            if (const auto* t = std::get_if<mariadb::cdc::Transaction>(e))
                t->for_each_change([&](const mariadb::cdc::Change& c) {
                    std::string image;
                    dbz::append_image(image, c.after, *c.table);
                    changed[member(image, "id")] = image;
                });
    }
    std::map<std::string, std::string> read;  // id -> the snapshot row
    {
        ConnectOptions options = admin_options();
        options.init_commands.push_back("SET time_zone = '+05:00'");  // the snapshot reads TIMESTAMP in UTC anyway
        mariadb::cdc::StreamOptions so;
        so.start = mariadb::cdc::StartAt::snapshot;
        so.tables = mariadb::cdc::TableFilter::parse("cdc_jetstream.dbz_types");
        so.until_end = true;
        mariadb::cdc::ChangeStream cs = mariadb::cdc::ChangeStream::open(options, so);
        while (const mariadb::cdc::ChangeEvent* e = cs.next())
            if (const auto* chunk = std::get_if<mariadb::cdc::SnapshotChunk>(e))
                for (std::size_t r = 0; r < chunk->size(); ++r) {
                    std::string row;
                    dbz::append_snapshot_row(row, *chunk, r);
                    read[member(row, "id")] = row;
                }
    }
    ASSERT_EQ(changed.size(), std::size(type_rows));
    ASSERT_EQ(read.size(), std::size(type_rows));
    for (const auto& [id, image] : changed) {
        ASSERT_TRUE(read.count(id)) << id;
        const Members snap = members(read[id]);
        const Members bin = members(image);
        ASSERT_EQ(snap.size(), bin.size()) << read[id] << "\n" << image;
        for (std::size_t i = 0; i < bin.size(); ++i) {
            EXPECT_EQ(snap[i].first, bin[i].first);
            EXPECT_EQ(snap[i].second, bin[i].second) << "row " << id << ", column " << bin[i].first;
        }
    }
    // A few of them spelled out (the unit tests have the rest).
    const std::string& r2 = read["2"];
    EXPECT_EQ(member(r2, "bu"), "-1");
    EXPECT_EQ(member(r2, "iu"), "4294967295");
    EXPECT_EQ(member(r2, "d10"), "\"AlQL4/8=\"");  // 9999999999
    EXPECT_EQ(member(r2, "dn"), "19782");
    EXPECT_EQ(member(r2, "t6"), "3020399999999");
    EXPECT_EQ(member(r2, "dt3"), "1709212455123");
    EXPECT_EQ(member(r2, "dt6"), "253402300799999999");
    EXPECT_EQ(member(r2, "ts3"), "\"2024-02-29T13:14:15.120Z\"");
    EXPECT_EQ(member(r2, "ts0"), "\"2038-01-19T03:14:07Z\"");
    EXPECT_EQ(member(r2, "b1"), "true");
    EXPECT_EQ(member(r2, "b10"), "\"qwI=\"");
    EXPECT_EQ(member(r2, "b64"), "\"//////////8=\"");
    EXPECT_EQ(member(r2, "s"), "\"x,z\"");
    EXPECT_EQ(member(r2, "bn"), "\"AQAAAA==\"");
    EXPECT_EQ(member(r2, "j"), "\"{\\\"a\\\": [1, 2, {\\\"b\\\": null}]}\"");
    EXPECT_EQ(member(r2, "g"), "{\"wkb\":\"AQEAAAAAAAAAAADwPwAAAAAAAABA\",\"srid\":4326,\"extensions\":null}");
    EXPECT_EQ(member(r2, "u"), "\"123e4567-e89b-12d3-a456-426614174000\"");
    const std::string& r3 = read["3"];
    EXPECT_EQ(member(r3, "da"), "null");
    EXPECT_EQ(member(r3, "dn"), "0");  // a zero date in a NOT NULL column: the epoch
    const std::string& r4 = read["4"];
    EXPECT_EQ(member(r4, "d10"), "\"+x4=\"");
    EXPECT_EQ(member(r4, "da"), "null");
    EXPECT_EQ(member(r4, "dn"), "0");
    EXPECT_EQ(member(r4, "dt0"), "null");
    EXPECT_EQ(member(r4, "dt3"), "null");
    EXPECT_EQ(member(r4, "dt6"), "0");
    EXPECT_EQ(member(r4, "t6"), "-1");
}

}  // namespace
}  // namespace sluice::mariadb::test
