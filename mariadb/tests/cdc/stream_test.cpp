// The CDC CLI and ChangeStream against the shared private MariaDB (the
// `servers` fixture): every test works in its own tables of database
// cdc_stream and reads the binlog from the position before its workload,
// so other test programs writing at the same time do not matter.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "cdc_support.hpp"
#include "cli_child.hpp"
#include "json_scan.hpp"
#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/cdc/ndjson.hpp"

namespace sluice::mariadb::test {
namespace {

using namespace std::chrono_literals;

class CdcStream : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        Connection c = Connection::connect(admin_options());
        c.execute("CREATE DATABASE IF NOT EXISTS cdc_stream");
    }
    void SetUp() override {
        conn_.emplace(Connection::connect(admin_options()));
        conn_->execute("SET time_zone = '+00:00'");
        start_ = binlog_pos(*conn_);
    }
    Connection& sql() { return *conn_; }
    // Drops the test's tables (left by an earlier run) and starts its binlog
    // window after that.
    void fresh(std::initializer_list<const char*> tables) {
        for (const char* t : tables) sql().execute(std::string("DROP TABLE IF EXISTS cdc_stream.") + t);
        start_ = binlog_pos(sql());
    }
    std::string url() const { return url_of(admin_options()); }
    // `cdc` from the test's start to the end of the binlog, for these tables.
    std::vector<std::string> changes(const std::string& tables, const std::string& extra = "") {
        Outcome r = run_cli("cdc " + quote_arg(url()) + " --from-gtid " + quote_arg(start_) + " --until-end --tables " +
                            quote_arg(tables) + " " + extra, true);
        EXPECT_EQ(r.status, 0) << r.out;
        return lines_of(r.out);
    }
    // The NDJSON line `sluice-mariadb --format ndjson` prints for one row.
    std::string select_line(const std::string& query) {
        Outcome r = run_cli("--format ndjson " + quote_arg(url()) + " " + quote_arg(query), true);
        EXPECT_EQ(r.status, 0) << r.out;
        auto l = lines_of(r.out);
        return l.empty() ? "" : l[0];
    }
    std::optional<Connection> conn_;
    std::string start_;
};

std::vector<std::string> changes_of(const std::string& line) { return elements(member(line, "changes")); }

TEST_F(CdcStream, InsertsUpdatesDeletesMultiRowStatementsAndAPrimaryKeyChange) {
    fresh({"basic"});
    sql().execute("CREATE TABLE cdc_stream.basic (id INT PRIMARY KEY, name VARCHAR(20))");
    sql().execute("INSERT INTO cdc_stream.basic VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    sql().execute("UPDATE cdc_stream.basic SET name = 'B' WHERE id = 2");
    sql().execute("UPDATE cdc_stream.basic SET id = 10 WHERE id = 1");
    sql().execute("DELETE FROM cdc_stream.basic WHERE id >= 3");
    // This session's last GTID: @@gtid_binlog_pos would race with the
    // other tests that write to the shared server at the same time.
    const std::string delete_gtid = scalar(sql(), "SELECT @@session.last_gtid");
    auto lines = changes("cdc_stream.basic");
    ASSERT_EQ(lines.size(), 5U);
    EXPECT_EQ(member(lines[0], "db"), "\"sluice\"");  // the statement's default database
    EXPECT_NE(member(lines[0], "ddl").find("CREATE TABLE cdc_stream.basic"), std::string::npos);
    auto ins = changes_of(lines[1]);
    ASSERT_EQ(ins.size(), 3U);
    EXPECT_EQ(ins[0], "{\"op\":\"insert\",\"db\":\"cdc_stream\",\"table\":\"basic\",\"after\":{\"id\":1,\"name\":\"a\"}}");
    EXPECT_EQ(ins[2], "{\"op\":\"insert\",\"db\":\"cdc_stream\",\"table\":\"basic\",\"after\":{\"id\":3,\"name\":\"c\"}}");
    EXPECT_EQ(changes_of(lines[2]),
              std::vector<std::string>{"{\"op\":\"update\",\"db\":\"cdc_stream\",\"table\":\"basic\",\"before\":{\"id\":2,\"name\":\"b\"},\"after\":{\"id\":2,\"name\":\"B\"}}"});
    EXPECT_EQ(changes_of(lines[3]),
              std::vector<std::string>{"{\"op\":\"update\",\"db\":\"cdc_stream\",\"table\":\"basic\",\"before\":{\"id\":1,\"name\":\"a\"},\"after\":{\"id\":10,\"name\":\"a\"}}"});
    auto del = changes_of(lines[4]);
    ASSERT_EQ(del.size(), 2U);
    EXPECT_EQ(del[0], "{\"op\":\"delete\",\"db\":\"cdc_stream\",\"table\":\"basic\",\"before\":{\"id\":3,\"name\":\"c\"}}");
    EXPECT_EQ(del[1], "{\"op\":\"delete\",\"db\":\"cdc_stream\",\"table\":\"basic\",\"before\":{\"id\":10,\"name\":\"a\"}}");
    // Every transaction line carries its GTID, the server id and the commit time.
    EXPECT_EQ(member(lines[1], "server_id"), std::to_string(std::stoul(scalar(sql(), "SELECT @@server_id"))));
    EXPECT_GT(std::stoll(member(lines[1], "ts")), 1700000000);
    EXPECT_EQ(member(lines[4], "gtid"), "\"" + delete_gtid + "\"");
}

TEST_F(CdcStream, TwoTablesInOneTransactionAndRollbacksNeverAppear) {
    fresh({"a", "b"});
    sql().execute("CREATE TABLE cdc_stream.a (id INT PRIMARY KEY)");
    sql().execute("CREATE TABLE cdc_stream.b (id INT PRIMARY KEY)");
    sql().execute("START TRANSACTION");
    sql().execute("INSERT INTO cdc_stream.a VALUES (1)");
    sql().execute("INSERT INTO cdc_stream.b VALUES (2)");
    sql().execute("COMMIT");
    sql().execute("START TRANSACTION");
    sql().execute("INSERT INTO cdc_stream.a VALUES (99)");
    sql().execute("ROLLBACK");
    sql().execute("START TRANSACTION");
    sql().execute("INSERT INTO cdc_stream.a VALUES (3)");
    sql().execute("SAVEPOINT s");
    sql().execute("INSERT INTO cdc_stream.a VALUES (98)");
    sql().execute("ROLLBACK TO SAVEPOINT s");
    sql().execute("COMMIT");
    auto lines = changes("cdc_stream.a,cdc_stream.b");
    ASSERT_EQ(lines.size(), 4U);  // two DDL, two transactions
    auto both = changes_of(lines[2]);
    ASSERT_EQ(both.size(), 2U);
    EXPECT_EQ(member(both[0], "table"), "\"a\"");
    EXPECT_EQ(member(both[1], "table"), "\"b\"");
    EXPECT_EQ(changes_of(lines[3]),
              std::vector<std::string>{"{\"op\":\"insert\",\"db\":\"cdc_stream\",\"table\":\"a\",\"after\":{\"id\":3}}"});
    // The filter: only table b.
    // Issue 32: b's DDL only (a's CREATE TABLE is another table's), then the
    // one transaction.
    auto only_b = changes("cdc_stream.b");
    ASSERT_EQ(only_b.size(), 2U);
    EXPECT_NE(only_b[0].find("\"ddl\":\"CREATE TABLE cdc_stream.b "), std::string::npos) << only_b[0];
    EXPECT_EQ(changes_of(only_b[1]).size(), 1U);
}

// Columns of every type, rows at their edges.
const char* const types_table = R"(CREATE TABLE cdc_stream.types (
  id INT PRIMARY KEY,
  ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
  i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
  f FLOAT, d DOUBLE, d65 DECIMAL(65,30), d10 DECIMAL(10,2), d0 DECIMAL(20,0),
  da DATE, t0 TIME, t6 TIME(6), t3 TIME(3), dt0 DATETIME, dt6 DATETIME(6), dt2 DATETIME(2),
  ts0 TIMESTAMP NULL, ts6 TIMESTAMP(6) NULL, y YEAR,
  b1 BIT(1), b9 BIT(9), b64 BIT(64),
  e ENUM('a','b','c'), s SET('x','y','z'),
  c CHAR(10), vc VARCHAR(300), tx TEXT, bn BINARY(8), vb VARBINARY(20), bl BLOB, lb LONGBLOB,
  j JSON, g GEOMETRY, u UUID, ip6 INET6, ip4 INET4))";

