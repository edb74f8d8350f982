// Read-only cursors: batches of COM_STMT_FETCH, other statements and
// cursors interleaved on the same connection, early close.
#include <gtest/gtest.h>

#include <optional>

#include "server_env.hpp"
#include "sluice/mariadb/cursor.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

TEST(Cursor, FetchesInBatchesOfTheGivenSize) {
    Connection conn = Connection::connect(test::admin_options());
    Statement stmt = conn.prepare("SELECT seq, CONCAT('r', seq) FROM seq_1_to_10000 WHERE seq > ?");
    Cursor cur = Cursor::open(stmt, 512, 0);
    ASSERT_EQ(cur.columns().size(), 2u);
    std::uint64_t sum = 0;
    std::size_t rows = 0;
    while (const Row* r = cur.next()) {
        sum += r->get<std::uint64_t>(0);
        if (rows == 4321) {
            EXPECT_EQ(r->get<std::string>(1), "r4322");
        }
        ++rows;
    }
    EXPECT_EQ(rows, 10000u);
    EXPECT_EQ(sum, 10000u * 10001u / 2);
    EXPECT_GE(cur.fetches(), 10000u / 512u);
    EXPECT_LE(cur.fetches(), 10000u / 512u + 2u);
    EXPECT_EQ(cur.next(), nullptr);
    // The statement is reusable, with or without a cursor.
    ResultSet rs = stmt.execute(9998);
    EXPECT_EQ(rs.next()->get<int>(0), 9999);
    rs.discard();
}

TEST(Cursor, OtherStatementsAndCursorsInterleaveWithoutLosingRows) {
    Connection conn = Connection::connect(test::admin_options());
    conn.execute("DROP TABLE IF EXISTS speed_cursor_log");
    conn.execute("CREATE TABLE speed_cursor_log (n INT)");
    Statement a = conn.prepare("SELECT seq FROM seq_1_to_1000");
    Statement b = conn.prepare("SELECT seq * 2 FROM seq_1_to_500");
    Statement log = conn.prepare("INSERT INTO speed_cursor_log VALUES (?)");
    Cursor ca = Cursor::open(a, 7);
    Cursor cb = Cursor::open(b, 13);
    std::uint64_t sa = 0, sb = 0;
    std::size_t i = 0;
    for (;;) {
        const Row* ra = ca.next();
        if (!ra) break;
        sa += ra->get<std::uint64_t>(0);
        if (i % 2 == 0) {
            if (const Row* rb = cb.next()) sb += rb->get<std::uint64_t>(0);
        }
        if (i % 100 == 0) log.execute(static_cast<int>(i)).discard();
        if (i % 250 == 0) conn.query("SELECT 1").discard();
        ++i;
    }
    EXPECT_EQ(sa, 1000u * 1001u / 2);
    EXPECT_EQ(sb, 500u * 501u);
    EXPECT_EQ(cb.next(), nullptr);
    ResultSet rs = conn.query("SELECT COUNT(*) FROM speed_cursor_log");
    EXPECT_EQ(rs.next()->get<int>(0), 10);
    rs.discard();
    conn.execute("DROP TABLE speed_cursor_log");
}

TEST(Cursor, EarlyCloseAndEmptyResults) {
    Connection conn = Connection::connect(test::admin_options());
    Statement stmt = conn.prepare("SELECT seq FROM seq_1_to_100000 WHERE seq > ?");
    Cursor cur = Cursor::open(stmt, 100, 0);
    EXPECT_NE(cur.next(), nullptr);
    cur.close();
    EXPECT_EQ(cur.next(), nullptr);
    Cursor none = Cursor::open(stmt, 100, 1000000);
    EXPECT_EQ(none.next(), nullptr);
    Cursor again = Cursor::open(stmt, 1, 99998);
    EXPECT_EQ(again.next()->get<int>(0), 99999);
    EXPECT_EQ(again.next()->get<int>(0), 100000);
    EXPECT_EQ(again.next(), nullptr);
    EXPECT_EQ(conn.query("SELECT 3").next()->get<int>(0), 3);
}

}  // namespace
}  // namespace sluice::mariadb
