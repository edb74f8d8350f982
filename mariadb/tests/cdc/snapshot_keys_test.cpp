// The snapshot reader's tables and primary keys, read with SHOW (not
// information_schema), against the shared private MariaDB (the `servers`
// fixture; tables of database cdc_snapkeys).
#include <gtest/gtest.h>

#include <algorithm>

#include "../../src/cdc/snapshot_reader.hpp"
#include "cdc_support.hpp"
#include "sluice/mariadb/cdc/change_stream.hpp"

namespace sluice::mariadb::test {
namespace {

class SnapshotKeys : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        Connection c = Connection::connect(admin_options());
        c.execute("CREATE DATABASE IF NOT EXISTS cdc_snapkeys");
    }
    void SetUp() override { conn_.emplace(Connection::connect(admin_options())); }
    Connection& sql() { return *conn_; }
    std::optional<Connection> conn_;
};

using Keys = std::vector<std::string>;

TEST_F(SnapshotKeys, PrimaryKeysInKeyOrderAndNoneWithoutOne) {
    sql().execute("DROP TABLE IF EXISTS cdc_snapkeys.comp, cdc_snapkeys.nopk, cdc_snapkeys.uniq, cdc_snapkeys.`we``ird`");
    // Declared in another order than the columns: the key's order counts.
    sql().execute("CREATE TABLE cdc_snapkeys.comp (a INT, b VARCHAR(5), c INT, PRIMARY KEY (b, c, a))");
    sql().execute("CREATE TABLE cdc_snapkeys.nopk (a INT, b INT, KEY (a))");
    // InnoDB clusters on this unique key, but it is not the PRIMARY one.
    sql().execute("CREATE TABLE cdc_snapkeys.uniq (a INT NOT NULL, UNIQUE KEY (a))");
    sql().execute("CREATE TABLE cdc_snapkeys.`we``ird` (`co``l` INT PRIMARY KEY, x INT)");
    using mariadb::cdc::detail::primary_key_of;
    EXPECT_EQ(primary_key_of(sql(), "cdc_snapkeys", "comp"), (Keys{"b", "c", "a"}));
    EXPECT_EQ(primary_key_of(sql(), "cdc_snapkeys", "nopk"), Keys{});
    EXPECT_EQ(primary_key_of(sql(), "cdc_snapkeys", "uniq"), Keys{});
    EXPECT_EQ(primary_key_of(sql(), "cdc_snapkeys", "we`ird"), Keys{"co`l"});
    try {
        primary_key_of(sql(), "cdc_snapkeys", "missing");
        ADD_FAILURE() << "no error for a missing table";
    } catch (const Error& e) {
        EXPECT_EQ(e.server_code(), 1146) << e.what();
    }
}

// A snapshot of a composite-key table comes in key order (b, a), which is
// not the insertion order nor the column order; a table without a primary
// key comes whole; the tables in name order; a table the filter leaves out
// is not read.
TEST_F(SnapshotKeys, ASnapshotReadsCompositeKeysInKeyOrderAndTablesWithoutOne) {
    sql().execute("DROP TABLE IF EXISTS cdc_snapkeys.s_comp, cdc_snapkeys.s_nopk, cdc_snapkeys.s_other");
    sql().execute("CREATE TABLE cdc_snapkeys.s_comp (a INT, b VARCHAR(5), PRIMARY KEY (b, a))");
    sql().execute("CREATE TABLE cdc_snapkeys.s_nopk (a INT, b INT)");
    sql().execute("CREATE TABLE cdc_snapkeys.s_other (a INT PRIMARY KEY)");
    sql().execute("INSERT INTO cdc_snapkeys.s_comp VALUES (1,'y'),(2,'x'),(3,'x'),(1,'x'),(0,'z')");
    sql().execute("INSERT INTO cdc_snapkeys.s_nopk VALUES (3,30),(1,10),(2,20),(1,10)");
    sql().execute("INSERT INTO cdc_snapkeys.s_other VALUES (1)");

    mariadb::cdc::StreamOptions so;
    so.start = mariadb::cdc::StartAt::snapshot;
    so.tables = mariadb::cdc::TableFilter::parse("cdc_snapkeys.s_nopk,cdc_snapkeys.s_comp");
    so.until_end = true;
    so.snapshot_chunk_rows = 2;
    mariadb::cdc::ChangeStream cs = mariadb::cdc::ChangeStream::open(admin_options(), so);
    std::vector<std::string> tables;
    std::vector<std::string> comp;  // "a:b" in snapshot order
    std::vector<std::string> nopk;
    bool done = false;
    while (const mariadb::cdc::ChangeEvent* e = cs.next()) {
        if (std::holds_alternative<mariadb::cdc::SnapshotDone>(*e)) done = true;
        const auto* chunk = std::get_if<mariadb::cdc::SnapshotChunk>(e);
        if (!chunk) continue;
        EXPECT_LE(chunk->size(), 2U);
        if (tables.empty() || tables.back() != chunk->table) tables.push_back(chunk->table);
        for (std::size_t r = 0; r < chunk->size(); ++r) {
            const std::string row = chunk->field(r, 0).get<std::string>() + ":" + chunk->field(r, 1).get<std::string>();
            (chunk->table == "s_comp" ? comp : nopk).push_back(row);
        }
    }
    EXPECT_TRUE(done);
    EXPECT_EQ(tables, (std::vector<std::string>{"s_comp", "s_nopk"}));
    EXPECT_EQ(comp, (std::vector<std::string>{"1:x", "2:x", "3:x", "1:y", "0:z"}));
    std::sort(nopk.begin(), nopk.end());
    EXPECT_EQ(nopk, (std::vector<std::string>{"1:10", "1:10", "2:20", "3:30"}));
}

// TIMESTAMP values of a snapshot are in UTC, as the binlog's are, whatever
// time zone the connection options set (here +05:00 by an init command).
TEST_F(SnapshotKeys, ASnapshotReadsTimestampsInUtcWhateverTheSessionTimeZone) {
    sql().execute("DROP TABLE IF EXISTS cdc_snapkeys.s_tz");
    sql().execute("CREATE TABLE cdc_snapkeys.s_tz (id INT PRIMARY KEY, ts TIMESTAMP(3) NULL)");
    sql().execute("SET time_zone = '+00:00'");
    sql().execute("INSERT INTO cdc_snapkeys.s_tz VALUES (1, '2024-02-29 13:14:15.120')");
    ConnectOptions options = admin_options();
    options.init_commands.push_back("SET time_zone = '+05:00'");
    mariadb::cdc::StreamOptions so;
    so.start = mariadb::cdc::StartAt::snapshot;
    so.tables = mariadb::cdc::TableFilter::parse("cdc_snapkeys.s_tz");
    so.until_end = true;
    mariadb::cdc::ChangeStream cs = mariadb::cdc::ChangeStream::open(options, so);
    std::vector<std::string> seen;
    while (const mariadb::cdc::ChangeEvent* e = cs.next())
        if (const auto* chunk = std::get_if<mariadb::cdc::SnapshotChunk>(e))
            for (std::size_t r = 0; r < chunk->size(); ++r) seen.push_back(chunk->field(r, 1).to_string());
    EXPECT_EQ(seen, std::vector<std::string>{"2024-02-29 13:14:15.120"});
}

}  // namespace
}  // namespace sluice::mariadb::test
