// The same Keal source on three servers: the corpus (programs/corpus.keal)
// built for PostgreSQL, SQLite and MariaDB, every call run on all three.
// Results must be identical, and so must errors: the same Keal message
// (file, line and text), with the same SQLSTATE where both PostgreSQL and
// MariaDB have one for it (22003 overflow, 22012 division by zero).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "call_case.hpp"
#include "keal_database.hpp"
#include "mariadb_session.hpp"
#include "pg_session.hpp"
#include "sqlite_session.hpp"

namespace keal::servers {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

// Each call and, for some, the answer every server must give (empty: only
// agreement is checked; the answers pinned here keep the test from passing
// on three identical wrong results).
struct Case {
    Call call;
    std::string expected;
};

std::vector<Case> corpus() {
    using K = Kind;
    return {
        {{"k_steps", {I(1)}, K::Int}, "0"},
        {{"k_steps", {I(27)}, K::Int}, "111"},
        {{"k_steps", {I(837799)}, K::Int}, "524"},
        {{"k_steps", {Null(K::Int)}, K::Int}, "NULL"},
        {{"k_mul", {I(3), I(-4)}, K::Int}, "-12"},
        {{"k_mul", {I(-4611686018427387904), I(2)}, K::Int}, "-9223372036854775808"},
        {{"k_mul", {I(kMax), I(2)}, K::Int}, "error: corpus.keal:20: integer overflow"},
        {{"k_mul", {I(kMin), I(-1)}, K::Int}, "error: corpus.keal:20: integer overflow"},
        {{"k_div", {I(7), I(2)}, K::Int}, "3"},
        {{"k_div", {I(-7), I(2)}, K::Int}, "-3"},
        {{"k_div", {I(7), I(0)}, K::Int}, "error: corpus.keal:24: division by zero"},
        {{"k_div", {I(kMin), I(-1)}, K::Int}, "error: corpus.keal:24: integer overflow"},
        {{"k_rem", {I(-7), I(3)}, K::Int}, "-1"},
        {{"k_rem", {I(7), I(0)}, K::Int}, "error: corpus.keal:28: division by zero"},
        {{"k_rem", {I(kMin), I(-1)}, K::Int}, "0"},
        {{"k_neg", {I(kMin)}, K::Int}, "error: corpus.keal:32: integer overflow"},
        {{"k_neg", {I(kMax)}, K::Int}, "-9223372036854775807"},
        {{"k_sum_to", {I(100)}, K::Int}, "5050"},
        {{"k_sum_to", {I(0)}, K::Int}, "0"},
        {{"k_positive", {I(5)}, K::Int}, "5"},
        {{"k_positive", {I(-3)}, K::Int}, "error: corpus.keal:46: n must not be negative, got -3"},
        {{"k_ratio", {F(1), F(4)}, K::Float}, "0.25"},
        {{"k_ratio", {F(1), F(0)}, K::Float}, "error: corpus.keal:53: b must not be zero"},
        {{"k_hypot", {F(3), F(4)}, K::Float}, "5"},
        {{"k_hypot", {F(1e-200), F(1e-200)}, K::Float}, ""},
        {{"k_hypot", {F(0.1), F(0.2)}, K::Float}, ""},
        {{"k_root", {F(2)}, K::Float}, "1.4142135623730951"},
        {{"k_root", {F(-1)}, K::Float}, "error: corpus.keal:64: cannot take the square root of a negative number"},
        {{"k_truncate", {F(-2.9)}, K::Int}, "-2"},
        {{"k_truncate", {F(1e19)}, K::Int}, "error: corpus.keal:68: float value out of range for int"},
        {{"k_float_text", {F(0.1)}, K::Text}, "0.1"},
        {{"k_float_text", {F(1e20)}, K::Text}, "1e+20"},
        {{"k_float_text", {F(-0.0)}, K::Text}, "-0"},
        {{"k_float_text", {F(123456.789)}, K::Text}, "123456.789"},
        {{"k_mean", {I(1), I(2)}, K::Float}, "1.5"},
        {{"k_mean", {I(kMax), I(kMax)}, K::Float}, ""},
        {{"k_both", {B(true), B(false)}, K::Bool}, "false"},
        {{"k_both", {B(true), B(true)}, K::Bool}, "true"},
        {{"k_both", {Null(K::Bool), B(true)}, K::Bool}, "NULL"},
        {{"k_is_even", {I(-4)}, K::Bool}, "true"},
        {{"k_is_even", {I(-3)}, K::Bool}, "false"},
        {{"k_vowels", {T("Hello World")}, K::Int}, "3"},
        {{"k_vowels", {T("")}, K::Int}, "0"},
        {{"k_vowels", {T("ÀéIoU中")}, K::Int}, "3"},
        {{"k_vowels", {Null(K::Text)}, K::Int}, "NULL"},
        {{"k_chars", {T("héllo😀")}, K::Int}, "6"},
        {{"k_reversed", {T("héllo😀")}, K::Text}, "😀olléh"},
        {{"k_reversed", {T("")}, K::Text}, ""},
        {{"k_shout", {T("  straße \t")}, K::Text}, "STRAßE!"},
        {{"k_middle", {T("héllo wörld"), I(1), I(4)}, K::Text}, "éllo"},
        {{"k_middle", {T("héllo"), I(3), I(100)}, K::Text}, "lo"},
        {{"k_middle", {T("héllo"), I(1), I(-1)}, K::Text}, "error: corpus.keal:114: negative substring length"},
        {{"k_swap_words", {T("a b a"), T("a"), T("xy")}, K::Text}, "xy b xy"},
        {{"k_where_is", {T("héllo"), T("l")}, K::Int}, "2"},
        {{"k_where_is", {T("abc"), T("z")}, K::Int}, "-1"},
        {{"k_parse", {T("  -7 ")}, K::Int}, "-7"},
        {{"k_parse", {T("abc")}, K::Int}, "error: corpus.keal:126: invalid input syntax for type int: \"abc\""},
        {{"k_parse", {T("99999999999999999999")}, K::Int}, "error: corpus.keal:126: value out of range for int"},
        {{"k_code_point", {T("a😀")}, K::Int}, "128512"},
        {{"k_from_code", {I(233)}, K::Text}, "é"},
        {{"k_from_code", {I(0x110000)}, K::Text}, "error: corpus.keal:138: character code out of range"},
        {{"k_from_code", {I(0xD800)}, K::Text}, "error: corpus.keal:138: character code out of range"},
        {{"k_describe", {Null(K::Int)}, K::Text}, "nothing"},
        {{"k_describe", {I(7)}, K::Text}, "number 7"},
        {{"k_or_zero", {Null(K::Int)}, K::Int}, "0"},
        {{"k_maybe_double", {Null(K::Int)}, K::Int}, "NULL"},
        {{"k_maybe_double", {I(21)}, K::Int}, "42"},
        {{"k_maybe_double", {I(kMax)}, K::Int}, "error: corpus.keal:156: integer overflow"},
        {{"k_label", {T("x"), Null(K::Int)}, K::Text}, "x:-1"},
        {{"k_label", {T("x"), I(3)}, K::Text}, "x:3"},
        {{"k_label", {Null(K::Text), I(3)}, K::Text}, "NULL"},
        {{"k_greet", {Null(K::Text)}, K::Text}, "hello, stranger"},
        {{"k_greet", {T("Zoë")}, K::Text}, "hello, Zoë"},
        {{"k_fib", {I(20)}, K::Int}, "6765"},
        // Arrays: T[] on PostgreSQL, JSON array text elsewhere, the same answers.
        {{"k_arr_sum", {J("[1,2,3,-10]", "bigint[]")}, K::Int}, "-4"},
        {{"k_arr_sum", {J("[]", "bigint[]")}, K::Int}, "0"},
        {{"k_arr_sum", {J("[9223372036854775807,1]", "bigint[]")}, K::Int}, "error: corpus.keal:185: integer overflow"},
        {{"k_arr_sum", {J("[1,null]", "bigint[]")}, K::Int},
         "error: corpus.keal:183: argument xs has a NULL at index 1; declare its elements nullable ([T?])"},
        {{"k_arr_sum", {NullJ("bigint[]")}, K::Int}, "NULL"},
        {{"k_arr_squares", {I(5)}, K::Json}, "[0,1,4,9,16]"},
        {{"k_arr_squares", {I(0)}, K::Json}, "[]"},
        {{"k_arr_at", {J("[\"a\",null,\"中文\"]", "text[]"), I(2)}, K::Text}, "中文"},
        {{"k_arr_at", {J("[\"a\",null,\"中文\"]", "text[]"), I(1)}, K::Text}, "NULL"},
        {{"k_arr_at", {J("[\"a\"]", "text[]"), I(1)}, K::Text},
         "error: corpus.keal:196: array index 1 is out of range (length 1)"},
        {{"k_arr_at", {J("[\"a\"]", "text[]"), I(-1)}, K::Text},
         "error: corpus.keal:196: array index -1 is out of range (length 1)"},
        {{"k_arr_words", {T("  héllo wörld \"q\"\ttab ")}, K::Json}, "[\"héllo\",\"wörld\",\"\\\"q\\\"\\ttab\"]"},
        {{"k_arr_words", {T("")}, K::Json}, "[]"},
        {{"k_arr_scale", {J("[1.5,null,-2,0.1]", "float8[]"), F(2)}, K::Json}, "[3,null,-4,0.2]"},
        {{"k_arr_scale", {J("[1e300]", "float8[]"), F(1e10)}, K::Json}, ""},
        {{"k_arr_negate", {J("[true,false]", "boolean[]")}, K::Json}, "[false,true]"},
        {{"k_arr_chars", {T("é中😀")}, K::Json}, "[\"é\",\"中\",\"😀\"]"},
        {{"k_arr_mean", {J("[1,2.5]", "float8[]")}, K::Float}, "1.75"},
        {{"k_arr_mean", {J("[]", "float8[]")}, K::Float}, "error: corpus.keal:238: division by zero"},
        {{"k_arr_literal", {Null(K::Int)}, K::Json}, "[1,null,3,3]"},
        {{"k_arr_literal", {I(7)}, K::Json}, "[1,7,3,3]"},
        {{"k_arr_byte_counts", {J(R"(["\\x00ff","\\x"])", "bytea[]")}, K::Json}, "[2,0]"},
        {{"k_arr_join", {J(R"(["é",null,"中"])", "text[]")}, K::Text}, "é?中"},
        {{"k_arr_join", {J(R"(["ab"])", "text[]")}, K::Text},
         "error: corpus.keal:252: a char argument must be text of exactly one character"},
    };
}

class ThreeServers : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        deploy_to_postgres("corpus.keal");
        deploy_to_postgres("corpus_rows.keal");
        deploy_to_mariadb("corpus.keal");
        sqlite_ = std::make_unique<SqliteSession>(sqlite_extension("corpus.keal"));
        sqlite_rows_ = std::make_unique<SqliteSession>(sqlite_extension("corpus_rows.keal"));
        mariadb_ = std::make_unique<MariadbSession>();
    }
    static void TearDownTestSuite() {
        sqlite_.reset();
        sqlite_rows_.reset();
        mariadb_.reset();
    }
    static std::unique_ptr<SqliteSession> sqlite_;
    static std::unique_ptr<SqliteSession> sqlite_rows_;  // corpus_rows.keal
    static std::unique_ptr<MariadbSession> mariadb_;
};

