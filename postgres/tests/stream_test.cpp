// Streaming a result row by row (single-row mode).
#include <gtest/gtest.h>

#include "sluice/postgres/connection.hpp"
#include "support.hpp"

using namespace sluice::postgres;

TEST(Stream, EveryRowOnceInOrder) {
    Connection c = test::connect();
    Statement s = c.prepare("select g, g::text from generate_series(1, $1::int8) g");
    std::int64_t expected = 1;
    std::int64_t sum = 0;
    const std::uint64_t n = c.stream(s, {100000}, [&](const Row& row) {
        EXPECT_EQ(row.get<std::int64_t>(0), expected);
        sum += row.get<std::int64_t>(0);
        ++expected;
    });
    EXPECT_EQ(n, 100000u);
    EXPECT_EQ(sum, std::int64_t{100000} * 100001 / 2);
    EXPECT_EQ(c.stream(s, {0}, [](const Row&) { FAIL() << "row from an empty result"; }), 0u);
}

TEST(Stream, AnErrorMidwayKeepsItsSqlstate) {
    Connection c = test::connect();
    Statement s = c.prepare("select 10 / (5 - g) from generate_series(1, 10) g");
    int seen = 0;
    try {
        c.stream(s, {}, [&](const Row&) { ++seen; });
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "22012");
    }
    EXPECT_EQ(seen, 4);
    EXPECT_EQ(c.query("select 1").row(0).get<std::string>(0), "1");
}

TEST(Stream, AThrowingCallbackStopsTheQueryAndLeavesTheConnectionUsable) {
    Connection c = test::connect();
    // In the select list the series streams (in FROM it would be materialized first).
    Statement s = c.prepare("select generate_series(1, 100000000)");
    int seen = 0;
    EXPECT_THROW(c.stream(s, {},
                          [&](const Row&) {
                              if (++seen == 3) throw std::runtime_error("enough");
                          }),
                 std::runtime_error);
    EXPECT_EQ(seen, 3);
    EXPECT_EQ(c.query("select 7").row(0).get<std::string>(0), "7");
}

// RowStream: the same single-row mode, with the caller pulling the rows.

TEST(RowStream, PullsEveryRowOnceInOrder) {
    Connection c = test::connect();
    Statement s = c.prepare("select g, repeat('x', g::int) from generate_series(1, $1::int8) g");
    RowStream rows = c.open_stream(s, {1000});
    std::int64_t expected = 1;
    while (const Row* r = rows.next()) {
        EXPECT_EQ(r->get<std::int64_t>(0), expected);
        EXPECT_EQ(r->get<std::string_view>(1).size(), static_cast<std::size_t>(expected));
        EXPECT_EQ(r->raw(1).value(), std::string(static_cast<std::size_t>(expected), 'x'));
        ++expected;
    }
    EXPECT_EQ(expected, 1001);
    EXPECT_EQ(rows.rows(), 1000u);
    EXPECT_FALSE(rows.open());
    EXPECT_EQ(rows.next(), nullptr);
    EXPECT_EQ(c.query("select 1").row(0).get<std::string>(0), "1");
}

TEST(RowStream, NothingElseRunsWhileItIsOpen) {
    Connection c = test::connect();
    Statement s = c.prepare("select generate_series(1, 10)");
    RowStream rows = c.open_stream(s);
    ASSERT_NE(rows.next(), nullptr);
    try {
        c.execute(s);
        FAIL() << "executed while a stream was open";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_STREQ(e.what(), "executing a statement while a row stream is open on the connection");
    }
    // Closing early reads the rest: the connection is usable again.
    rows.close();
    EXPECT_FALSE(rows.open());
    EXPECT_EQ(c.execute(s).size(), 10);
}

TEST(RowStream, AnErrorMidwayKeepsItsSqlstateAndTheConnection) {
    Connection c = test::connect();
    Statement s = c.prepare("select 10 / (3 - g) from generate_series(1, 5) g");
    RowStream rows = c.open_stream(s);
    int seen = 0;
    try {
        while (rows.next() != nullptr) ++seen;
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "22012");
    }
    EXPECT_EQ(seen, 2);
    EXPECT_FALSE(rows.open());
    EXPECT_EQ(c.query("select 2").row(0).get<std::string>(0), "2");
}

TEST(RowStream, CloseWithCancelStopsALongStatement) {
    Connection c = test::connect();
    Statement s = c.prepare("select generate_series(1, 1000000000000)");
    RowStream rows = c.open_stream(s);
    ASSERT_NE(rows.next(), nullptr);
    rows.close(/*cancel=*/true);
    EXPECT_FALSE(c.in_transaction());
    EXPECT_EQ(c.query("select 3").row(0).get<std::string>(0), "3");
}

TEST(CancelRequest, StopsTheRunningStatementWith57014) {
    Connection c = test::connect();
    const CancelRequest cancel = c.cancel_request();
    Statement s = c.prepare("select generate_series(1, 1000000000000)");
    RowStream rows = c.open_stream(s);
    ASSERT_NE(rows.next(), nullptr);
    EXPECT_TRUE(cancel.send());
    try {
        while (rows.next() != nullptr) {
        }
        FAIL() << "not cancelled";
    } catch (const Error& e) {
        EXPECT_EQ(e.sqlstate(), "57014");
    }
    EXPECT_EQ(c.query("select 4").row(0).get<std::string>(0), "4");
}

TEST(Connection, InTransactionFollowsBeginAndCommit) {
    Connection c = test::connect();
    EXPECT_FALSE(c.in_transaction());
    c.run_script("BEGIN");
    EXPECT_TRUE(c.in_transaction());
    c.run_script("COMMIT");
    EXPECT_FALSE(c.in_transaction());
}