const char* const type_rows[] = {
    "(1, -128, 0, -32768, 0, -8388608, 0, -2147483648, 0, -9223372036854775808, 0,"
    " -3.40282e38, -1.7976931348623157e308, -99999999999999999999999999999999999.999999999999999999999999999999,"
    " -99999999.99, -99999999999999999999,"
    " '1000-01-01', '-838:59:59', '-838:59:59.999999', '-00:00:00.500', '1000-01-01 00:00:00', '1000-01-01 00:00:00.000001',"
    " '1000-01-01 00:00:00.01', '1970-01-01 00:00:01', '1970-01-01 00:00:01.000001', 1901,"
    " b'0', b'0', b'0', 'a', '', '', '', '', X'00', X'', X'', X'', '[]', ST_GeomFromText('POINT(0 0)'),"
    " '00000000-0000-0000-0000-000000000000', '::', '0.0.0.0')",
    "(2, 127, 255, 32767, 65535, 8388607, 16777215, 2147483647, 4294967295, 9223372036854775807, 18446744073709551615,"
    " 3.40282e38, 1.7976931348623157e308, 99999999999999999999999999999999999.999999999999999999999999999999,"
    " 99999999.99, 99999999999999999999,"
    " '9999-12-31', '838:59:59', '838:59:59.999999', '-12:34:56.789', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999',"
    " '9999-12-31 23:59:59.99', '2038-01-19 03:14:07', '2038-01-19 03:14:07.999999', 2155,"
    " b'1', b'111111111', 0xFFFFFFFFFFFFFFFF, 'c', 'x,y,z', 'abcdefghij', REPEAT('\xC3\xA9', 300), REPEAT('t', 70000),"
    " X'FFFFFFFFFFFFFFFF', X'00FF00', REPEAT(X'00FF', 1000), REPEAT('L', 100000),"
    " '{\"a\": [1, 2, {\"b\": null}], \"s\": \"\\\\u00e9\"}', ST_GeomFromText('LINESTRING(0 0, 1 1, 2 0.5)'),"
    " 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '255.255.255.255')",
    "(3, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, 1.17549435e-38, 5e-324, -0.000000000000000000000000000001, -0.01, 0,"
    " '2024-02-29', '00:00:00', '-00:00:00.000001', '100:00:00.5', '2024-02-29 12:00:00', '2024-02-29 12:00:00.5',"
    " '2024-02-29 12:00:00.5', '2024-02-29 12:00:00', '2024-02-29 12:00:00.123456', 0,"
    " b'1', b'100000000', 1, 'b', 'y', 'a  ', 'x \xF0\x9F\x98\x80 y', 'line\\nbreak \"quoted\" \\\\', X'01', X'0000', X'', X'00',"
    " '\"just a string\"', ST_GeomFromText('POLYGON((0 0, 1 0, 1 1, 0 0))'),"
    " '123e4567-e89b-12d3-a456-426614174000', '::ffff:1.2.3.4', '10.0.0.1')",
    "(4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    " NULL, NULL, NULL, NULL, NULL)",
    "(5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16777217, 0.1, 0.5, 0.5, 0, '0000-00-00', '00:00:00.000000', '-00:00:01',"
    " '-838:59:59.000', '0000-00-00 00:00:00', '2000-01-01 00:00:00.000000', '2000-01-01 00:00:00', NULL, NULL, 2000,"
    " b'0', b'1', b'1000000000000000000000000000000000000000000000000000000000000000', '', '', ' lead', 'sp ', '',"
    " X'0001', X'', X'', X'',"
    " '{}', ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 1))', 4326), '01234567-89ab-cdef-0123-456789abcdef', '2001:db8::1', '127.0.0.1')",
};

// Every present member of `image` equals the same column in `select`.
void expect_same_values(const std::string& image, const std::string& select, const std::string& what) {
    Members sel = members(select);
    for (auto& [k, v] : members(image)) {
        bool found = false;
        for (auto& [sk, sv] : sel) {
            if (sk != k) continue;
            found = true;
            EXPECT_EQ(v, sv) << what << ": column " << k;
        }
        EXPECT_TRUE(found) << what << ": CDC column " << k << " not in the SELECT";
    }
}

std::vector<std::string> keys(const std::string& image) {
    std::vector<std::string> out;
    for (auto& [k, v] : members(image)) out.push_back(k);
    return out;
}

