// Collatz steps, the brief's first example: Keal against a PL/pgSQL function
// and a recursive CTE that compute the same count inside the server.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

class Collatz : public ::testing::Test {
protected:
    void SetUp() override { KealDatabase::get().deploy("collatz.keal"); }
    PgConnection& db() { return KealDatabase::get().sql(); }

    // steps_plpgsql(n): the same loop in PL/pgSQL, as the reference.
    void create_plpgsql_reference() {
        db().exec(R"sql(
CREATE OR REPLACE FUNCTION steps_plpgsql(n bigint) RETURNS bigint
LANGUAGE plpgsql STRICT IMMUTABLE AS $$
DECLARE x bigint := n; s bigint := 0;
BEGIN
  WHILE x <> 1 LOOP
    IF x % 2 = 0 THEN x := x / 2; ELSE x := 3 * x + 1; END IF;
    s := s + 1;
  END LOOP;
  RETURN s;
END $$)sql");
    }
};

TEST_F(Collatz, StepsMatchPlpgsqlFrom1To20000) {
    create_plpgsql_reference();
    const Comparison c =
        compare(db(), "generate_series(1, 20000) AS n", "n", "steps(n)", "steps_plpgsql(n)");
    EXPECT_EQ(c.rows, 20000);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(Collatz, StepsMatchRecursiveCteFrom1To3000) {
    const std::string walk = R"sql((
WITH RECURSIVE walk(n, x, s) AS (
  SELECT n, n::bigint, 0::bigint FROM generate_series(1, 3000) AS n
  UNION ALL
  SELECT n, CASE WHEN x % 2 = 0 THEN x / 2 ELSE 3 * x + 1 END, s + 1 FROM walk WHERE x <> 1
)
SELECT n, s FROM walk WHERE x = 1) AS ref(n, s))sql";
    const Comparison c = compare(db(), walk, "n", "steps(n)", "s");
    EXPECT_EQ(c.rows, 3000);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(Collatz, OverflowingStepIs22003AtTheKealLine) {
    // 3x + 1 of an odd x above (2^63 - 2) / 3 does not fit in 64 bits.
    const ServerError e = db().expect_error("SELECT steps(9223372036854775807)");
    EXPECT_EQ(e.sqlstate, "22003") << e.message;
    const std::string where = "collatz.keal:" + std::to_string(line_of("collatz.keal", "x = 3 * x + 1"));
    EXPECT_NE(e.message.find(where), std::string::npos) << e.message << " should name " << where;
    // PL/pgSQL's bigint arithmetic fails the same way for the same input.
    create_plpgsql_reference();
    EXPECT_EQ(db().expect_error("SELECT steps_plpgsql(9223372036854775807)").sqlstate, "22003");
}

TEST_F(Collatz, RecursiveVersionAgreesWithLoop) {
    const Comparison c =
        compare(db(), "generate_series(1, 5000) AS n", "n", "steps_recursive(n)", "steps(n)");
    EXPECT_EQ(c.rows, 5000);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(Collatz, ExclusiveAndInclusiveRangesWithBreakAndContinue) {
    // range_sums(a, b) = sum of i*i over [a, b) + sum of j over [a, min(b, 1000)]
    // with j not divisible by 3.
    const Comparison c = compare(
        db(), "generate_series(-30, 30) AS a, generate_series(-30, 1030, 7) AS b", "a || ',' || b",
        "range_sums(a, b)",
        "coalesce((SELECT sum(i::bigint * i) FROM generate_series(a, b - 1) AS i), 0) + "
        "coalesce((SELECT sum(j) FROM generate_series(a, least(b, 1000)) AS j WHERE j % 3 <> 0), 0)");
    EXPECT_EQ(c.rows, 61 * 152);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

}  // namespace
}  // namespace keal::e2e
