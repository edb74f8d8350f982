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