TEST_F(CdcStream, EveryTypeAtItsEdgesPrintsAsSelectPrintsIt) {
    sql().execute("SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'");  // zero dates
    fresh({"types"});
    sql().execute(types_table);
    std::map<int, std::string> selected;
    for (std::size_t i = 0; i < std::size(type_rows); ++i) {
        sql().execute(std::string("INSERT INTO cdc_stream.types VALUES ") + type_rows[i]);
        selected[static_cast<int>(i + 1)] = select_line("SELECT * FROM cdc_stream.types WHERE id = " + std::to_string(i + 1));
    }
    const std::size_t columns = members(selected[1]).size();
    ASSERT_EQ(columns, 43U) << selected[1];
    auto lines = changes("cdc_stream.types");
    ASSERT_EQ(lines.size(), 1 + std::size(type_rows));
    for (std::size_t i = 0; i < std::size(type_rows); ++i) {
        auto c = changes_of(lines[i + 1]);
        ASSERT_EQ(c.size(), 1U);
        // Exactly the SELECT's text, column for column, in the same order.
        EXPECT_EQ(member(c[0], "after"), selected[static_cast<int>(i + 1)]) << "row " << i + 1;
    }
}

// Updates and deletes of the edge rows under each binlog_row_image: every
// logged column is printed as SELECT prints it, and the image holds what the
// mode logs.
TEST_F(CdcStream, UpdatesAndDeletesUnderFullMinimalAndNoblobImages) {
    sql().execute("SET SESSION sql_mode = 'NO_ENGINE_SUBSTITUTION'");
    fresh({"types"});
    sql().execute(types_table);
    for (const char* row : type_rows) sql().execute(std::string("INSERT INTO cdc_stream.types VALUES ") + row);
    struct Step {
        std::string mode;
        int id;
        std::string before, after;
    };
    std::vector<Step> steps;
    for (const char* mode : {"FULL", "MINIMAL", "NOBLOB"}) {
        sql().execute(std::string("SET SESSION binlog_row_image = ") + mode);
        start_ = binlog_pos(sql());
        steps.clear();
        for (int id = 1; id <= static_cast<int>(std::size(type_rows)); ++id) {
            std::string where = " WHERE id = " + std::to_string(id);
            Step s{mode, id, select_line("SELECT * FROM cdc_stream.types" + where), ""};
            sql().execute("UPDATE cdc_stream.types SET vc = CONCAT(COALESCE(vc, ''), '+'), i = COALESCE(i, 0) DIV 2" + where);
            s.after = select_line("SELECT * FROM cdc_stream.types" + where);
            steps.push_back(s);
        }
        auto lines = changes("cdc_stream.types");
        ASSERT_EQ(lines.size(), steps.size()) << mode;
        for (std::size_t k = 0; k < steps.size(); ++k) {
            auto c = changes_of(lines[k]);
            ASSERT_EQ(c.size(), 1U);
            std::string before = member(c[0], "before"), after = member(c[0], "after");
            std::string what = std::string(mode) + " update of row " + std::to_string(steps[k].id);
            expect_same_values(before, steps[k].before, what + " (before)");
            expect_same_values(after, steps[k].after, what + " (after)");
            if (std::string(mode) == "FULL") {
                EXPECT_EQ(before, steps[k].before) << what;
                EXPECT_EQ(after, steps[k].after) << what;
            } else if (std::string(mode) == "MINIMAL") {
                EXPECT_EQ(keys(before), std::vector<std::string>{"id"}) << what;  // the primary key only
                for (const std::string& key : keys(after)) EXPECT_TRUE(key == "vc" || key == "i") << what << ": " << key;
                EXPECT_NE(member(after, "vc"), "") << what;
            } else {  // NOBLOB: every column but unchanged blobs and texts
                auto k_before = keys(before);
                EXPECT_EQ(std::count(k_before.begin(), k_before.end(), "bl"), 0) << what;
                EXPECT_EQ(std::count(k_before.begin(), k_before.end(), "lb"), 0) << what;
                EXPECT_EQ(std::count(k_before.begin(), k_before.end(), "d65"), 1) << what;
            }
        }
    }
    // Deletes under MINIMAL: the key alone; under FULL: the whole row.
    start_ = binlog_pos(sql());
    sql().execute("SET SESSION binlog_row_image = MINIMAL");
    sql().execute("DELETE FROM cdc_stream.types WHERE id = 1");
    sql().execute("SET SESSION binlog_row_image = FULL");
    std::string row2 = select_line("SELECT * FROM cdc_stream.types WHERE id = 2");
    sql().execute("DELETE FROM cdc_stream.types WHERE id = 2");
    auto lines = changes("cdc_stream.types");
    ASSERT_EQ(lines.size(), 2U);
    EXPECT_EQ(member(changes_of(lines[0])[0], "before"), "{\"id\":1}");
    EXPECT_EQ(member(changes_of(lines[1])[0], "before"), row2);
}

TEST_F(CdcStream, DdlThatAddsDropsAndReordersColumnsMidStream) {
    fresh({"ddl"});
    sql().execute("CREATE TABLE cdc_stream.ddl (id INT PRIMARY KEY, a VARCHAR(5))");
    sql().execute("INSERT INTO cdc_stream.ddl VALUES (1, 'x')");
    sql().execute("ALTER TABLE cdc_stream.ddl ADD COLUMN u UUID AFTER id");
    sql().execute("INSERT INTO cdc_stream.ddl VALUES (2, '123e4567-e89b-12d3-a456-426614174000', 'y')");
    sql().execute("ALTER TABLE cdc_stream.ddl DROP COLUMN a");
    sql().execute("INSERT INTO cdc_stream.ddl VALUES (3, '00000000-0000-0000-0000-000000000001')");
    sql().execute("ALTER TABLE cdc_stream.ddl ADD COLUMN j JSON FIRST");
    sql().execute("INSERT INTO cdc_stream.ddl VALUES ('[1]', 4, NULL)");
    auto lines = changes("cdc_stream.*");
    ASSERT_EQ(lines.size(), 8U);
    EXPECT_EQ(member(lines[2], "ddl"), "\"ALTER TABLE cdc_stream.ddl ADD COLUMN u UUID AFTER id\"");
    EXPECT_EQ(member(changes_of(lines[1])[0], "after"), "{\"id\":1,\"a\":\"x\"}");
    EXPECT_EQ(member(changes_of(lines[3])[0], "after"), "{\"id\":2,\"u\":\"123e4567-e89b-12d3-a456-426614174000\",\"a\":\"y\"}");
    EXPECT_EQ(member(changes_of(lines[5])[0], "after"), "{\"id\":3,\"u\":\"00000000-0000-0000-0000-000000000001\"}");
    EXPECT_EQ(member(changes_of(lines[7])[0], "after"), "{\"j\":\"[1]\",\"id\":4,\"u\":null}");
}

