// Runtime errors inside PostgreSQL: checked int arithmetic, raise with and
// without a code, and a runaway loop stopped by statement_timeout. Each error
// carries its SQLSTATE and the Keal file and line; the backend stays usable.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

namespace keal::e2e {
namespace {

using ::testing::HasSubstr;

class RuntimeErrors : public ::testing::Test {
protected:
    void SetUp() override { KealDatabase::get().deploy("errors.keal"); }
    PgConnection& db() { return KealDatabase::get().sql(); }

    // "errors.keal:<line>" for the first line containing `needle`.
    static std::string at_line_of(const std::string& needle) {
        return "errors.keal:" + std::to_string(line_of("errors.keal", needle));
    }
};

TEST_F(RuntimeErrors, MultiplicationOverflowIs22003WithFileAndLine) {
    const ServerError e = db().expect_error("SELECT double_it(4611686018427387904)");
    EXPECT_EQ(e.sqlstate, "22003") << e.message;
    EXPECT_THAT(e.message + " " + e.detail, HasSubstr(at_line_of("return n * 2")));
    // Just below the limit both ways, the result is exact.
    EXPECT_EQ(db().scalar("SELECT double_it(4611686018427387903)"), "9223372036854775806");
    EXPECT_EQ(db().scalar("SELECT double_it(-4611686018427387904)"), "-9223372036854775808");
    EXPECT_EQ(db().expect_error("SELECT double_it(-4611686018427387905)").sqlstate, "22003");
}

TEST_F(RuntimeErrors, AdditionOverflowInALoopIs22003) {
    EXPECT_EQ(db().scalar("SELECT count_up(9223372036854775800, 7)"), "9223372036854775807");
    const ServerError e = db().expect_error("SELECT count_up(9223372036854775800, 8)");
    EXPECT_EQ(e.sqlstate, "22003") << e.message;
    EXPECT_THAT(e.message + " " + e.detail, HasSubstr(at_line_of("x += 1")));
}

TEST_F(RuntimeErrors, DivisionAndRemainderByZeroAre22012) {
    const ServerError div = db().expect_error("SELECT divide(7, 0)");
    EXPECT_EQ(div.sqlstate, "22012") << div.message;
    EXPECT_THAT(div.message + " " + div.detail, HasSubstr(at_line_of("return a / b")));
    const ServerError rem = db().expect_error("SELECT remainder(7, 0)");
    EXPECT_EQ(rem.sqlstate, "22012") << rem.message;
    EXPECT_THAT(rem.message + " " + rem.detail, HasSubstr(at_line_of("return a % b")));
}

TEST_F(RuntimeErrors, DivisionMatchesSqlIncludingNegativesAndTheOneOverflow) {
    // Truncating division and a remainder with the dividend's sign, as in SQL.
    const Comparison c = compare(db(), "generate_series(-50, 50) AS a, generate_series(-7, 7) AS b",
                                 "a || ',' || b", "CASE WHEN b <> 0 THEN divide(a, b) END",
                                 "CASE WHEN b <> 0 THEN a::bigint / b END");
    EXPECT_EQ(c.mismatches, 0) << c.examples;
    const Comparison m = compare(db(), "generate_series(-50, 50) AS a, generate_series(-7, 7) AS b",
                                 "a || ',' || b", "CASE WHEN b <> 0 THEN remainder(a, b) END",
                                 "CASE WHEN b <> 0 THEN a::bigint % b END");
    EXPECT_EQ(m.mismatches, 0) << m.examples;
    // The minimum divided by -1 does not fit in 64 bits.
    EXPECT_EQ(db().expect_error("SELECT divide('-9223372036854775808'::bigint, -1)").sqlstate, "22003");
}

TEST_F(RuntimeErrors, RaiseWithoutCodeIsP0001WithTheMessage) {
    EXPECT_EQ(db().scalar("SELECT must_be_positive(5)"), "5");
    const ServerError e = db().expect_error("SELECT must_be_positive(-3)");
    EXPECT_EQ(e.sqlstate, "P0001");
    EXPECT_THAT(e.message, HasSubstr("n must not be negative, got -3"));
    EXPECT_THAT(e.message + " " + e.detail, HasSubstr(at_line_of("raise \"n must not be negative")));
}

TEST_F(RuntimeErrors, RaiseWithCodeUsesThatSqlstate) {
    EXPECT_EQ(db().scalar("SELECT checked_ratio(1.0, 4.0)"), "0.25");
    const ServerError e = db().expect_error("SELECT checked_ratio(1.0, 0.0)");
    EXPECT_EQ(e.sqlstate, "22023");
    EXPECT_THAT(e.message, HasSubstr("b must not be zero"));
    EXPECT_THAT(e.message + " " + e.detail, HasSubstr(at_line_of("raise \"b must not be zero\"")));
}

TEST_F(RuntimeErrors, RaisedErrorIsCatchableInPlpgsqlBySqlstate) {
    // The code given to raise is what an EXCEPTION clause matches on.
    db().exec(R"sql(
DO $$ BEGIN
  PERFORM checked_ratio(1.0, 0.0);
  RAISE EXCEPTION 'checked_ratio did not raise';
EXCEPTION WHEN invalid_parameter_value THEN
  NULL;
END $$)sql");
    EXPECT_EQ(db().scalar("SELECT checked_ratio(3.0, 2.0)"), "1.5");
}

TEST_F(RuntimeErrors, RunawayLoopIsStoppedByStatementTimeout) {
    PgConnection session = KealDatabase::get().connect();
    session.exec("SET statement_timeout = '300ms'");
    const auto start = std::chrono::steady_clock::now();
    const ServerError e = session.expect_error("SELECT spin(0)");
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(e.sqlstate, "57014") << e.message;
    // Not a timing assertion on speed: without CHECK_FOR_INTERRUPTS() in the
    // loop the statement would never end; 30 s only bounds a hung test.
    EXPECT_LT(elapsed, std::chrono::seconds(30));
    EXPECT_EQ(session.scalar("SELECT double_it(21)"), "42");
}

TEST_F(RuntimeErrors, RunawayRangeLoopIsStoppedByStatementTimeout) {
    PgConnection session = KealDatabase::get().connect();
    session.exec("SET statement_timeout = '300ms'");
    const auto start = std::chrono::steady_clock::now();
    const ServerError e = session.expect_error("SELECT spin_range(9223372036854775807)");
    EXPECT_EQ(e.sqlstate, "57014") << e.message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
    EXPECT_EQ(session.scalar("SELECT spin_range(10)"), "45");
}

TEST_F(RuntimeErrors, RunawayRecursionIsStackDepthErrorNotACrash) {
    const Comparison c = compare(db(), "generate_series(0, 3000, 50) AS n", "n", "depth(n)", "n");
    EXPECT_EQ(c.mismatches, 0) << c.examples;
    // A crashed backend makes the postmaster end every session: both this
    // one and a bystander must survive.
    PgConnection bystander = KealDatabase::get().connect();
    const ServerError e = db().expect_error("SELECT depth(100000000)");
    EXPECT_EQ(e.sqlstate, "54001") << e.message;
    EXPECT_EQ(db().scalar("SELECT depth(10)"), "10");
    EXPECT_EQ(bystander.scalar("SELECT depth(20)"), "20");
}

TEST_F(RuntimeErrors, BackendKeepsWorkingAfterErrors) {
    for (int i = 0; i < 50; ++i) {
        EXPECT_EQ(db().expect_error("SELECT double_it(9223372036854775807)").sqlstate, "22003");
        EXPECT_EQ(db().expect_error("SELECT divide(1, 0)").sqlstate, "22012");
    }
    EXPECT_EQ(db().scalar("SELECT sum(double_it(n)) FROM generate_series(1, 1000) AS n"), "1001000");
}

}  // namespace
}  // namespace keal::e2e