std::unique_ptr<SqliteSession> ThreeServers::sqlite_;
std::unique_ptr<SqliteSession> ThreeServers::sqlite_rows_;
std::unique_ptr<MariadbSession> ThreeServers::mariadb_;

TEST_F(ThreeServers, TheCorpusGivesTheSameResultsAndErrorsEverywhere) {
    int errors = 0;
    for (const Case& c : corpus()) {
        SCOPED_TRACE(describe(c.call));
        const Outcome pg = run_on_postgres(c.call, "corpus.keal");
        const Outcome lite = sqlite_->run(c.call, "corpus.keal");
        const Outcome maria = mariadb_->run(c.call, "corpus.keal");
        EXPECT_EQ(lite.rendered, pg.rendered) << "SQLite differs from PostgreSQL";
        EXPECT_EQ(maria.rendered, pg.rendered) << "MariaDB differs from PostgreSQL";
        if (!c.expected.empty()) {
            EXPECT_EQ(pg.rendered, c.expected);
        }
        if (pg.sqlstate == "22003" || pg.sqlstate == "22012") {
            EXPECT_EQ(maria.sqlstate, pg.sqlstate) << maria.rendered;
        }
        errors += pg.rendered.rfind("error: ", 0) == 0;
    }
    // The corpus exercises the error paths, not only the happy ones.
    EXPECT_GE(errors, 15);
}

