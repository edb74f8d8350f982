// The prepared metadata cache (MARIADB_CLIENT_CACHE_METADATA): executes skip
// the column definitions the client already has, and new ones sent after an
// ALTER TABLE replace the cache. The bytes the server sends are read from its
// own Bytes_sent counter.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

std::uint64_t bytes_sent(Connection& conn) {
    ResultSet rs = conn.query("SHOW SESSION STATUS LIKE 'Bytes_sent'");
    std::uint64_t v = std::stoull(rs.next()->get<std::string>(1));
    rs.discard();
    return v;
}

// Bytes the server sent for f(), less what the counter query itself costs.
template <class F>
std::uint64_t server_bytes_for(Connection& conn, F&& f) {
    std::uint64_t a = bytes_sent(conn);
    std::uint64_t b = bytes_sent(conn);
    f();
    std::uint64_t c = bytes_sent(conn);
    return (c - b) - (b - a);
}

class MetadataCache : public ::testing::Test {
protected:
    void SetUp() override {
        conn.emplace(Connection::connect(test::admin_options()));
        conn->execute("DROP TABLE IF EXISTS speed_meta");
        std::string ddl = "CREATE TABLE speed_meta (id INT PRIMARY KEY";
        for (int i = 0; i < 50; ++i) ddl += ", column_number_" + std::to_string(i) + " INT DEFAULT " + std::to_string(i);
        conn->execute(ddl + ")");
        conn->execute("INSERT INTO speed_meta (id) VALUES (1), (2)");
    }
    void TearDown() override {
        if (conn && !conn->broken()) conn->execute("DROP TABLE IF EXISTS speed_meta");
    }
    std::optional<Connection> conn;
};

TEST_F(MetadataCache, Negotiated) {
    EXPECT_TRUE(conn->capabilities() & protocol::cap::mariadb_cache_metadata);
}

TEST_F(MetadataCache, ExecutesSkipColumnDefinitions) {
    Statement stmt = conn->prepare("SELECT * FROM speed_meta WHERE id = ?");
    ASSERT_EQ(stmt.columns().size(), 51u);
    std::uint64_t sum = 0;
    auto run = [&] {
        ResultSet rs = stmt.execute(1);
        ASSERT_EQ(rs.columns().size(), 51u);
        EXPECT_EQ(rs.columns()[50].name, "column_number_49");
        const Row* r = rs.next();
        ASSERT_NE(r, nullptr);
        sum += r->get<std::uint64_t>("column_number_49");
        rs.discard();
    };
    run();
    std::uint64_t bytes = server_bytes_for(*conn, run);
    // 51 definitions are over 51 * 40 bytes; the execute without them is a
    // column count, one binary row of 51 INTs and an OK.
    EXPECT_LT(bytes, 400u) << "the execute carried column definitions";
    EXPECT_EQ(sum, 98u);
    // A text query always carries its definitions.
    std::uint64_t text_bytes = server_bytes_for(*conn, [&] { conn->query("SELECT * FROM speed_meta WHERE id = 1").discard(); });
    EXPECT_GT(text_bytes, 51u * 40u);
}