TEST_F(CdcStream, CompressedEventsSwitchedOnAndOffMidStream) {
    fresh({"z"});
    sql().execute("CREATE TABLE cdc_stream.z (id INT PRIMARY KEY, t TEXT, n INT)");
    auto insert = [&](int id) {
        sql().execute("INSERT INTO cdc_stream.z VALUES (" + std::to_string(id) + ", REPEAT('abc', 500), " +
                      std::to_string(id) + ")");
        sql().execute("UPDATE cdc_stream.z SET n = n + 1000 WHERE id = " + std::to_string(id));
    };
    insert(1);
    sql().execute("SET GLOBAL log_bin_compress = ON");
    insert(2);
    sql().execute("SET GLOBAL log_bin_compress = OFF");
    insert(3);
    auto lines = changes("cdc_stream.z");
    ASSERT_EQ(lines.size(), 7U);
    for (int id = 1; id <= 3; ++id) {
        std::string expected = select_line("SELECT * FROM cdc_stream.z WHERE id = " + std::to_string(id));
        EXPECT_EQ(member(changes_of(lines[static_cast<std::size_t>(2 * id)])[0], "after"), expected) << id;
    }
}

TEST_F(CdcStream, ASeventeenMebibyteValueAndBinlogRotation) {
    fresh({"big"});
    sql().execute("CREATE TABLE cdc_stream.big (id INT PRIMARY KEY, b LONGBLOB)");
    sql().execute("INSERT INTO cdc_stream.big VALUES (1, 'before')");
    sql().execute("FLUSH BINARY LOGS");
    sql().execute("INSERT INTO cdc_stream.big VALUES (2, REPEAT(X'00FFA5', 17 * 1024 * 1024 DIV 3 + 7))");
    sql().execute("FLUSH BINARY LOGS");
    sql().execute("INSERT INTO cdc_stream.big VALUES (3, 'after')");
    auto lines = changes("cdc_stream.big");
    ASSERT_EQ(lines.size(), 4U);
    std::string big = select_line("SELECT * FROM cdc_stream.big WHERE id = 2");
    EXPECT_GT(big.size(), 17U * 1024 * 1024 * 4 / 3);
    EXPECT_EQ(member(changes_of(lines[2])[0], "after"), big);
    EXPECT_EQ(member(changes_of(lines[3])[0], "after"), "{\"id\":3,\"b\":\"YWZ0ZXI=\"}");
}

TEST_F(CdcStream, ErrorsNameTheirCause) {
    Outcome bad_url = run_cli("cdc 'mariadb://h/?bogus=1' --until-end", true);
    EXPECT_NE(bad_url.status, 0);
    EXPECT_NE(bad_url.out.find("bogus"), std::string::npos) << bad_url.out;

    ConnectOptions native = options_for("SLUICE_MARIADB_NATIVE_USER", "SLUICE_MARIADB_NATIVE_PASSWORD");
    Outcome no_privilege = run_cli("cdc " + quote_arg(url_of(native)) + " --from-now --until-end", true);
    EXPECT_NE(no_privilege.status, 0);
    EXPECT_NE(no_privilege.out.find("REPLICATION SLAVE"), std::string::npos) << no_privilege.out;

    // A GTID the server never wrote (strict mode: the replica is ahead).
    Outcome ahead = run_cli("cdc " + quote_arg(url()) + " --from-gtid 0-1-999999999 --until-end", true);
    EXPECT_NE(ahead.status, 0);
    EXPECT_NE(ahead.out.find("cannot serve this position"), std::string::npos) << ahead.out;

    // Usage errors found after the option parsing still exit 2 (issue 32).
    Outcome bad_gtid = run_cli("cdc " + quote_arg(url()) + " --from-gtid 0-x --until-end", true);
    EXPECT_EQ(bad_gtid.status, 2);
    EXPECT_NE(bad_gtid.out.find("invalid GTID"), std::string::npos) << bad_gtid.out;

    Outcome two_starts = run_cli("cdc " + quote_arg(url()) + " --from-now --from-start", true);
    EXPECT_EQ(two_starts.status, 2);
    EXPECT_NE(two_starts.out.find("excludes"), std::string::npos) << two_starts.out;
}

