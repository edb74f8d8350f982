// --target sqlite: the loadable extension in an in-memory database. What
// only SQLite has: deterministic registration (usable in an index), explicit
// argument types against SQLite's dynamic typing, and a runaway loop stopped
// by sqlite3_interrupt or the progress handler.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>
#include <thread>

#include "keal_database.hpp"
#include "sqlite_session.hpp"

#ifndef KEAL_DOCS
#error "KEAL_DOCS must name docs/keal.md (set by CMake)"
#endif

namespace keal::servers {
namespace {

using ::testing::HasSubstr;

class SqliteTarget : public ::testing::Test {
protected:
    SqliteSession corpus{sqlite_extension("corpus.keal")};
    Outcome q(const std::string& sql, Kind k = Kind::Int) { return corpus.query(sql, k, "corpus.keal"); }
};

TEST_F(SqliteTarget, PureFunctionsAreDeterministicSoAnIndexMayUseThem) {
    // SQLite refuses non-deterministic functions in index expressions.
    corpus.exec("CREATE TABLE t(n INTEGER)");
    corpus.exec("CREATE INDEX t_steps ON t(k_steps(n))");
    corpus.exec("INSERT INTO t VALUES (27), (97), (871)");
    EXPECT_EQ(q("SELECT n FROM t WHERE k_steps(n) = 118").rendered, "97");
    EXPECT_EQ(q("SELECT count(*) FROM t WHERE k_steps(n) > 100").rendered, "3");
}

TEST_F(SqliteTarget, ArgumentsAreCheckedNotCoerced) {
    EXPECT_EQ(q("SELECT k_steps('27')").rendered,
              "error: corpus.keal: k_steps(): argument 1 (n) must be an INTEGER (Keal int), not a TEXT");
    EXPECT_EQ(q("SELECT k_steps(27.0)").rendered,
              "error: corpus.keal: k_steps(): argument 1 (n) must be an INTEGER (Keal int), not a REAL");
    EXPECT_EQ(q("SELECT k_steps(X'01')").rendered,
              "error: corpus.keal: k_steps(): argument 1 (n) must be an INTEGER (Keal int), not a BLOB");
    // An INTEGER for a float is widened, as PostgreSQL casts bigint to double.
    EXPECT_EQ(q("SELECT k_hypot(3, 4)", Kind::Float).rendered, "5");
    EXPECT_EQ(q("SELECT k_hypot('3', 4)", Kind::Float).rendered,
              "error: corpus.keal: k_hypot(): argument 1 (a) must be a REAL or an INTEGER (Keal float), not a TEXT");
    EXPECT_EQ(q("SELECT k_both(1, 2)", Kind::Bool).rendered,
              "error: corpus.keal: k_both(): argument 2 (b) must be 0 or 1 (Keal bool), not another INTEGER");
    EXPECT_EQ(q("SELECT k_vowels(42)").rendered,
              "error: corpus.keal: k_vowels(): argument 1 (s) must be a TEXT (Keal text), not an INTEGER");
    // Text that is not UTF-8 never reaches Keal.
    EXPECT_EQ(q("SELECT k_vowels(CAST(X'61C3' AS TEXT))").rendered,
              "error: corpus.keal: k_vowels(): argument 1 (s) must be valid UTF-8 text, not bytes that are not (or contain NUL)");
    // The wrong number of arguments is SQLite's own error.
    EXPECT_THAT(q("SELECT k_steps(1, 2)").rendered, HasSubstr("wrong number of arguments to function k_steps()"));
}

// [T] parameters are JSON array text, checked element by element; results
// are JSON array text as PostgreSQL's array_to_json writes it.
TEST_F(SqliteTarget, ArrayArgumentsAreCheckedJson) {
    EXPECT_EQ(q("SELECT k_arr_sum(' [1, 2 ,3] ')").rendered, "6");
    EXPECT_EQ(q("SELECT k_arr_sum('[1, 2')").rendered,
              "error: corpus.keal:183: argument xs is not valid JSON: The JSON document has an improper structure: missing or "
              "superfluous commas, braces, missing keys, etc.");
    EXPECT_EQ(q("SELECT k_arr_sum('{\"a\": 1}')").rendered,
              "error: corpus.keal:183: argument xs must be a JSON array (Keal [int]), not an object");
    EXPECT_EQ(q("SELECT k_arr_sum('[1, \"2\"]')").rendered,
              "error: corpus.keal:183: argument xs: element 1 is a string, not a Keal int");
    EXPECT_EQ(q("SELECT k_arr_sum('[1.5]')").rendered,
              "error: corpus.keal:183: argument xs: element 0 is a number with a fraction or exponent, not a Keal int");
    EXPECT_EQ(q("SELECT k_arr_sum('[[1]]')").rendered, "error: corpus.keal:183: argument xs: element 0 is an array, not a Keal int");
    EXPECT_EQ(q("SELECT k_arr_sum('[18446744073709551615]')").rendered,
              "error: corpus.keal:183: argument xs: element 0 is out of range for int");
    EXPECT_EQ(q("SELECT k_arr_sum(42)").rendered,
              "error: corpus.keal: k_arr_sum(): argument 1 (xs) must be a TEXT of a JSON array (a Keal array), not an INTEGER");
    EXPECT_EQ(q("SELECT k_arr_at('[\"a\", \"b\\u0000\"]', 0)", Kind::Text).rendered,
              "error: corpus.keal:195: argument xs: element 1 holds \\u0000, which a text cannot");
    // float takes integers (as PostgreSQL casts bigint to double); bool only true and false.
    EXPECT_EQ(q("SELECT k_arr_scale('[1, 2.5]', 2.0)", Kind::Text).rendered, "[2,5]");
    EXPECT_EQ(q("SELECT k_arr_negate('[1]')", Kind::Text).rendered,
              "error: corpus.keal:223: argument xs: element 0 is an integer, not a Keal bool");
    // Escapes in, escapes out: a result is JSON as PostgreSQL's array_to_json writes it.
    EXPECT_EQ(q(R"(SELECT k_arr_words('tab' || char(9) || 'here "q" \ ' || char(1)))", Kind::Text).rendered,
              R"(["tab\there","\"q\"","\\","\u0001"])");
    EXPECT_EQ(q("SELECT k_arr_scale('[1e308]', 10.0)", Kind::Text).rendered, "[\"Infinity\"]");
}

TEST_F(SqliteTarget, NullForANonNullableParameterIsNullWithoutACall) {
    EXPECT_EQ(q("SELECT k_steps(NULL) IS NULL").rendered, "1");
    // Not even a type check runs for NULL: an int parameter's NULL is fine.
    EXPECT_EQ(q("SELECT k_middle(NULL, 1, 2) IS NULL").rendered, "1");
    EXPECT_EQ(q("SELECT k_describe(NULL)", Kind::Text).rendered, "nothing");
}

TEST_F(SqliteTarget, ErrorsCarryTheKealLineAndTheConnectionGoesOn) {
    EXPECT_EQ(q("SELECT k_mul(9223372036854775807, 2)").rendered, "error: corpus.keal:20: integer overflow");
    EXPECT_EQ(q("SELECT k_steps(27)").rendered, "111");
    // Within a statement over many rows, the first failing row stops it.
    EXPECT_EQ(q("SELECT sum(k_div(100, column1)) FROM (VALUES (-3), (-2), (-1), (0), (1), (2), (3))").rendered,
              "error: corpus.keal:24: division by zero");
}

TEST_F(SqliteTarget, DeepRecursionIsAnErrorNotACrash) {
    SqliteSession runaway(sqlite_extension("runaway.keal"));
    EXPECT_EQ(runaway.query("SELECT keal_depth(1000)", Kind::Int, "runaway.keal").rendered, "1000");
    EXPECT_EQ(runaway.query("SELECT keal_depth(100000000)", Kind::Int, "runaway.keal").rendered,
              "error: runaway.keal:24: stack depth limit exceeded");
    EXPECT_EQ(runaway.query("SELECT keal_depth(10)", Kind::Int, "runaway.keal").rendered, "10");
}

int stop_after_calls(void* calls) {
    return ++*static_cast<int*>(calls) > 20 ? 1 : 0;
}

TEST_F(SqliteTarget, TheProgressHandlerStopsARunawayLoop) {
    SqliteSession runaway(sqlite_extension("runaway.keal"));
    int calls = 0;
    sqlite3_progress_handler(runaway.db(), 1, stop_after_calls, &calls);
    int code = 0;
    const Outcome o = runaway.query("SELECT keal_spin(1)", Kind::Int, "runaway.keal", &code);
    EXPECT_EQ(code, SQLITE_INTERRUPT);
    EXPECT_EQ(o.rendered, "error: runaway.keal: interrupted (sqlite3_interrupt or the progress handler)");
    EXPECT_GT(calls, 20);
    sqlite3_progress_handler(runaway.db(), 0, nullptr, nullptr);
    EXPECT_EQ(runaway.query("SELECT keal_spin_range(2000)", Kind::Int, "runaway.keal").rendered, "0");
}

TEST_F(SqliteTarget, Sqlite3InterruptStopsARunawayLoop) {
    SqliteSession runaway(sqlite_extension("runaway.keal"));
    // sqlite3_interrupt only stops what is running: keep interrupting from
    // another thread until the loop has been stopped.
    std::atomic<bool> done{false};
    std::thread interrupter([&] {
        while (!done.load()) {
            sqlite3_interrupt(runaway.db());
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    });
    int code = 0;
    const Outcome o = runaway.query("SELECT keal_spin_range(9223372036854775807)", Kind::Int, "runaway.keal", &code);
    done = true;
    interrupter.join();
    EXPECT_EQ(code, SQLITE_INTERRUPT);
    EXPECT_EQ(o.rendered, "error: runaway.keal: interrupted (sqlite3_interrupt or the progress handler)");
}

// Rows functions are table-valued functions (eponymous-only virtual tables):
// the arguments are checked as a scalar function's, each is required, and
// they are the hidden columns of the same names.
class SqliteRows : public ::testing::Test {
protected:
    SqliteSession rows{sqlite_extension("corpus_rows.keal")};
    Outcome q(const std::string& sql, std::vector<Kind> kinds = {Kind::Int}, int* code = nullptr) {
        return rows.rows(sql, kinds, "corpus_rows.keal", code);
    }
};

TEST_F(SqliteRows, ArgumentsAreCheckedAndRequired) {
    EXPECT_EQ(q("SELECT * FROM k_rows_count('1', 3)").rendered,
              "error: corpus_rows.keal: k_rows_count(): argument 1 (from) must be an INTEGER (Keal int), not a TEXT");
    EXPECT_EQ(q("SELECT * FROM k_rows_words(X'00', NULL)").rendered,
              "error: corpus_rows.keal: k_rows_words(): argument 1 (s) must be a TEXT (Keal text), not a BLOB");
    EXPECT_EQ(q("SELECT * FROM k_rows_words('a', 'bc')").rendered,
              "error: corpus_rows.keal: k_rows_words(): argument 2 (sep) must be a TEXT of exactly one character (Keal char), "
              "not a longer or empty TEXT");
    EXPECT_EQ(q("SELECT * FROM k_rows_count(1)").rendered,
              "error: corpus_rows.keal: k_rows_count(): argument 2 (to) is missing: call it as k_rows_count(from, to)");
    // Too many is SQLite's own error.
    EXPECT_THAT(q("SELECT * FROM k_rows_count(1, 2, 3)").rendered, HasSubstr("too many arguments on k_rows_count() - max 2"));
    // The connection goes on.
    EXPECT_EQ(q("SELECT count(*) FROM k_rows_count(1, 3)").rendered, "3");
}

TEST_F(SqliteRows, TheArgumentsAreHiddenColumns) {
    EXPECT_EQ(q("SELECT n, \"from\", \"to\" FROM k_rows_count(2, 3)", {Kind::Int, Kind::Int, Kind::Int}).rendered, "2|2|3; 3|2|3");
    // The same call written as constraints on the hidden columns.
    EXPECT_EQ(q("SELECT n FROM k_rows_count WHERE \"from\" = 1 AND \"to\" = 2").rendered, "1; 2");
    // A further constraint on an argument's column is checked against it.
    EXPECT_EQ(q("SELECT n FROM k_rows_count(1, 2) WHERE \"to\" = 5").rendered, "(no rows)");
    // SELECT * shows the rows' columns only.
    EXPECT_EQ(q("SELECT * FROM k_rows_maybe(4)").rendered, "4; 8");
}

TEST_F(SqliteRows, ItIsEponymousOnlyAndInnocuous) {
    int code = 0;
    EXPECT_EQ(q("CREATE VIRTUAL TABLE counted USING k_rows_count", {Kind::Int}, &code).rendered,
              "error: no such module: k_rows_count");
    // Pure, so a view may use it even where the schema is not trusted.
    rows.exec("CREATE VIEW first_squares AS SELECT square FROM k_rows_count(1, 3); PRAGMA trusted_schema = OFF");
    EXPECT_EQ(q("SELECT sum(square) FROM first_squares").rendered, "14");
}

TEST_F(SqliteRows, TheProgressHandlerStopsARunawayLoopInside) {
    int calls = 0;
    sqlite3_progress_handler(rows.db(), 1, stop_after_calls, &calls);
    int code = 0;
    const Outcome o = q("SELECT * FROM k_rows_spin(9223372036854775807)", {Kind::Int}, &code);
    EXPECT_EQ(code, SQLITE_INTERRUPT);
    EXPECT_EQ(o.rendered, "error: corpus_rows.keal: interrupted (sqlite3_interrupt or the progress handler)");
    sqlite3_progress_handler(rows.db(), 0, nullptr, nullptr);
    EXPECT_EQ(q("SELECT * FROM k_rows_spin(2000)").rendered, "0");
}

// Texts a body keeps across yields live in the cursor's arena: many rows of
// built texts (the arena grows over many blocks meanwhile) come out intact;
// texts freed at a yield would be overwritten by the next rows' texts.
TEST_F(SqliteRows, TextsKeptAcrossYieldsStayValid) {
    std::string text;
    for (int i = 0; i < 3000; ++i) {
        text += (i ? "," : "") + std::to_string(i);
    }
    const Outcome o = q("SELECT count(*), sum(length(word)), max(first) FROM k_rows_words('" + text + "', ',')",
                        {Kind::Int, Kind::Int, Kind::Text});
    // 3000 words: 10 of one digit, 90 of two, 900 of three, 2000 of four.
    EXPECT_EQ(o.rendered, "3000|10890|9");
}

// docs/keal.md's SQLite rows-function example, as written: the program
// after the marker, and each line of the SQL block after it, `SQL;  --
// answer`, run with its answer compared.
struct DocsExample {
    std::string program;
    std::vector<std::pair<std::string, std::string>> queries;
};

DocsExample docs_example() {
    std::ifstream in(KEAL_DOCS);
    std::string line;
    DocsExample ex;
    enum { Before, Marked, InProgram, AfterProgram, InSql } at = Before;
    while (std::getline(in, line)) {
        if (at == Before && line == "<!-- keal: target sqlite, e2e docs_sqlite_rows -->") at = Marked;
        else if (at == Marked && line == "```keal") at = InProgram;
        else if (at == InProgram && line == "```") at = AfterProgram;
        else if (at == InProgram) ex.program += line + "\n";
        else if (at == AfterProgram && line == "```sql") at = InSql;
        else if (at == InSql && line == "```") return ex;
        else if (at == InSql) {
            const std::size_t comment = line.rfind(" -- ");
            if (comment == std::string::npos) throw std::runtime_error("no answer on docs line: " + line);
            std::string sql = line.substr(0, comment);
            while (!sql.empty() && sql.back() == ' ') sql.pop_back();
            ex.queries.emplace_back(sql, line.substr(comment + 4));
        }
    }
    throw std::runtime_error(std::string("no docs_sqlite_rows example in ") + KEAL_DOCS);
}

TEST_F(SqliteRows, TheDocsExampleRuns) {
    const DocsExample ex = docs_example();
    const std::string path = ::testing::TempDir() + "/squares.keal";
    std::ofstream(path) << ex.program;
    const std::string so = ::testing::TempDir() + "/squares-sqlite.so";
    const e2e::CommandResult r = e2e::run_keal({"build", path, "--target", "sqlite", "-o", so});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    SqliteSession docs(so);
    ASSERT_GE(ex.queries.size(), 5U);
    for (const auto& [sql, answer] : ex.queries) {
        // Every column as text: SQLite's own text of an INTEGER is its decimal.
        EXPECT_EQ(docs.rows(sql, {}, "squares.keal").rendered, answer) << sql;
    }
}

}  // namespace
}  // namespace keal::servers
