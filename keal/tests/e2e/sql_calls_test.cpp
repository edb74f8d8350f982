// sql.name(...): PostgreSQL's own functions called from Keal agree with the
// same functions called from SQL.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace keal::e2e {
namespace {

class SqlCalls : public ::testing::Test {
protected:
    void SetUp() override {
        KealDatabase::get().deploy("sql_calls.keal");
        ensure_samples(db());
    }
    PgConnection& db() { return KealDatabase::get().sql(); }

    void expect_same(const std::string& from, const std::string& keal, const std::string& sql,
                     std::int64_t rows) {
        const Comparison c = compare(db(), from, "s", keal, sql);
        EXPECT_EQ(c.rows, rows);
        EXPECT_EQ(c.mismatches, 0) << keal << " vs " << sql << ":\n" << c.examples;
    }
};

TEST_F(SqlCalls, TranslateAgreesWithSql) {
    expect_same("samples, (VALUES ('aeiou', ''), ('aé中', 'AE'), ('😀 ', '_-')) AS m(f, t)",
                "k_translate(s, f, t)", "translate(s, f, t)", 5000 * 3);
}

TEST_F(SqlCalls, Md5AgreesWithSql) {
    expect_same("samples", "k_md5(s)", "md5(s)", 5000);
}

TEST_F(SqlCalls, LowerAgreesWithSql) {
    expect_same("samples", "k_sql_lower(s)", "lower(s)", 5000);
}

TEST_F(SqlCalls, VowelsThroughTranslateAgreeWithTheFormula) {
    expect_same("samples", "vowels_translate(s)", "length(s) - length(translate(s, 'aeiouAEIOU', ''))", 5000);
}

TEST_F(SqlCalls, ResultTypeGivenWithAs) {
    expect_same("samples", "k_sha224(s)", "sha224(convert_to(s, 'UTF8'))", 5000);
}

TEST_F(SqlCalls, BigintArgument) {
    const Comparison c = compare(db(), "(SELECT n::bigint * n * n * 977 AS n FROM generate_series(-2000, 2000) AS n) t",
                                 "n", "k_to_hex(n)", "to_hex(n)");
    EXPECT_EQ(c.rows, 4001);
    EXPECT_EQ(c.mismatches, 0) << c.examples;
}

TEST_F(SqlCalls, UnknownSignatureIs42883NamingTheFunctionAndLine) {
    const ServerError e = db().expect_error("SELECT k_missing(3)");
    EXPECT_EQ(e.sqlstate, "42883") << e.message;
    EXPECT_THAT(e.message, ::testing::HasSubstr("keal_no_such_function(bigint,text)")) << e.message;
    EXPECT_THAT(e.message, ::testing::HasSubstr(
                               "sql_calls.keal:" + std::to_string(line_of("sql_calls.keal", "keal_no_such_function"))))
        << e.message;
    // The backend stays usable, and the failure is not cached as a success.
    EXPECT_EQ(db().scalar("SELECT k_md5('a') = md5('a')"), "t");
    EXPECT_EQ(db().expect_error("SELECT k_missing(4)").sqlstate, "42883");
}

TEST_F(SqlCalls, IntArgumentNarrowedForAnIntegerSignature) {
    expect_same("samples, generate_series(0, 3) AS n", "k_repeat(s, n)", "repeat(s, n)", 5000 * 4);
    const ServerError e = db().expect_error("SELECT k_repeat('a', 2147483648)");
    EXPECT_EQ(e.sqlstate, "22003") << e.message;
    EXPECT_THAT(e.message, ::testing::HasSubstr(
                               "sql_calls.keal:" + std::to_string(line_of("sql_calls.keal", "sql.repeat(s, n)"))))
        << e.message;
}

TEST_F(SqlCalls, ParallelWorkersResolveTheirOwnCalls) {
    // Each backend resolves a server function once for itself: parallel
    // workers, new sessions and the leader all get the same answers.
    PgConnection session = KealDatabase::get().connect();
    session.exec("SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; "
                 "SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0");
    EXPECT_EQ(session.scalar("SELECT count(*) FROM samples WHERE k_md5(s) IS DISTINCT FROM md5(s)"), "0");
}

}  // namespace
}  // namespace keal::e2e