TEST_F(ThreeServers, EveryServerKeepsWorkingAfterAnError) {
    const Call bad{"k_div", {I(1), I(0)}, Kind::Int};
    const Call good{"k_steps", {I(27)}, Kind::Int};
    for (int round = 0; round < 3; ++round) {
        EXPECT_EQ(run_on_postgres(bad, "corpus.keal").rendered, "error: corpus.keal:24: division by zero");
        EXPECT_EQ(sqlite_->run(bad, "corpus.keal").rendered, "error: corpus.keal:24: division by zero");
        EXPECT_EQ(mariadb_->run(bad, "corpus.keal").rendered, "error: corpus.keal:24: division by zero");
        EXPECT_EQ(run_on_postgres(good, "corpus.keal").rendered, "111");
        EXPECT_EQ(sqlite_->run(good, "corpus.keal").rendered, "111");
        EXPECT_EQ(mariadb_->run(good, "corpus.keal").rendered, "111");
    }
}

// Aggregates over the same rows on every server: each query is a CTE of
// VALUES (written the same way in all three dialects) and one aggregate.
struct AggregateCase {
    std::string sql;
    Kind result;
    std::string expected;
};

std::vector<AggregateCase> aggregate_corpus() {
    const std::string ints = "WITH t(x) AS (VALUES (1), (2), (NULL), (3)) ";
    const std::string floats = "WITH t(x) AS (VALUES (1.0), (2.0), (4.0)) ";
    return {
        {ints + "SELECT k_sumsq(x) FROM t", Kind::Int, "14"},
        {ints + "SELECT k_nulls(x) FROM t", Kind::Int, "1"},
        {ints + "SELECT k_int_mean(x) FROM t", Kind::Int, "2"},
        {ints + "SELECT k_all_small(x) FROM t", Kind::Bool, "true"},
        {"WITH t(x) AS (VALUES (5), (500)) SELECT k_all_small(x) FROM t", Kind::Bool, "false"},
        {floats + "SELECT k_variance(x) FROM t", Kind::Float, "2.3333333333333339"},
        {"WITH t(g, x) AS (VALUES (1, 1.0), (2, 5.0), (1, 3.0)) SELECT k_variance(x) FROM t GROUP BY g ORDER BY g LIMIT 1",
         Kind::Float, "2"},
        // No rows: the final block sees the initial state.
        {ints + "SELECT k_sumsq(x) FROM t WHERE x > 10", Kind::Int, "0"},
        {floats + "SELECT k_variance(x) FROM t WHERE x > 3", Kind::Float, "NULL"},
        {ints + "SELECT k_nulls(x) FROM t WHERE x > 10", Kind::Int, "0"},
        // Errors keep Keal's message, line and SQLSTATE.
        {"WITH t(x) AS (VALUES (3037000500), (1)) SELECT k_sumsq(x) FROM t", Kind::Int,
         "error: corpus.keal:264: integer overflow"},
        {"WITH t(x) AS (VALUES (5), (5000)) SELECT k_all_small(x) FROM t", Kind::Bool,
         "error: corpus.keal:303: too large: 5000"},
        {ints + "SELECT k_int_mean(x) FROM t WHERE x > 10", Kind::Int, "error: corpus.keal:315: division by zero"},
        // Text, char and bytes results, made by `final` once per group.
        {ints + "SELECT k_span(x) FROM t", Kind::Text, "3 rows in 1..=3 (é)"},
        {ints + "SELECT k_span(x) FROM t WHERE x > 10", Kind::Text, "NULL"},
        {"WITH t(g, x) AS (VALUES (1, 5), (2, 7), (1, -2)) SELECT k_span(x) FROM t GROUP BY g ORDER BY g LIMIT 1", Kind::Text,
         "2 rows in -2..=5 (é)"},
        {floats + "SELECT k_grade(x) FROM t", Kind::Text, "ß"},
        {"WITH t(x) AS (VALUES (4.0), (8.0)) SELECT k_grade(x) FROM t", Kind::Text, "A"},
        {floats + "SELECT k_grade(x) FROM t WHERE x > 100", Kind::Text, "ß"},
        {"WITH t(x) AS (VALUES (-4.0), (1.0)) SELECT k_grade(x) FROM t", Kind::Text, "error: corpus.keal:344: negative total -3"},
        {ints + "SELECT length(k_bytes_of(x)) FROM t", Kind::Int, "3"},
    };
}