// Issue 32: --tables entries that name nothing are warned about (they may
// be created later), the DDL of tables not listed stays out, and a pattern
// that is no DB.TABLE is a usage error (2).
TEST_F(CdcStream, TablesThatDoNotExistAreWarnedAboutAndOtherTablesDdlStaysOut) {
    fresh({"unlisted_ddl"});
    sql().execute("CREATE TABLE cdc_stream.unlisted_ddl (id INT PRIMARY KEY)");
    sql().execute("ALTER TABLE cdc_stream.unlisted_ddl ADD c INT");
    Outcome r = run_cli("cdc " + quote_arg(url()) + " --from-gtid " + quote_arg(start_) +
                            " --until-end --tables cdc_stream.nosuch,cdc_nosuch_db.*",
                        true);
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("sluice-mariadb cdc: warning: --tables cdc_stream.nosuch: no such table (yet); its changes "
                         "are delivered once it is created\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("sluice-mariadb cdc: warning: --tables cdc_nosuch_db.*: database 'cdc_nosuch_db' does not "
                         "exist (yet)"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("\"ddl\""), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("unlisted_ddl"), std::string::npos) << r.out;
    // Listed and existing: no warning, and its DDL comes through.
    Outcome listed = run_cli("cdc " + quote_arg(url()) + " --from-gtid " + quote_arg(start_) +
                                 " --until-end --tables cdc_stream.unlisted_ddl",
                             true);
    EXPECT_EQ(listed.status, 0) << listed.out;
    EXPECT_EQ(listed.out.find("warning"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("\"ddl\":\"ALTER TABLE cdc_stream.unlisted_ddl ADD c INT\""), std::string::npos)
        << listed.out;

    Outcome bad = run_cli("cdc " + quote_arg(url()) + " --until-end --tables nosuch", true);
    EXPECT_EQ(bad.status, 2) << bad.out;
    EXPECT_NE(bad.out.find("sluice-mariadb cdc: error: invalid table pattern 'nosuch'"), std::string::npos) << bad.out;
}

// Issue 32: at start, a server that cannot be reached fails at once (the
// publisher used to retry a refused NATS for five minutes); --connect-timeout
// waits, then says so. Port 1 of 127.0.0.1 refuses.
TEST_F(CdcStream, AnUnreachableServerAtStartFailsAtOnceUnlessAskedToWait) {
    Outcome nats = run_cli("cdc " + quote_arg(url()) + " --from-now --to nats://127.0.0.1:1 --stream cdc_start", true);
    EXPECT_EQ(nats.status, 1) << nats.out;
    EXPECT_NE(nats.out.find("connecting to NATS at nats://127.0.0.1:1"), std::string::npos) << nats.out;
    EXPECT_NE(nats.out.find("(at start: not retried, a connection that never worked is not an outage; pass "
                            "--connect-timeout SECONDS to wait for a server that is still starting)"),
              std::string::npos)
        << nats.out;
    EXPECT_EQ(nats.out.find("resynchronising"), std::string::npos) << nats.out;

    Outcome patient = run_cli("cdc mariadb://u:p@127.0.0.1:1/ --until-end --connect-timeout 1", true);
    EXPECT_EQ(patient.status, 1) << patient.out;
    EXPECT_NE(patient.out.find("; retrying in 100 ms"), std::string::npos) << patient.out;
}

// The C++ API: the position after each transaction, reopened from a saved
// position, continues exactly after it.
TEST_F(CdcStream, ApiPositionsResumeExactlyAfterTheCommittedTransaction) {
    fresh({"api"});
    sql().execute("CREATE TABLE cdc_stream.api (id INT PRIMARY KEY, v DOUBLE)");
    for (int i = 1; i <= 5; ++i) sql().execute("INSERT INTO cdc_stream.api VALUES (" + std::to_string(i) + ", 0.5)");
    cdc::StreamOptions o;
    o.start = cdc::StartAt::gtid;
    o.gtid = cdc::GtidState::parse(start_);
    o.tables = cdc::TableFilter::parse("cdc_stream.api");
    o.until_end = true;
    std::vector<int> seen;
    cdc::GtidState saved;
    {
        cdc::ChangeStream s = cdc::ChangeStream::open(admin_options(), o);
        while (const cdc::ChangeEvent* e = s.next()) {
            if (const auto* t = std::get_if<cdc::Transaction>(e)) {
                t->for_each_change([&](const cdc::Change& c) {
                    EXPECT_EQ(c.op, binlog::RowsKind::write);
                    EXPECT_EQ(c.table->table, "api");
                    ASSERT_EQ(c.after.size(), 2U);
                    seen.push_back(static_cast<int>(std::get<std::int64_t>(c.after[0].value)));
                    EXPECT_EQ(std::get<double>(c.after[1].value), 0.5);
                });
                if (seen.size() == 2) {
                    saved = s.position();
                    break;
                }
            }
        }
    }
    ASSERT_EQ(seen, (std::vector<int>{1, 2}));
    o.gtid = saved;
    cdc::ChangeStream again = cdc::ChangeStream::open(admin_options(), o);
    while (const cdc::ChangeEvent* e = again.next()) {
        if (const auto* t = std::get_if<cdc::Transaction>(e)) {
            t->for_each_change([&](const cdc::Change& c) { seen.push_back(static_cast<int>(std::get<std::int64_t>(c.after[0].value))); });
        }
    }
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5}));
    EXPECT_EQ(again.connects(), 1U);
}

// KILL of the dump thread while a large transaction streams: the stream
// reconnects from the last complete transaction; every row arrives once.
TEST_F(CdcStream, ADumpConnectionKilledMidEventIsResumedWithNothingLostOrRepeated) {
    fresh({"killed"});
    sql().execute("CREATE TABLE cdc_stream.killed (id INT PRIMARY KEY, pad CHAR(200))");
    sql().execute("INSERT INTO cdc_stream.killed VALUES (0, 'first')");
    sql().execute("INSERT INTO cdc_stream.killed SELECT seq, REPEAT('p', 200) FROM seq_1_to_60000");
    sql().execute("INSERT INTO cdc_stream.killed VALUES (60001, 'last')");
    cdc::StreamOptions o;
    o.start = cdc::StartAt::gtid;
    o.gtid = cdc::GtidState::parse(start_);
    o.tables = cdc::TableFilter::parse("cdc_stream.killed");
    o.until_end = true;
    cdc::ChangeStream s = cdc::ChangeStream::open(admin_options(), o);
    std::vector<std::size_t> sizes;
    std::size_t rows = 0;
    bool killed = false;
    while (const cdc::ChangeEvent* e = s.next()) {
        const auto* t = std::get_if<cdc::Transaction>(e);
        if (!t) continue;
        std::size_t n = 0;
        t->for_each_change([&](const cdc::Change&) { ++n; });
        sizes.push_back(n);
        rows += n;
        if (!killed) {
            // The big transaction's events are on their way now.
            Connection admin = Connection::connect(admin_options());
            ResultSet rs = admin.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'");
            std::vector<std::string> ids;
            while (const Row* r = rs.next()) ids.push_back(r->get<std::string>(0));
            for (const std::string& id : ids) admin.execute("KILL CONNECTION " + id);
            killed = !ids.empty();
        }
    }
    EXPECT_TRUE(killed);
    EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 60000, 1}));
    EXPECT_EQ(rows, 60002U);
    EXPECT_EQ(s.connects(), 2U);
}

