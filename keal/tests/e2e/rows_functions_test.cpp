// Set-returning functions in PostgreSQL: RETURNS TABLE(...), value per call
// (a LIMIT stops the generator before it reaches a later raise), locals and
// loop counters kept across calls in the frame, texts made per row, NULL
// columns, `return` ending the rows, a query loop inside, runtime errors
// with the Keal line, and IMMUTABLE PARALLEL SAFE for pure ones.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

using ::testing::HasSubstr;

class RowsFunctions : public ::testing::Test {
protected:
    void SetUp() override { KealDatabase::get().deploy("rows.keal"); }
    PgConnection& db() { return KealDatabase::get().sql(); }
};

TEST_F(RowsFunctions, YieldsEveryRowInOrderWithNullColumns) {
    EXPECT_EQ(db().scalar("SELECT string_agg(i || ':' || sq || ':' || coalesce(label, '-'), ' ' ORDER BY i) FROM squares(5, NULL)"),
              "1:1:- 2:4:even 3:9:- 4:16:even 5:25:-");
    EXPECT_EQ(db().scalar("SELECT string_agg(coalesce(label, '-'), ' ') FROM squares(4, 'x')"), "- x - x");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM squares(0, NULL)"), "0");
    // A NULL for the non-nullable n gives no rows (as STRICT would).
    EXPECT_EQ(db().scalar("SELECT count(*) FROM squares(NULL, 'x')"), "0");
    // Same as SQL over many sizes (the frame's loop counters survive each yield).
    const Comparison c = compare(db(), "generate_series(0, 200) AS n", "n::text",
                                 "(SELECT coalesce(sum(sq), 0) FROM squares(n, NULL))",
                                 "(SELECT coalesce(sum(g * g), 0) FROM generate_series(1, n) AS g)");
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(RowsFunctions, TextsMadeInTheBodySurviveTheYield) {
    EXPECT_EQ(db().scalar("SELECT string_agg(c || pos || '=' || upto, ',' ORDER BY pos) FROM letters('héllo')"),
              "h0=h,é1=hé,l2=hél,l3=héll,o4=héllo");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM letters('')"), "0");
    // In the select list too (ProjectSet), once per input row.
    EXPECT_EQ(db().scalar("SELECT string_agg(u, ',') FROM (SELECT (letters(w)).upto AS u FROM (VALUES ('ab'), ('c')) AS t(w)) AS s"), "a,ab,c");
}

TEST_F(RowsFunctions, ValuePerCallSoALimitStopsItEarly) {
    // The fourth call would raise: a LIMIT 3 in the select list never makes it.
    EXPECT_EQ(db().scalar("SELECT string_agg(n::text, ',') FROM (SELECT three_then_fail() AS n LIMIT 3) AS t"), "1,2,3");
    const ServerError e = db().expect_error("SELECT three_then_fail() LIMIT 4");
    EXPECT_EQ(e.sqlstate, "P0001") << e.message;
    EXPECT_THAT(e.message, HasSubstr("rows.keal:" + std::to_string(line_of("rows.keal", "asked for a fourth row")) +
                                     ": asked for a fourth row"));
}

TEST_F(RowsFunctions, ReturnEndsTheRowsAndNestedLoopsResume) {
    EXPECT_EQ(db().scalar("SELECT string_agg(a || '/' || b, ' ') FROM pairs(100)"), "0/0 0/0 1/0.5 1/1.5 2/1 2/3");
    EXPECT_EQ(db().scalar("SELECT string_agg(a || '/' || b, ' ') FROM pairs(3)"), "0/0 0/0 1/0.5");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM pairs(0)"), "0");
}

TEST_F(RowsFunctions, AQueryLoopRunsInsideOneCall) {
    EXPECT_EQ(db().scalar("SELECT string_agg(k || ':' || total, ' ') FROM numbered(4)"), "1:10 2:10 3:10 4:10");
    // 3,000 rows: the loop's cursor spans several batches within the first call.
    EXPECT_EQ(db().scalar("SELECT count(*) || ' ' || min(total) FROM numbered(3000)"), "3000 4501500");
}

TEST_F(RowsFunctions, OverflowIs22003WithTheLineAfterTheRowsBefore) {
    EXPECT_EQ(db().scalar("SELECT string_agg(v::text, ',') FROM (SELECT overflowing() AS v LIMIT 2) AS t"),
              "9223372036854775806,9223372036854775807");
    const ServerError e = db().expect_error("SELECT count(*) FROM overflowing()");
    EXPECT_EQ(e.sqlstate, "22003") << e.message;
    EXPECT_THAT(e.message, HasSubstr("rows.keal:" + std::to_string(line_of("rows.keal", "v += 1"))));
}

TEST_F(RowsFunctions, ReturnsTableAndVolatility) {
    EXPECT_EQ(db().scalar("SELECT pg_get_function_result('squares(bigint, text)'::regprocedure)"),
              "TABLE(i bigint, sq bigint, label text)");
    EXPECT_EQ(db().scalar("SELECT provolatile::text || proparallel::text || proretset::text FROM pg_proc WHERE proname = 'squares'"),
              "istrue");
    // A query inside: not pure, so neither IMMUTABLE nor PARALLEL SAFE.
    EXPECT_EQ(db().scalar("SELECT provolatile::text || proparallel::text FROM pg_proc WHERE proname = 'numbered'"), "su");
    EXPECT_EQ(db().scalar("SELECT obj_description('squares(bigint, text)'::regprocedure)"),
              "1..n with squares; even rows labelled with tag (or \"even\"), odd rows NULL.");
}

}  // namespace
}  // namespace keal::e2e