TEST_F(MetadataCache, NewMetadataAfterAlterTableIsUsed) {
    Statement stmt = conn->prepare("SELECT * FROM speed_meta WHERE id = ?");
    {
        ResultSet rs = stmt.execute(2);
        EXPECT_EQ(rs.columns().size(), 51u);
        rs.discard();
    }
    conn->execute("ALTER TABLE speed_meta ADD COLUMN added_later VARCHAR(10) DEFAULT 'new', "
                  "MODIFY column_number_0 VARCHAR(5) DEFAULT 'zero'");
    conn->execute("UPDATE speed_meta SET column_number_0 = 'zero'");
    std::uint64_t bytes = 0;
    {
        bytes = server_bytes_for(*conn, [&] {
            ResultSet rs = stmt.execute(2);
            ASSERT_EQ(rs.columns().size(), 52u);
            EXPECT_EQ(rs.columns()[51].name, "added_later");
            EXPECT_EQ(rs.columns()[1].type, ColumnType::var_string);
            const Row* r = rs.next();
            ASSERT_NE(r, nullptr);
            EXPECT_EQ(r->get<std::string>("added_later"), "new");
            EXPECT_EQ(r->get<std::string>("column_number_0"), "zero");
            EXPECT_EQ(r->get<std::int64_t>("column_number_49"), 49);
            rs.discard();
        });
    }
    EXPECT_GT(bytes, 52u * 40u) << "the server did not resend the changed metadata";
    // The statement's cache now holds the new shape; the next execute skips it again.
    EXPECT_EQ(stmt.columns().size(), 52u);
    std::uint64_t again = server_bytes_for(*conn, [&] {
        ResultSet rs = stmt.execute(1);
        EXPECT_EQ(rs.columns().size(), 52u);
        EXPECT_EQ(rs.next()->get<std::string>("added_later"), "new");
        rs.discard();
    });
    EXPECT_LT(again, 450u);
}

TEST_F(MetadataCache, ACachedExecuteUsesTheStatementsColumnsWithoutCopying) {
    Statement stmt = conn->prepare("SELECT * FROM speed_meta WHERE id = ?");
    ResultSet rs = stmt.execute(1);
    EXPECT_EQ(&rs.columns(), &stmt.columns());  // the statement's cache itself, not a copy
    EXPECT_EQ(rs.next()->get<int>("column_number_7"), 7);
    rs.discard();
    // Without the cache the server sends the definitions; the result owns them.
    ConnectOptions o = test::admin_options();
    o.cache_metadata = false;
    Connection plain = Connection::connect(o);
    Statement s2 = plain.prepare("SELECT * FROM speed_meta WHERE id = ?");
    ResultSet r2 = s2.execute(2);
    EXPECT_NE(&r2.columns(), &s2.columns());
    EXPECT_EQ(r2.columns().size(), 51u);
    EXPECT_EQ(r2.next()->get<int>("column_number_8"), 8);
    r2.discard();
}

TEST_F(MetadataCache, AResultOutlivesItsTemporaryStatementsCachedColumns) {
    // The Statement is destroyed at the end of the full expression, before
    // the rows are read; the result keeps the cached columns alive.
    ResultSet rs = conn->prepare("SELECT * FROM speed_meta WHERE id = ?").execute(2);
    ASSERT_EQ(rs.columns().size(), 51u);
    EXPECT_EQ(rs.columns()[50].name, "column_number_49");
    const Row* r = rs.next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->get<int>("column_number_49"), 49);
    EXPECT_EQ(r->columns()[1].name, "column_number_0");
    EXPECT_EQ(rs.next(), nullptr);
    EXPECT_EQ(conn->query("SELECT 4").next()->get<int>(0), 4);
}

TEST_F(MetadataCache, ResultsOfTheOldShapeKeepItWhenTheCacheIsReplaced) {
    Statement stmt = conn->prepare("SELECT * FROM speed_meta WHERE id = ?");
    std::optional<Statement> moved;
    moved.emplace(std::move(stmt));  // the moved-from statement shares the cache
    EXPECT_EQ(stmt.columns().size(), 51u);
    conn->execute("ALTER TABLE speed_meta ADD COLUMN added_later INT DEFAULT 5");
    ResultSet rs = moved->execute(1);  // new metadata: a new cache, the old one stays with `stmt`
    EXPECT_EQ(rs.columns().size(), 52u);
    EXPECT_EQ(moved->columns().size(), 52u);
    EXPECT_EQ(stmt.columns().size(), 51u);
    EXPECT_EQ(rs.next()->get<int>("added_later"), 5);
    rs.discard();
}

}  // namespace
}  // namespace sluice::mariadb