// StreamOptions::part_bytes: a 60,000-row transaction comes in consecutive
// parts of about the bound, the position moves only at the last, and a KILL
// of the dump after some parts resumes at the next part: every row once,
// in order, parts numbered without a gap.
TEST_F(CdcStream, ATransactionInPartsSurvivesAKilledDumpWithNoPartRepeated) {
    fresh({"parted"});
    sql().execute("CREATE TABLE cdc_stream.parted (id INT PRIMARY KEY, pad CHAR(200))");
    sql().execute("INSERT INTO cdc_stream.parted VALUES (0, 'first')");
    sql().execute("INSERT INTO cdc_stream.parted SELECT seq, REPEAT('p', 200) FROM seq_1_to_60000");
    sql().execute("INSERT INTO cdc_stream.parted VALUES (60001, 'last')");
    cdc::StreamOptions o;
    o.start = cdc::StartAt::gtid;
    o.gtid = cdc::GtidState::parse(start_);
    o.tables = cdc::TableFilter::parse("cdc_stream.parted");
    o.until_end = true;
    o.part_bytes = 256 * 1024;
    cdc::ChangeStream s = cdc::ChangeStream::open(admin_options(), o);
    std::vector<std::int64_t> ids;
    std::vector<std::size_t> parts_per_transaction;
    std::size_t expected_part = 1;
    std::size_t biggest_part_bytes = 0;
    bool killed = false;
    while (const cdc::ChangeEvent* e = s.next()) {
        ASSERT_FALSE(std::holds_alternative<cdc::Transaction>(*e));  // parts instead
        const auto* p = std::get_if<cdc::TransactionPart>(e);
        if (!p) continue;
        ASSERT_EQ(p->part, expected_part);
        EXPECT_FALSE(p->rolled_back);
        biggest_part_bytes = std::max(biggest_part_bytes, p->changes.bytes());
        p->changes.for_each_change([&](const cdc::Change& c) { ids.push_back(std::get<std::int64_t>(c.after[0].value)); });
        const std::string at = s.position().to_string();
        if (!p->last) {
            EXPECT_EQ(at.find(to_string(p->changes.gtid)), std::string::npos) << "position covers a part: " << at;
        }
        if (p->last) {
            parts_per_transaction.push_back(p->part);
            expected_part = 1;
        } else {
            ++expected_part;
        }
        if (!killed && p->part == 3 && !p->last) {
            Connection admin = Connection::connect(admin_options());
            ResultSet rs = admin.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'");
            std::vector<std::string> dumps;
            while (const Row* r = rs.next()) dumps.push_back(r->get<std::string>(0));
            for (const std::string& id : dumps) admin.execute("KILL CONNECTION " + id);
            killed = !dumps.empty();
        }
    }
    EXPECT_TRUE(killed);
    EXPECT_EQ(s.connects(), 2U);
    ASSERT_EQ(ids.size(), 60002U);
    for (std::size_t i = 0; i < ids.size(); ++i) ASSERT_EQ(ids[i], static_cast<std::int64_t>(i)) << "at " << i;
    ASSERT_EQ(parts_per_transaction.size(), 3U);
    EXPECT_EQ(parts_per_transaction[0], 1U);
    EXPECT_GT(parts_per_transaction[1], 20U);  // ~12 MB of row images in 256 KiB parts
    EXPECT_EQ(parts_per_transaction[2], 1U);
    // A part ends at the first Rows event that reaches the bound (at most
    // binlog_row_event_max_size over it).
    EXPECT_LT(biggest_part_bytes, o.part_bytes + 64 * 1024);
}

// SIGKILL of `cdc --out` at random moments while a writer commits: started
// again with the same command each time, the file ends up with every
// transaction exactly once, in commit order.
TEST_F(CdcStream, SigkillOfTheCliWithOutManyTimesDeliversEachTransactionOnce) {
    fresh({"kill9"});
    sql().execute("CREATE TABLE cdc_stream.kill9 (id INT PRIMARY KEY, pad VARCHAR(100))");
    const std::string file = std::string(SLUICE_OWN_SERVERS_DIR) + "/cdc-kill9-" + std::to_string(::getpid()) + ".ndjson";
    std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
    std::filesystem::remove(file);
    constexpr int transactions = 600;
    std::atomic<bool> done{false};
    std::thread writer([&] {
        Connection w = Connection::connect(admin_options());
        for (int i = 1; i <= transactions; ++i) {
            if (i % 10 == 0) {  // some multi-statement transactions
                w.execute("START TRANSACTION");
                w.execute("INSERT INTO cdc_stream.kill9 VALUES (" + std::to_string(i) + ", REPEAT('k', 100))");
                w.execute("UPDATE cdc_stream.kill9 SET pad = 'u' WHERE id = " + std::to_string(i));
                w.execute("COMMIT");
            } else {
                w.execute("INSERT INTO cdc_stream.kill9 VALUES (" + std::to_string(i) + ", REPEAT('k', 100))");
            }
            std::this_thread::sleep_for(std::chrono::microseconds(2000));
        }
        done = true;
    });
    const std::vector<std::string> args = {"cdc", url(), "--from-gtid", start_, "--tables", "cdc_stream.kill9",
                                           "--out", file, "--heartbeat", "1"};
    std::mt19937 random(12345);
    int kills = 0;
    while (!done || kills < 10) {
        pid_t pid = spawn_cli(args, "/dev/null");
        std::this_thread::sleep_for(std::chrono::milliseconds(30 + random() % 250));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFSIGNALED(status)) << "the CLI exited by itself: " << status;
        ++kills;
    }
    writer.join();
    std::vector<std::string> final_args = args;
    final_args.push_back("--until-end");
    pid_t last = spawn_cli(final_args, "/dev/null");
    int status = 0;
    ::waitpid(last, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

    std::vector<int> inserted;
    std::uint64_t last_seq = 0;
    std::size_t ddl = 0;
    for (const std::string& line : lines_of(read_file(file))) {
        std::string g = member(line, "gtid");
        std::uint64_t seq = std::stoull(g.substr(g.rfind('-') + 1));
        EXPECT_GT(seq, last_seq) << "GTIDs out of order or repeated: " << line.substr(0, 80);
        last_seq = seq;
        if (!member(line, "ddl").empty()) {
            ++ddl;
            continue;
        }
        for (const std::string& c : changes_of(line))
            if (member(c, "op") == "\"insert\"") inserted.push_back(std::stoi(member(member(c, "after"), "id")));
    }
    EXPECT_GE(kills, 10);
    EXPECT_EQ(ddl, 1U);
    ASSERT_EQ(inserted.size(), static_cast<std::size_t>(transactions));
    for (int i = 0; i < transactions; ++i) EXPECT_EQ(inserted[static_cast<std::size_t>(i)], i + 1);
    std::filesystem::remove(file);
}