TEST_F(ThreeServers, AggregatesGiveTheSameResultsAndErrorsEverywhere) {
    for (const AggregateCase& c : aggregate_corpus()) {
        SCOPED_TRACE(c.sql);
        const Outcome pg = query_on_postgres(c.sql, c.result, "corpus.keal");
        const Outcome lite = sqlite_->query(c.sql, c.result, "corpus.keal");
        const Outcome maria = mariadb_->query(c.sql, c.result, "corpus.keal");
        EXPECT_EQ(pg.rendered, c.expected);
        EXPECT_EQ(lite.rendered, pg.rendered) << "SQLite differs from PostgreSQL";
        EXPECT_EQ(maria.rendered, pg.rendered) << "MariaDB differs from PostgreSQL";
        if (pg.sqlstate == "22003" || pg.sqlstate == "22012") {
            EXPECT_EQ(maria.sqlstate, pg.sqlstate) << maria.rendered;
        }
    }
}

// A bytes result is the same bytes everywhere (in hex: each server spells
// that differently), and a text result of every group comes out whole.
TEST_F(ThreeServers, AggregatesGiveBytesAndPerGroupTextResults) {
    const std::string ints = "WITH t(x) AS (VALUES (1), (2), (NULL), (3)) ";
    EXPECT_EQ(query_on_postgres(ints + "SELECT encode(k_bytes_of(x), 'hex') FROM t", Kind::Text, "corpus.keal").rendered, "6e3d36");
    EXPECT_EQ(sqlite_->query(ints + "SELECT lower(hex(k_bytes_of(x))) FROM t", Kind::Text, "corpus.keal").rendered, "6e3d36");
    EXPECT_EQ(mariadb_->query(ints + "SELECT lower(hex(k_bytes_of(x))) FROM t", Kind::Text, "corpus.keal").rendered, "6e3d36");
    // Every group's text (MariaDB reuses one result buffer across groups).
    const std::string groups = "WITH t(g, x) AS (VALUES (1, 5), (2, 7), (1, -2), (3, 100)) ";
    EXPECT_EQ(query_on_postgres(groups + "SELECT string_agg(s, ' | ' ORDER BY g) FROM (SELECT g, k_span(x) AS s FROM t GROUP BY g) AS a",
                                Kind::Text, "corpus.keal")
                  .rendered,
              "2 rows in -2..=5 (é) | 1 rows in 7..=7 (é) | 1 rows in 100..=100 (é)");
    const std::string concat = "SELECT group_concat(s, ' | ') FROM (SELECT g, k_span(x) AS s FROM t GROUP BY g ORDER BY g) AS a";
    EXPECT_EQ(sqlite_->query(groups + concat, Kind::Text, "corpus.keal").rendered,
              "2 rows in -2..=5 (é) | 1 rows in 7..=7 (é) | 1 rows in 100..=100 (é)");
    EXPECT_EQ(mariadb_->query(groups + "SELECT group_concat(s ORDER BY g SEPARATOR ' | ') FROM (SELECT g, k_span(x) AS s FROM t "
                                       "GROUP BY g) AS a",
                              Kind::Text, "corpus.keal")
                  .rendered,
              "2 rows in -2..=5 (é) | 1 rows in 7..=7 (é) | 1 rows in 100..=100 (é)");
}

