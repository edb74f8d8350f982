// Every column type at its boundaries, written through the text protocol
// (SQL literals) and the binary protocol (typed parameters), read back
// through both: all four paths must give the same C++ values.
#include <gtest/gtest.h>

#include <limits>
#include <numeric>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

struct Boundary {
    std::int8_t ti;
    std::uint8_t tu;
    std::int16_t si;
    std::uint16_t su;
    std::int32_t mi;
    std::uint32_t mu;
    std::int32_t i;
    std::uint32_t iu;
    std::int64_t bi;
    std::uint64_t bu;
    float f;
    double d;
    Decimal dec0;
    Decimal dec30;
    Date dt;
    Time tm;
    DateTime dtm;
    DateTime ts;
    std::uint16_t yr;
    bool b1;
    std::uint64_t b64;
    std::string e;
    std::string st;
    std::string vc;
    std::string tx;
    std::vector<std::uint8_t> bl;
    std::string js;
};

const std::string nines65(65, '9');
const std::string nines_35_30 = std::string(35, '9') + "." + std::string(30, '9');

Boundary min_row() {
    return Boundary{-128, 0, -32768, 0, -8388608, 0, std::numeric_limits<std::int32_t>::min(), 0,
                    std::numeric_limits<std::int64_t>::min(), 0, -3.40282e38f, -1.7976931348623157e308,
                    Decimal::from_string("-" + nines65), Decimal::from_string("-" + nines_35_30),
                    Date{0, 0, 0}, Time{true, 838, 59, 59, 999999}, DateTime{}, DateTime{1970, 1, 1, 0, 0, 1, 0},
                    1901, false, 0, "a", "", "", "", {}, "[]"};
}

std::vector<std::uint8_t> all_bytes() {
    std::vector<std::uint8_t> b(256);
    std::iota(b.begin(), b.end(), std::uint8_t{0});
    return b;
}

Boundary max_row() {
    return Boundary{127, 255, 32767, 65535, 8388607, 16777215, std::numeric_limits<std::int32_t>::max(),
                    std::numeric_limits<std::uint32_t>::max(), std::numeric_limits<std::int64_t>::max(),
                    std::numeric_limits<std::uint64_t>::max(), 3.40282e38f, 1.7976931348623157e308,
                    Decimal::from_string(nines65), Decimal::from_string(nines_35_30), Date{9999, 12, 31},
                    Time{false, 838, 59, 59, 999999}, DateTime{9999, 12, 31, 23, 59, 59, 999999},
                    DateTime{2038, 1, 19, 3, 14, 7, 999999}, 2155, true, std::numeric_limits<std::uint64_t>::max(),
                    "c", "x,y,z", "h\xC3\xA9llo \xF0\x9F\x90\x9F", "multi\nline 'quoted' \\ text", all_bytes(),
                    "{\"k\": [1, 2.5, \"x\"]}"};
}

constexpr const char* columns_sql =
    "ti, tu, si, su, mi, mu, i, iu, bi, bu, f, d, dec0, dec30, dt, tm, dtm, ts, yr, b1, b64, e, st, vc, tx, bl, js";

const char* min_literals =
    "-128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0, -3.40282e38, "
    "-1.7976931348623157e308, "
    "-99999999999999999999999999999999999999999999999999999999999999999, "
    "-99999999999999999999999999999999999.999999999999999999999999999999, "
    "'0000-00-00', '-838:59:59.999999', '0000-00-00 00:00:00', '1970-01-01 00:00:01', 1901, b'0', 0, "
    "'a', '', '', '', X'', '[]'";

std::string max_literals() {
    std::string hex;
    for (int b = 0; b < 256; ++b) {
        char buf[3];
        std::snprintf(buf, sizeof buf, "%02X", b);
        hex += buf;
    }
    return "127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, "
           "18446744073709551615, 3.40282e38, 1.7976931348623157e308, " +
           nines65 + ", " + nines_35_30 +
           ", '9999-12-31', '838:59:59.999999', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999', "
           "2155, b'1', 18446744073709551615, 'c', 'x,y,z', 'h\xC3\xA9llo \xF0\x9F\x90\x9F', "
           "'multi\\nline \\'quoted\\' \\\\ text', X'" +
           hex + "', '{\"k\": [1, 2.5, \"x\"]}'";
}