// A snapshot taken while a writer updates, inserts and deletes: replaying
// the snapshot rows and then the changes after them gives the table as it
// is, and every change's before image is what the replay holds at that
// point (a change already inside the snapshot would not match it).
TEST_F(CdcStream, ASnapshotTakenWhileAWriterRunsAppearsOnceWithTheChangesAfterIt) {
    fresh({"snap"});
    sql().execute("CREATE TABLE cdc_stream.snap (id INT PRIMARY KEY, v INT, f FLOAT, t VARCHAR(20))");
    sql().execute("INSERT INTO cdc_stream.snap SELECT seq, 0, seq / 3, CONCAT('r', seq) FROM seq_1_to_5000");
    const std::string file = std::string(SLUICE_OWN_SERVERS_DIR) + "/cdc-snap-" + std::to_string(::getpid()) + ".ndjson";
    std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
    std::filesystem::remove(file);
    std::atomic<bool> stop{false};
    std::atomic<int> writes{0};
    std::thread writer([&] {
        Connection w = Connection::connect(admin_options());
        std::mt19937 random(7);
        int next_id = 5001;
        while (!stop) {
            int id = 1 + static_cast<int>(random() % 5000);
            switch (random() % 3) {
                case 0: w.execute("UPDATE cdc_stream.snap SET v = v + 1 WHERE id = " + std::to_string(id)); break;
                case 1: w.execute("INSERT INTO cdc_stream.snap VALUES (" + std::to_string(next_id++) + ", 1, 0.5, 'new')"); break;
                default: w.execute("DELETE FROM cdc_stream.snap WHERE id = " + std::to_string(id)); break;
            }
            ++writes;
        }
    });
    while (writes < 50) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const std::string command = "cdc " + quote_arg(url()) + " --snapshot --tables cdc_stream.snap --until-end --out " + quote_arg(file);
    Outcome during = run_cli(command, true);
    int writes_at_snapshot_end = writes;
    while (writes < writes_at_snapshot_end + 50) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop = true;
    writer.join();
    EXPECT_EQ(during.status, 0) << during.out;
    Outcome after = run_cli(command, true);  // resumes after the file's last transaction
    EXPECT_EQ(after.status, 0) << after.out;

    std::map<int, std::string> replay;
    bool snapshot_done = false;
    std::size_t chunks = 0, changes_applied = 0;
    int last_id = 0;
    for (const std::string& line : lines_of(read_file(file))) {
        std::string snap = member(line, "snapshot");
        if (!snap.empty()) {
            ASSERT_FALSE(snapshot_done) << "snapshot lines after its end";
            if (member(snap, "done") == "true") {
                snapshot_done = true;
                continue;
            }
            ++chunks;
            auto rows = elements(member(line, "rows"));
            EXPECT_LE(rows.size(), 1000U);
            for (const std::string& r : rows) {
                int id = std::stoi(member(r, "id"));
                EXPECT_GT(id, last_id) << "snapshot rows not in primary-key order";
                last_id = id;
                replay[id] = r;
            }
            continue;
        }
        ASSERT_TRUE(snapshot_done) << "a change before the snapshot ended";
        if (!member(line, "ddl").empty()) continue;
        for (const std::string& c : changes_of(line)) {
            std::string op = member(c, "op");
            std::string before = member(c, "before"), after_image = member(c, "after");
            if (op != "\"insert\"") {
                int id = std::stoi(member(before, "id"));
                ASSERT_TRUE(replay.count(id)) << "change of a row the replay does not have: " << c;
                EXPECT_EQ(replay[id], before) << "before image differs from the replayed row";
                replay.erase(id);
            }
            if (op != "\"delete\"") {
                int id = std::stoi(member(after_image, "id"));
                EXPECT_FALSE(replay.count(id)) << "insert of a row the snapshot already holds: " << c;
                replay[id] = after_image;
            }
            ++changes_applied;
        }
    }
    EXPECT_TRUE(snapshot_done);
    EXPECT_GE(chunks, 5U);
    EXPECT_GT(changes_applied, 0U);
    Outcome now = run_cli("--format ndjson " + quote_arg(url()) + " 'SELECT * FROM cdc_stream.snap ORDER BY id'", true);
    std::vector<std::string> expected = lines_of(now.out);
    std::vector<std::string> replayed;
    for (auto& [id, row] : replay) replayed.push_back(row);
    EXPECT_EQ(replayed.size(), expected.size());
    EXPECT_TRUE(replayed == expected) << "the replayed table differs from the table";
    std::filesystem::remove(file);
}

// --until-end stops after what the binlog held at the start even while a
// writer keeps committing (the dump alone would keep finding more).
// StreamOptions::idle_events: after this table's transaction come other
// tables' (all their bytes already arrived, so input_pending() was true when
// it was returned); next() skips them and, before it would block, returns an
// Idle event with the position past them. Without it a caller that batched
// while input was pending waited for this table's next transaction (the
// pipeline's stall, PipelineFailures.AQuietTablesLastRows...). Off by
// default: the next event is then this table's next transaction.
TEST_F(CdcStream, IdleEventsReturnBeforeBlockingAfterOtherTablesTransactions) {
    fresh({"quiet", "noisy"});
    sql().execute("CREATE TABLE cdc_stream.quiet (id INT PRIMARY KEY)");
    sql().execute("CREATE TABLE cdc_stream.noisy (id INT PRIMARY KEY)");
    const std::string start = binlog_pos(sql());
    sql().execute("INSERT INTO cdc_stream.quiet VALUES (1)");
    for (int i = 1; i <= 50; ++i) sql().execute("INSERT INTO cdc_stream.noisy VALUES (" + std::to_string(i) + ")");
    const cdc::GtidState noisy_end = cdc::GtidState::parse(scalar(sql(), "SELECT @@session.last_gtid"));
    const auto covers_noisy = [&](const cdc::GtidState& position) {
        for (const cdc::GtidPosition& g : noisy_end.gtids()) {
            const auto at = position.domain(g.domain_id);
            if (!at || at->seq_no < g.seq_no) return false;
        }
        return true;
    };
    for (const bool idle_events : {true, false}) {
        cdc::StreamOptions o;
        o.start = cdc::StartAt::gtid;
        o.gtid = cdc::GtidState::parse(start);
        o.tables = cdc::TableFilter::parse("cdc_stream.quiet");
        o.idle_events = idle_events;
        cdc::ChangeStream s = cdc::ChangeStream::open(admin_options(), o);
        const cdc::ChangeEvent* first = s.next();
        ASSERT_NE(first, nullptr);
        ASSERT_TRUE(std::holds_alternative<cdc::Transaction>(*first));
        // The next events, read on another thread until the position is past
        // the other table's transactions: Idle events (one whenever the bytes
        // that arrived are used up), each returned without waiting for this
        // table's next transaction, which comes only if the reader is not
        // done after 3 s.
        std::atomic<bool> done{false};
        std::size_t idles = 0;
        bool other_event = false;
        std::thread reader([&] {
            while (!covers_noisy(s.position())) {
                const cdc::ChangeEvent* e = s.next();
                if (e != nullptr && std::holds_alternative<cdc::Idle>(*e)) {
                    ++idles;
                    continue;
                }
                // DDL another test's set-up may log meanwhile (CREATE
                // DATABASE IF NOT EXISTS cdc_stream) is no answer either way.
                if (e != nullptr && std::holds_alternative<cdc::Ddl>(*e)) continue;
                other_event = true;
                break;
            }
            done = true;
        });
        for (int i = 0; i < 30 && !done; ++i) std::this_thread::sleep_for(100ms);
        const bool done_early = done;
        if (!done_early) sql().execute("INSERT INTO cdc_stream.quiet VALUES (" + std::to_string(idle_events ? 2 : 3) + ")");
        reader.join();
        if (idle_events) {
            EXPECT_TRUE(done_early) << "next() blocked after the other table's transactions";
            EXPECT_FALSE(other_event);
            EXPECT_GE(idles, 1U);
            EXPECT_TRUE(covers_noisy(s.position())) << s.position().to_string();
        } else {
            EXPECT_FALSE(done_early);  // it waited for quiet's next row
            EXPECT_TRUE(other_event);
            EXPECT_EQ(idles, 0U);
        }
    }
}