// An aggregate with `inverse` is a window aggregate on SQLite (xValue and
// xInverse) and a moving aggregate on PostgreSQL (MINVFUNC: a sliding frame
// is updated, not folded again), with the same answers; one without is
// refused by SQLite with its own message, and PostgreSQL folds each frame.
TEST_F(ThreeServers, AnAggregateWithInverseIsAWindowAggregateOnSqlite) {
    const std::string sql =
        "WITH t(x) AS (VALUES (1.0), (2.0), (4.0), (8.0)), "
        "w(v) AS (SELECT k_variance(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t) "
        "SELECT sum(v) FROM w";
    EXPECT_EQ(query_on_postgres(sql, Kind::Float, "corpus.keal").rendered, "10.5");
    EXPECT_EQ(sqlite_->query(sql, Kind::Float, "corpus.keal").rendered, "10.5");
    EXPECT_EQ(sqlite_->query("WITH t(x) AS (VALUES (1)) SELECT k_sumsq(x) OVER () FROM t", Kind::Int, "corpus.keal").rendered,
              "error: k_sumsq() may not be used as a window function");
    EXPECT_EQ(query_on_postgres("SELECT aggminvtransfn::text FROM pg_aggregate WHERE aggfnoid = 'k_variance(double precision)'"
                                "::regprocedure",
                                Kind::Text, "corpus.keal")
                  .rendered,
              "keal_agg_k_variance_inverse");
    EXPECT_EQ(query_on_postgres("SELECT aggminvtransfn::text FROM pg_aggregate WHERE aggfnoid = 'k_sumsq(bigint)'::regprocedure",
                                Kind::Text, "corpus.keal")
                  .rendered,
              "-");
    // NULLs leave the frame as they entered it: skipped by inverse as by step.
    const std::string with_nulls =
        "WITH t(i, x) AS (VALUES (1, 1.0), (2, NULL), (3, 4.0), (4, 8.0), (5, NULL), (6, 16.0)), "
        "w(v) AS (SELECT k_variance(x) OVER (ORDER BY i ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t) "
        "SELECT sum(v) FROM w";
    EXPECT_EQ(query_on_postgres(with_nulls, Kind::Float, "corpus.keal").rendered,
              sqlite_->query(with_nulls, Kind::Float, "corpus.keal").rendered);
}

