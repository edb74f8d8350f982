// Read-only cursors: batches of COM_STMT_FETCH (the next one pipelined
// while a batch is walked), other statements and cursors interleaved on the
// same connection, early close, errors mid-cursor, fetch-size edge cases.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

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

std::uint64_t session_status(Connection& conn, const std::string& name) {
    ResultSet rs = conn.query("SHOW SESSION STATUS LIKE '" + name + "'");
    std::uint64_t v = std::stoull(rs.next()->get<std::string>(1));
    rs.discard();
    return v;
}

std::uint64_t scalar(Connection& conn, const std::string& sql) {
    ResultSet rs = conn.query(sql);
    std::uint64_t v = rs.next()->get<std::uint64_t>(0);
    rs.discard();
    return v;
}

// Walks a cursor of `SELECT seq FROM seq_1_to_<total>` to its end: every
// row once, in order, with as many COM_STMT_FETCH as the server counted
// and no failed command (a fetch sent after the last row would be an
// ER_STMT_HAS_NO_OPEN_CURSOR in the session's diagnostics).
void expect_complete_walk(Connection& conn, std::size_t total, std::uint32_t fetch_size,
                          std::size_t expected_fetches) {
    const std::string source = total == 0 ? "seq_1_to_10 WHERE seq > 10 AND" : "seq_1_to_" + std::to_string(total) + " WHERE";
    Statement stmt = conn.prepare("SELECT seq FROM " + source + " seq > ?");
    const std::uint64_t fetch0 = session_status(conn, "Com_stmt_fetch");
    Cursor cur = Cursor::open(stmt, fetch_size, 0);
    std::size_t rows = 0;
    while (const Row* r = cur.next()) {
        ++rows;
        ASSERT_EQ(r->get<std::uint64_t>(0), rows);
    }
    EXPECT_EQ(cur.next(), nullptr);
    EXPECT_EQ(rows, total);
    EXPECT_EQ(cur.fetches(), expected_fetches) << total << " rows in batches of " << fetch_size;
    EXPECT_EQ(scalar(conn, "SELECT @@error_count"), 0u);
    EXPECT_EQ(session_status(conn, "Com_stmt_fetch") - fetch0, cur.fetches());
}

TEST(Cursor, FetchSizeEdgeCasesSendNoFetchAfterTheLastRow) {
    Connection conn = Connection::connect(test::admin_options());
    // MariaDB reports the last row with the batch that reaches the end of
    // the result, so an exact multiple needs one more (empty) fetch.
    expect_complete_walk(conn, 99, 100, 1);    // less than one batch
    expect_complete_walk(conn, 100, 100, 2);   // exactly one batch
    expect_complete_walk(conn, 101, 100, 2);   // one batch and one row
    expect_complete_walk(conn, 1000, 100, 11);
    expect_complete_walk(conn, 5, 1, 6);
    // No rows at all: the server still opens a cursor; its first fetch
    // says there is nothing.
    expect_complete_walk(conn, 0, 100, 1);
}

TEST(Cursor, EarlyCloseWithAFetchInFlightKeepsTheConnectionInStep) {
    Connection conn = Connection::connect(test::admin_options());
    Statement stmt = conn.prepare("SELECT seq FROM seq_1_to_100000 WHERE seq > ?");
    Cursor cur = Cursor::open(stmt, 10, 0);
    for (std::uint64_t i = 1; i <= 15; ++i) ASSERT_EQ(cur.next()->get<std::uint64_t>(0), i);
    cur.close();  // batch 2 is current, batch 3 in flight
    EXPECT_EQ(cur.next(), nullptr);
    EXPECT_EQ(scalar(conn, "SELECT 3"), 3u);
    // The server cursor is gone: the statement runs again, with or without one.
    ResultSet rs = stmt.execute(99998);
    EXPECT_EQ(rs.next()->get<std::uint64_t>(0), 99999u);
    rs.discard();
    Cursor again = Cursor::open(stmt, 10, 99995);
    std::uint64_t sum = 0;
    while (const Row* r = again.next()) sum += r->get<std::uint64_t>(0);
    EXPECT_EQ(sum, 99996u + 99997u + 99998u + 99999u + 100000u);
}

