// Arrays in PostgreSQL functions: `[T]` is a one-dimensional T[] in and out,
// NULL elements only for `[T?]`, indexing checked (2202E with the Keal line),
// more dimensions refused (2202E), and array functions stay IMMUTABLE
// PARALLEL SAFE.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

using ::testing::HasSubstr;

class Arrays : public ::testing::Test {
protected:
    void SetUp() override { KealDatabase::get().deploy("arrays.keal"); }
    PgConnection& db() { return KealDatabase::get().sql(); }
    static std::string at_line_of(const std::string& needle) {
        return "arrays.keal:" + std::to_string(line_of("arrays.keal", needle));
    }
};

TEST_F(Arrays, IntArraysInAndOut) {
    EXPECT_EQ(db().scalar("SELECT total(ARRAY[1, 2, 3, -10]::bigint[])"), "-4");
    EXPECT_EQ(db().scalar("SELECT total('{}'::bigint[])"), "0");
    EXPECT_EQ(db().scalar("SELECT squares(5)::text"), "{0,1,4,9,16}");
    EXPECT_EQ(db().scalar("SELECT squares(0)::text"), "{}");
    EXPECT_EQ(db().scalar("SELECT total(squares(100000))"), "333328333350000");
    // Any lower bound: the Keal array is 0-based whatever the SQL bounds.
    EXPECT_EQ(db().scalar("SELECT total('[5:7]={1,2,3}'::bigint[])"), "6");
    // Same as SQL over many arrays.
    const Comparison c = compare(db(), "generate_series(0, 300) AS n", "n::text", "total(squares(n))",
                                 "(SELECT coalesce(sum(i * i), 0) FROM generate_series(0, n - 1) AS i)");
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(Arrays, TextCharBoolBytesAndNullableElements) {
    EXPECT_EQ(db().scalar("SELECT lengths(ARRAY['héllo', '', '中文'])::text"), "{5,0,2}");
    EXPECT_EQ(db().scalar("SELECT pick(ARRAY['a', NULL, 'c'], 1)"), "none");
    EXPECT_EQ(db().scalar("SELECT pick(ARRAY['a', NULL, 'c'], 2)"), "c");
    EXPECT_EQ(db().scalar("SELECT with_nulls(ARRAY[1.5, NULL, -2]::float8[])::text"), "{3,NULL,-4}");
    EXPECT_EQ(db().scalar("SELECT flags(ARRAY[true, false, true])"), "2");
    EXPECT_EQ(db().scalar("SELECT initials(ARRAY['éa', 'b', '', '中'])::text"), "{é,b,中}");
    EXPECT_EQ(db().scalar("SELECT sizes(ARRAY['\\x0001'::bytea, ''::bytea])::text"), "{2,0}");
    EXPECT_EQ(db().scalar("SELECT appends_do_not_alias()"), "3 4 5 6 4");
}

TEST_F(Arrays, IndexOutOfRangeIs2202EWithTheLine) {
    const ServerError e = db().expect_error("SELECT pick(ARRAY['a'], 1)");
    EXPECT_EQ(e.sqlstate, "2202E") << e.message;
    EXPECT_THAT(e.message, HasSubstr(at_line_of("return xs[i] ?? \"none\"") + ": array index 1 is out of range (length 1)"));
    EXPECT_EQ(db().expect_error("SELECT pick(ARRAY['a'], -1)").sqlstate, "2202E");
    EXPECT_EQ(db().expect_error("SELECT pick('{}'::text[], 0)").sqlstate, "2202E");
}

TEST_F(Arrays, MoreThanOneDimensionIsAClearError) {
    const ServerError e = db().expect_error("SELECT total(ARRAY[[1, 2], [3, 4]]::bigint[])");
    EXPECT_EQ(e.sqlstate, "2202E") << e.message;
    EXPECT_THAT(e.message, HasSubstr("argument xs is an array of 2 dimensions; a Keal array has one"));
}

TEST_F(Arrays, ANullElementNeedsANullableElementType) {
    const ServerError e = db().expect_error("SELECT total(ARRAY[1, NULL]::bigint[])");
    EXPECT_EQ(e.sqlstate, "22004") << e.message;
    EXPECT_THAT(e.message, HasSubstr("argument xs has a NULL at index 1; declare its elements nullable ([T?])"));
    // A NULL array is NULL (STRICT), never a Keal call.
    EXPECT_EQ(db().scalar("SELECT total(NULL::bigint[])"), std::nullopt);
}

TEST_F(Arrays, AQueryLoopCanCollectRowsIntoArrays) {
    // 2,500 rows are three batches; the row context is reset per row, so the
    // arrays built in the body must live in the function's context.
    EXPECT_EQ(db().scalar("SELECT array_length(collect(2500), 1)"), "2501");
    EXPECT_EQ(db().scalar("SELECT (collect(2500))[1] || '|' || (collect(2500))[2500] || '|' || (collect(2500))[2501]"),
              "row 1|row 2500|2500");
    EXPECT_EQ(db().scalar("SELECT collect(0)::text"), "{}");
}

TEST_F(Arrays, ArrayFunctionsAreImmutableAndParallelSafe) {
    EXPECT_EQ(db().scalar("SELECT provolatile::text || proparallel::text FROM pg_proc WHERE oid = 'total(bigint[])'::regprocedure"),
              "is");
    EXPECT_EQ(db().scalar("SELECT provolatile::text || proparallel::text FROM pg_proc WHERE oid = 'squares(bigint)'::regprocedure"),
              "is");
    EXPECT_EQ(db().scalar("SELECT pg_get_function_result('squares(bigint)'::regprocedure)"), "bigint[]");
}

}  // namespace
}  // namespace keal::e2e