// With combine (and so serial/deserial), PostgreSQL plans the aggregate in
// parallel: Partial Aggregate in the workers, Finalize Aggregate in the
// leader, with the serial plan's answer.
TEST_F(ThreeServers, PostgresRunsAnAggregateWithCombineInParallel) {
    const std::string settings =
        "SET max_parallel_workers_per_gather = 2; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; "
        "SET min_parallel_table_scan_size = 0; ";
    auto& db = e2e::KealDatabase::get().sql();
    db.exec("DROP TABLE IF EXISTS keal_agg_rows; CREATE TABLE keal_agg_rows AS SELECT g::float8 AS x FROM generate_series(1, 20000) g; "
            "ANALYZE keal_agg_rows");
    db.exec(settings);
    const auto plan = db.scalar("SELECT string_agg(line, E'\\n') FROM (SELECT * FROM pg_catalog.pg_sleep(0)) s, "
                                "LATERAL (SELECT 1) l, LATERAL unnest(ARRAY['']) line");
    (void)plan;
    const e2e::Value parallel = db.scalar("SELECT k_variance(x)::text FROM keal_agg_rows");
    db.exec("CREATE OR REPLACE FUNCTION pg_temp.keal_plan(q text) RETURNS text LANGUAGE plpgsql AS $$"
            "DECLARE r text; out text := ''; BEGIN FOR r IN EXECUTE 'EXPLAIN ' || q LOOP out := out || r || E'\\n'; END LOOP; "
            "RETURN out; END $$");
    const e2e::Value plan_text = db.scalar("SELECT pg_temp.keal_plan('SELECT k_variance(x) FROM keal_agg_rows')");
    ASSERT_TRUE(plan_text.has_value());
    EXPECT_NE(plan_text->find("Partial Aggregate"), std::string::npos) << *plan_text;
    EXPECT_NE(plan_text->find("Finalize Aggregate"), std::string::npos) << *plan_text;
    db.exec("SET max_parallel_workers_per_gather = 0");
    const e2e::Value serial = db.scalar("SELECT k_variance(x)::text FROM keal_agg_rows");
    const e2e::Value serial_plan = db.scalar("SELECT pg_temp.keal_plan('SELECT k_variance(x) FROM keal_agg_rows')");
    ASSERT_TRUE(serial_plan.has_value());
    EXPECT_EQ(serial_plan->find("Partial Aggregate"), std::string::npos) << *serial_plan;
    EXPECT_EQ(parallel, serial);
    // The same arithmetic in SQL (every partial sum is an exact integer, so
    // the order of summation cannot change the answer).
    EXPECT_EQ(serial.value_or("NULL"),
              db.scalar("SELECT ((sum(x * x) - sum(x) * sum(x) / count(*)) / (count(*) - 1))::text FROM keal_agg_rows")
                  .value_or("?"));
    db.exec("RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost; "
            "RESET min_parallel_table_scan_size; DROP TABLE keal_agg_rows");
}