TEST(Cursor, DestroyedWithAFetchInFlightThenOtherStatements) {
    Connection conn = Connection::connect(test::admin_options());
    {
        Statement stmt = conn.prepare("SELECT seq FROM seq_1_to_1000");
        Cursor cur = Cursor::open(stmt, 50);
        EXPECT_EQ(cur.next()->get<int>(0), 1);
    }  // cursor then statement gone, batch 2's reply unread
    EXPECT_EQ(scalar(conn, "SELECT 42"), 42u);
    Statement other = conn.prepare("SELECT ? + 1");
    ResultSet rs = other.execute(6);
    EXPECT_EQ(rs.next()->get<int>(0), 7);
    rs.discard();
    // Moving a cursor keeps its pending fetch attached to it.
    Statement s2 = conn.prepare("SELECT seq FROM seq_1_to_30");
    std::optional<Cursor> moved;
    {
        Cursor c = Cursor::open(s2, 4);
        EXPECT_EQ(c.next()->get<int>(0), 1);
        moved.emplace(std::move(c));
    }
    EXPECT_EQ(scalar(conn, "SELECT 8"), 8u);
    std::uint64_t sum = 1;
    while (const Row* r = moved->next()) sum += r->get<std::uint64_t>(0);
    EXPECT_EQ(sum, 30u * 31u / 2);
}

TEST(Cursor, ErrorOfAFetchReadByAnotherCommandIsThrownWhenTheCursorGetsThere) {
    Connection conn = Connection::connect(test::admin_options());
    Statement stmt = conn.prepare("SELECT seq FROM seq_1_to_1000 WHERE seq > ?");
    Cursor cur = Cursor::open(stmt, 10, 0);
    std::vector<std::uint64_t> seen;
    for (int i = 0; i < 10; ++i) seen.push_back(cur.next()->get<std::uint64_t>(0));
    // Another execute of the statement closes its cursor on the server; the
    // reply of the fetch already in flight (rows 11-20) is kept.
    stmt.execute(995).discard();
    seen.push_back(cur.next()->get<std::uint64_t>(0));  // row 11; the fetch for rows 21-30 is sent
    // This query reads that fetch's reply first: ER_STMT_HAS_NO_OPEN_CURSOR,
    // which belongs to the cursor, not to the query.
    EXPECT_EQ(scalar(conn, "SELECT 5"), 5u);
    std::optional<Error> failure;
    try {
        while (const Row* r = cur.next()) seen.push_back(r->get<std::uint64_t>(0));
    } catch (const Error& e) {
        failure = e;
    }
    ASSERT_TRUE(failure.has_value());
    EXPECT_EQ(failure->kind(), ErrorKind::server);
    EXPECT_EQ(failure->server_code(), 1421) << failure->what();  // ER_STMT_HAS_NO_OPEN_CURSOR
    ASSERT_EQ(seen.size(), 20u);
    for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
    EXPECT_EQ(cur.next(), nullptr);
    EXPECT_FALSE(conn.broken());
    EXPECT_EQ(scalar(conn, "SELECT 6"), 6u);
}

TEST(Cursor, ErrorOfTheCursorsOwnFetchLeavesTheConnectionUsable) {
    Connection conn = Connection::connect(test::admin_options());
    Statement stmt = conn.prepare("SELECT seq FROM seq_1_to_1000 WHERE seq > ?");
    Cursor cur = Cursor::open(stmt, 10, 0);
    for (int i = 0; i < 10; ++i) cur.next();
    stmt.execute(995).discard();  // cursor closed on the server; rows 11-20 were already in flight
    for (int i = 0; i < 10; ++i) ASSERT_EQ(cur.next()->get<int>(0), 11 + i);
    EXPECT_EQ(test::kind_of([&] { cur.next(); }), ErrorKind::server);
    EXPECT_EQ(cur.next(), nullptr);
    cur.close();
    EXPECT_EQ(scalar(conn, "SELECT 9"), 9u);
}

// Compressed frames are numbered per command; the pipelined fetch's reply,
// read behind the interleaved queries, starts its own frame numbering.
TEST(Cursor, CompressedConnectionPipelinesFetchesBetweenOtherQueries) {
    ConnectOptions o = test::admin_options();
    o.compress = true;
    o.compress_threshold = 0;
    Connection conn = Connection::connect(o);
    ASSERT_TRUE(conn.is_compressed());
    Statement stmt = conn.prepare("SELECT seq FROM seq_1_to_1000");
    Cursor cur = Cursor::open(stmt, 64);
    std::uint64_t sum = 0;
    std::size_t rows = 0;
    while (const Row* r = cur.next()) {
        sum += r->get<std::uint64_t>(0);
        if (++rows % 100 == 0) {
            EXPECT_EQ(scalar(conn, "SELECT 2"), 2u);
        }
    }
    EXPECT_EQ(sum, 1000u * 1001u / 2);
    EXPECT_EQ(cur.fetches(), 16u);
}

}  // namespace
}  // namespace sluice::mariadb