class Types : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override {
        c_.emplace(Connection::connect(test::admin_options()));
        c_->execute("SET SESSION sql_mode = '', time_zone = '+00:00'");
        c_->execute(
            "CREATE TEMPORARY TABLE types_rt (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, "
            "su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, "
            "bu BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec0 DECIMAL(65,0), dec30 DECIMAL(65,30), dt DATE, "
            "tm TIME(6), dtm DATETIME(6), ts TIMESTAMP(6) NULL, yr YEAR, b1 BIT(1), b64 BIT(64), "
            "e ENUM('a','b','c'), st SET('x','y','z'), vc VARCHAR(100), tx TEXT, bl BLOB, js JSON, n INT NULL)");
        // Rows 1 and 2 through SQL text, 3 and 4 through typed parameters.
        c_->execute(std::string("INSERT INTO types_rt (id, ") + columns_sql + ") VALUES (1, " + min_literals + ")");
        c_->execute(std::string("INSERT INTO types_rt (id, ") + columns_sql + ") VALUES (2, " + max_literals() + ")");
        Statement ins = c_->prepare(std::string("INSERT INTO types_rt (id, ") + columns_sql +
                                    ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                    "?, ?, ?, ?, ?, ?, ?)");
        ASSERT_EQ(ins.param_count(), 28u);
        for (auto [id, b] : {std::pair{3, min_row()}, std::pair{4, max_row()}}) {
            OkInfo ok;
            ResultSet rs = ins.execute(id, b.ti, b.tu, b.si, b.su, b.mi, b.mu, b.i, b.iu, b.bi, b.bu, b.f, b.d,
                                       b.dec0, b.dec30, b.dt, b.tm, b.dtm, b.ts, b.yr, b.b1, b.b64, b.e, b.st, b.vc,
                                       b.tx, b.bl, b.js);
            EXPECT_EQ(rs.ok().affected_rows, 1u);
            EXPECT_EQ(rs.ok().warnings, 0) << "row " << id;
        }
    }

    // Runs SELECT through the protocol under test.
    ResultSet select(const std::string& sql) {
        if (!GetParam()) return c_->query(sql);
        stmts_.push_back(c_->prepare(sql));
        return stmts_.back().execute();
    }

    static void expect_row(const Row& r, const Boundary& b, int id) {
        SCOPED_TRACE("row " + std::to_string(id));
        EXPECT_EQ(r.get<int>("id"), id);
        EXPECT_EQ(r.get<std::int8_t>("ti"), b.ti);
        EXPECT_EQ(r.get<std::uint8_t>("tu"), b.tu);
        EXPECT_EQ(r.get<std::int16_t>("si"), b.si);
        EXPECT_EQ(r.get<std::uint16_t>("su"), b.su);
        EXPECT_EQ(r.get<std::int32_t>("mi"), b.mi);
        EXPECT_EQ(r.get<std::uint32_t>("mu"), b.mu);
        EXPECT_EQ(r.get<std::int32_t>("i"), b.i);
        EXPECT_EQ(r.get<std::uint32_t>("iu"), b.iu);
        EXPECT_EQ(r.get<std::int64_t>("bi"), b.bi);
        EXPECT_EQ(r.get<std::uint64_t>("bu"), b.bu);
        EXPECT_EQ(r.get<float>("f"), b.f);
        EXPECT_EQ(r.get<double>("d"), b.d);
        EXPECT_EQ(r.get<Decimal>("dec0"), b.dec0);
        EXPECT_EQ(r.get<Decimal>("dec30"), b.dec30);
        EXPECT_EQ(r.get<Date>("dt"), b.dt);
        EXPECT_EQ(r.get<Time>("tm"), b.tm);
        EXPECT_EQ(r.get<DateTime>("dtm"), b.dtm);
        EXPECT_EQ(r.get<DateTime>("ts"), b.ts);
        EXPECT_EQ(r.get<std::uint16_t>("yr"), b.yr);
        EXPECT_EQ(r.get<bool>("b1"), b.b1);
        EXPECT_EQ(r.get<std::uint64_t>("b64"), b.b64);
        EXPECT_EQ(r.get<std::string_view>("e"), b.e);
        EXPECT_EQ(r.get<std::string_view>("st"), b.st);
        EXPECT_EQ(r.get<std::string_view>("vc"), b.vc);
        EXPECT_EQ(r.get<std::string_view>("tx"), b.tx);
        auto bl = r.get<std::span<const std::uint8_t>>("bl");
        EXPECT_EQ(std::vector<std::uint8_t>(bl.begin(), bl.end()), b.bl);
        EXPECT_EQ(r.get<std::string_view>("js"), b.js);
        EXPECT_EQ(r.get<std::optional<std::int64_t>>("n"), std::nullopt);
        EXPECT_EQ(r.get<std::optional<std::string_view>>("vc"), std::optional<std::string_view>(b.vc));
    }

    std::optional<Connection> c_;
    std::vector<Statement> stmts_;
};

TEST_P(Types, BoundariesRoundTripThroughBothWritePaths) {
    ResultSet rs = select("SELECT * FROM types_rt ORDER BY id");
    const Boundary lo = min_row(), hi = max_row();
    int id = 0;
    for (const Row& r : rs) {
        ++id;
        expect_row(r, (id % 2) ? lo : hi, id);
    }
    EXPECT_EQ(id, 4);
}