// And on a quiet server: with idle_events, each heartbeat the server sends
// while it has nothing comes back as an Idle (position unchanged), so a
// caller blocked in next() gets back that often (the pipeline's loop then
// finds a commit that failed meanwhile: PipelineService.ASinkLost...).
// Without idle_events a heartbeat returns nothing: next() waits for the
// table's next transaction.
TEST_F(CdcStream, IdleEventsComeWithTheHeartbeatsOfAQuietServer) {
    fresh({"hushed"});
    sql().execute("CREATE TABLE cdc_stream.hushed (id INT PRIMARY KEY)");
    int next_id = 1;
    for (const bool idle_events : {true, false}) {
        cdc::StreamOptions o;
        o.start = cdc::StartAt::now;
        o.tables = cdc::TableFilter::parse("cdc_stream.hushed");
        o.idle_events = idle_events;
        o.heartbeat = 200ms;
        cdc::ChangeStream s = cdc::ChangeStream::open(admin_options(), o);
        // Read on another thread up to an Idle or a transaction (past DDL
        // that other tests' set-up may log meanwhile); the table's next
        // transaction comes only if the reader is not done after 5 s (with
        // idle_events) or 1.5 s (without: seven heartbeats).
        std::atomic<bool> done{false};
        bool idle = false;
        std::thread reader([&] {
            for (;;) {
                const cdc::ChangeEvent* e = s.next();
                if (e == nullptr || std::holds_alternative<cdc::Transaction>(*e) ||
                    std::holds_alternative<cdc::TransactionPart>(*e))
                    break;
                if (std::holds_alternative<cdc::Idle>(*e)) {
                    idle = true;
                    break;
                }
            }
            done = true;
        });
        for (int i = 0; i < (idle_events ? 50 : 15) && !done; ++i) std::this_thread::sleep_for(100ms);
        const bool done_early = done;
        if (!done_early) sql().execute("INSERT INTO cdc_stream.hushed VALUES (" + std::to_string(next_id++) + ")");
        reader.join();
        if (idle_events) {
            EXPECT_TRUE(done_early) << "next() blocked through the heartbeats of a quiet server";
            EXPECT_TRUE(idle);
        } else {
            EXPECT_FALSE(done_early);  // it waited for the table's next row
            EXPECT_FALSE(idle);
        }
    }
}

TEST_F(CdcStream, UntilEndStopsWhileAWriterKeepsCommitting) {
    fresh({"busy"});
    sql().execute("CREATE TABLE cdc_stream.busy (id INT PRIMARY KEY)");
    for (int i = 1; i <= 200; ++i) sql().execute("INSERT INTO cdc_stream.busy VALUES (" + std::to_string(i) + ")");
    std::atomic<bool> stop{false};
    std::thread writer([&] {
        Connection w = Connection::connect(admin_options());
        for (int i = 1000; !stop; ++i) w.execute("INSERT INTO cdc_stream.busy VALUES (" + std::to_string(i) + ")");
    });
    std::string at_start = binlog_pos(sql());
    auto lines = changes("cdc_stream.busy");
    stop = true;
    writer.join();
    ASSERT_GE(lines.size(), 201U);
    // Everything up to the position read before the CLI started is there.
    std::string last = member(lines.back(), "gtid");
    std::uint64_t last_seq = std::stoull(last.substr(last.rfind('-') + 1));
    std::uint64_t start_seq = std::stoull(at_start.substr(at_start.rfind('-') + 1));
    EXPECT_GE(last_seq, start_seq);
}

// XA: the rows of XA PREPARE arrive with XA COMMIT (its GTID), never for
// XA ROLLBACK; ONE PHASE commits at once.
TEST_F(CdcStream, XaTransactionsAppearAtXaCommitAndNeverAfterXaRollback) {
    fresh({"xa"});
    sql().execute("CREATE TABLE cdc_stream.xa (id INT PRIMARY KEY)");
    sql().execute("XA START 'x1'");
    sql().execute("INSERT INTO cdc_stream.xa VALUES (1)");
    sql().execute("XA END 'x1'");
    sql().execute("XA PREPARE 'x1'");
    const std::string prepare_gtid = scalar(sql(), "SELECT @@session.last_gtid");
    sql().execute("XA COMMIT 'x1'");
    const std::string commit_gtid = scalar(sql(), "SELECT @@session.last_gtid");
    sql().execute("XA START 'x2'");
    sql().execute("INSERT INTO cdc_stream.xa VALUES (2)");
    sql().execute("XA END 'x2'");
    sql().execute("XA PREPARE 'x2'");
    sql().execute("XA ROLLBACK 'x2'");
    sql().execute("XA START 'x3'");
    sql().execute("INSERT INTO cdc_stream.xa VALUES (3)");
    sql().execute("XA END 'x3'");
    sql().execute("XA COMMIT 'x3' ONE PHASE");
    auto lines = changes("cdc_stream.xa");
    ASSERT_EQ(lines.size(), 3U);  // DDL, x1, x3
    EXPECT_EQ(changes_of(lines[1]),
              std::vector<std::string>{"{\"op\":\"insert\",\"db\":\"cdc_stream\",\"table\":\"xa\",\"after\":{\"id\":1}}"});
    EXPECT_EQ(changes_of(lines[2]),
              std::vector<std::string>{"{\"op\":\"insert\",\"db\":\"cdc_stream\",\"table\":\"xa\",\"after\":{\"id\":3}}"});
    // x1's line carries the GTID of its XA COMMIT group, not its PREPARE's.
    // The session's own GTIDs, not the server's sequence: other test
    // programs (ctest -j) write to the same server between these statements.
    EXPECT_NE(prepare_gtid, commit_gtid);
    EXPECT_EQ(member(lines[1], "gtid"), "\"" + commit_gtid + "\"");
}

}  // namespace
}  // namespace sluice::mariadb::test