// Rows functions (programs/corpus_rows.keal) on PostgreSQL and SQLite: the
// same rows, or the same Keal error. One SQL text for both, except where a
// LIMIT must stop the function early: PostgreSQL materialises a function
// in FROM (its FunctionScan runs it to the end), so there the function is
// called in the select list (value per call, one row per call), while
// SQLite's table-valued function in FROM gives one row per xNext.
struct RowsCase {
    std::string sql;
    std::string sqlite_sql;  // empty: the same as sql
    std::vector<Kind> columns;
    std::string expected;
    std::string pg_sqlstate;  // for an error: PostgreSQL's SQLSTATE
};

std::vector<RowsCase> rows_corpus() {
    using K = Kind;
    return {
        // Counting.
        {"SELECT * FROM k_rows_count(1, 4)", "", {K::Int, K::Int}, "1|1; 2|4; 3|9; 4|16", ""},
        {"SELECT * FROM k_rows_count(5, 4)", "", {K::Int, K::Int}, "(no rows)", ""},
        {"SELECT sum(square) FROM k_rows_count(1, 100)", "", {K::Int}, "338350", ""},
        // Filtering, and an argument from a table joined before it.
        {"SELECT n FROM k_rows_count(1, 10) WHERE square % 2 = 0", "", {K::Int}, "2; 4; 6; 8; 10", ""},
        {"WITH t(k) AS (VALUES (2), (3)) SELECT t.k, c.n, c.square FROM t, k_rows_count(1, t.k) AS c ORDER BY t.k, c.n", "",
         {K::Int, K::Int, K::Int}, "2|1|1; 2|2|4; 3|1|1; 3|2|4; 3|3|9", ""},
        // Nullable columns and parameters; a NULL for a non-nullable one gives no rows.
        {"SELECT * FROM k_rows_words('banana  split', NULL)", "", {K::Text, K::Int, K::Text}, "banana|3|b; |NULL|NULL; split|NULL|s", ""},
        {"SELECT word, first FROM k_rows_words('a,é中,', ',')", "", {K::Text, K::Text}, "a|a; é中|é; |NULL", ""},
        {"SELECT count(*) FROM k_rows_words(NULL, ',')", "", {K::Int}, "0", ""},
        {"SELECT * FROM k_rows_maybe(NULL)", "", {K::Int}, "NULL", ""},
        {"SELECT * FROM k_rows_maybe(21)", "", {K::Int}, "21; 42", ""},
        {"SELECT * FROM k_rows_halves(3)", "", {K::Float, K::Bool}, "1.5|false; 0.75|true; 0.375|true", ""},
        // An error at row k: the statement fails with the Keal line.
        {"SELECT * FROM k_rows_until_zero(10, 4)", "", {K::Int, K::Int}, "error: corpus_rows.keal:60: division by zero", "22012"},
        // At the first row (SQLite: inside xFilter, not xNext).
        {"SELECT * FROM k_rows_until_zero(10, 1)", "", {K::Int, K::Int}, "error: corpus_rows.keal:60: division by zero", "22012"},
        {"SELECT * FROM k_rows_overflow(10)", "", {K::Int}, "error: corpus_rows.keal:73: integer overflow", "22003"},
        {"SELECT * FROM k_rows_overflow(1)", "", {K::Int}, "error: corpus_rows.keal:70: stopped after 1 rows", "22023"},
        // A LIMIT stops it early: before the error, and on a function that never ends.
        {"SELECT (r).i, (r).q FROM (SELECT k_rows_until_zero(10, 4) AS r LIMIT 3) AS s",
         "SELECT * FROM k_rows_until_zero(10, 4) LIMIT 3", {K::Int, K::Int}, "1|33; 2|50; 3|100", ""},
        {"SELECT k_rows_overflow(10) LIMIT 2", "SELECT * FROM k_rows_overflow(10) LIMIT 2", {K::Int},
         "9223372036854775806; 9223372036854775807", ""},
        {"SELECT k_rows_forever(7) LIMIT 5", "SELECT * FROM k_rows_forever(7) LIMIT 5", {K::Int}, "7; 8; 9; 10; 11", ""},
    };
}