TEST_P(Types, MetadataNamesTheTypes) {
    ResultSet rs = select("SELECT bu, e, st, js, bl, tx, dec30, tm FROM types_rt LIMIT 1");
    const auto& cols = rs.columns();
    ASSERT_EQ(cols.size(), 8u);
    EXPECT_EQ(cols[0].type_name(), "BIGINT UNSIGNED");
    EXPECT_TRUE(cols[1].is_enum());
    EXPECT_TRUE(cols[2].is_set());
    EXPECT_TRUE(cols[3].is_json()) << cols[3].extended_format;
    EXPECT_TRUE(cols[4].is_binary());
    EXPECT_FALSE(cols[5].is_binary());
    EXPECT_EQ(cols[6].decimals, 30);
    EXPECT_EQ(cols[7].decimals, 6);
    rs.discard();
}

TEST_P(Types, ReadingIntoATypeThatDoesNotFitIsAConversionError) {
    ResultSet rs = select("SELECT bu, si, dec30, d, tm, dtm FROM types_rt WHERE id = 4");
    const Row* r = rs.next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(test::kind_of([&] { r->get<std::int64_t>("bu"); }), ErrorKind::conversion);
    EXPECT_EQ(test::kind_of([&] { r->get<std::int8_t>("si"); }), ErrorKind::conversion);
    EXPECT_EQ(test::kind_of([&] { r->get<std::int64_t>("dec30"); }), ErrorKind::conversion);
    EXPECT_EQ(test::kind_of([&] { r->get<float>("d"); }), ErrorKind::conversion);
    EXPECT_EQ(test::kind_of([&] { r->get<DateTime>("tm"); }), ErrorKind::conversion);
    EXPECT_EQ(test::kind_of([&] { r->get<Date>("dtm"); }), ErrorKind::conversion);
    EXPECT_EQ(test::kind_of([&] { r->get<int>("nope"); }), ErrorKind::usage);
    rs.discard();
    EXPECT_FALSE(c_->broken());
}

TEST_P(Types, GeometryIsBytesAndEqualInBothProtocols) {
    ResultSet rs = select("SELECT ST_GeomFromText('POINT(1 2)') AS g, ST_AsText(ST_GeomFromText('POINT(1 2)')) AS t");
    const Row* r = rs.next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->columns()[0].type, ColumnType::geometry);
    auto g = r->get<std::span<const std::uint8_t>>("g");
    ASSERT_EQ(g.size(), 25u);  // 4-byte SRID + 21-byte WKB point
    EXPECT_EQ(g[4], 1);        // little-endian WKB
    EXPECT_EQ(g[5], 1);        // type 1: point
    EXPECT_EQ(r->get<std::string_view>("t"), "POINT(1 2)");
    rs.discard();
}

TEST_P(Types, TimesBeyondADayAndNegativeFractions) {
    ResultSet rs = select("SELECT CAST('-00:00:00.000001' AS TIME(6)), CAST('100:00:00.5' AS TIME(1)), "
                          "CAST('-25:30:00' AS TIME)");
    const Row* r = rs.next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->get<Time>(0), (Time{true, 0, 0, 0, 1}));
    EXPECT_EQ(r->get<Time>(1), (Time{false, 100, 0, 0, 500000}));
    EXPECT_EQ(r->get<std::string>(1), "100:00:00.5");
    EXPECT_EQ(r->get<Time>(2), (Time{true, 25, 30, 0, 0}));
    rs.discard();
}

INSTANTIATE_TEST_SUITE_P(Protocol, Types, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Binary" : "Text"; });

// A value larger than one 16 MiB packet, written as long data and as one
// huge execute packet, read through both protocols.
TEST(LargeValues, SeventeenMebibytesRoundTripBothWaysAndBothProtocols) {
    auto o = test::admin_options();
    Connection c = Connection::connect(o);
    o.long_data_threshold = std::size_t{1} << 30;  // no long data: one packet > 16 MiB
    Connection single = Connection::connect(o);
    c.execute("CREATE TABLE IF NOT EXISTS large_values (id INT PRIMARY KEY, v LONGBLOB)");
    c.execute("DELETE FROM large_values");
    std::vector<std::uint8_t> big((17u << 20) + 3);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 2654435761u >> 24);
    c.prepare("INSERT INTO large_values VALUES (?, ?)").execute(1, big);
    single.prepare("INSERT INTO large_values VALUES (?, ?)").execute(2, big);
    for (bool binary : {false, true}) {
        SCOPED_TRACE(binary ? "binary" : "text");
        std::optional<Statement> stmt;
        ResultSet rs = binary ? (stmt.emplace(c.prepare("SELECT id, v FROM large_values ORDER BY id")), stmt->execute())
                              : c.query("SELECT id, v FROM large_values ORDER BY id");
        int n = 0;
        for (const Row& r : rs) {
            ++n;
            auto v = r.get<std::span<const std::uint8_t>>("v");
            ASSERT_EQ(v.size(), big.size());
            EXPECT_TRUE(std::equal(v.begin(), v.end(), big.begin())) << "row " << r.get<int>("id");
        }
        EXPECT_EQ(n, 2);
    }
    c.execute("DROP TABLE large_values");
}

}  // namespace
}  // namespace sluice::mariadb