TEST_F(ThreeServers, RowsFunctionsGiveTheSameRowsAndErrorsOnPostgresAndSqlite) {
    for (const RowsCase& c : rows_corpus()) {
        SCOPED_TRACE(c.sql);
        const Outcome pg = rows_on_postgres(c.sql, c.columns, "corpus_rows.keal");
        const Outcome lite = sqlite_rows_->rows(c.sqlite_sql.empty() ? c.sql : c.sqlite_sql, c.columns, "corpus_rows.keal");
        EXPECT_EQ(pg.rendered, c.expected);
        EXPECT_EQ(lite.rendered, pg.rendered) << "SQLite differs from PostgreSQL";
        EXPECT_EQ(pg.sqlstate, c.pg_sqlstate);
    }
}

// MariaDB UDFs cannot return sets: each rows function of the corpus is a
// compile-time error naming it and its line.
TEST_F(ThreeServers, MariadbRefusesEveryRowsFunctionAtCompileTime) {
    const e2e::CommandResult r = e2e::run_keal({"check", e2e::program_path("corpus_rows.keal"), "--target", "mariadb"});
    EXPECT_NE(r.exit_code, 0);
    std::size_t refusals = 0;
    for (std::size_t at = r.output.find("UDFs cannot return sets"); at != std::string::npos;
         at = r.output.find("UDFs cannot return sets", at + 1))
        ++refusals;
    EXPECT_EQ(refusals, 8U) << r.output;
    EXPECT_THAT(r.output, ::testing::HasSubstr("corpus_rows.keal:10:47: error: function 'k_rows_count' returns rows; MariaDB UDFs "
                                               "cannot return sets, so --target mariadb has no rows functions"));
}

}  // namespace
}  // namespace keal::servers
