// Embedded SQL in PostgreSQL functions, against the private server: every
// form, parameters, NULLs, the SQLSTATEs (P0002, P0003, 22004, 42804, and a
// server error's own), nested statements, cursors closed on break and
// return, a 10-million-row loop, a text loop in constant memory,
// cancellation, one prepare per statement per backend, volatility, and the
// docs' example program.
#include "keal_database.hpp"
#include "sql_compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#ifndef KEAL_DOCS
#error "KEAL_DOCS must name docs/keal.md (set by CMake)"
#endif

namespace keal::e2e {
namespace {

using ::testing::HasSubstr;

class EmbeddedSql : public ::testing::Test {
protected:
    void SetUp() override {
        db().exec(
            "CREATE TABLE IF NOT EXISTS es_users (id int PRIMARY KEY, name text NOT NULL, score float8);"
            "CREATE TABLE IF NOT EXISTS es_orders (user_id int, amount int);"
            "CREATE TABLE IF NOT EXISTS es_log (msg text);"
            "TRUNCATE es_users, es_orders, es_log;"
            "INSERT INTO es_users VALUES (1, 'ann', 1.5), (2, 'bob', NULL), (3, 'cyrille', 2.0), (4, 'dee', 2.0);"
            "INSERT INTO es_orders VALUES (1, 10), (1, 5), (3, 7);"
            "DROP TABLE IF EXISTS es_kinds; CREATE TABLE es_kinds (v int); INSERT INTO es_kinds VALUES (1);"
            // Values stored out of line (TOAST): md5 text barely compresses.
            "CREATE TABLE IF NOT EXISTS es_big (id int, body text); TRUNCATE es_big;"
            "INSERT INTO es_big SELECT n, (SELECT string_agg(md5((n * 10000 + i)::text), '') FROM generate_series(1, n * 500) i)"
            " FROM generate_series(1, 4) n;");
        KealDatabase::get().deploy("embedded_sql.keal");
    }
    PgConnection& db() { return KealDatabase::get().sql(); }
    static std::string at_line_of(const std::string& needle) {
        return "embedded_sql.keal:" + std::to_string(line_of("embedded_sql.keal", needle));
    }
};

TEST_F(EmbeddedSql, LoopsOverRowsWithBoundParameters) {
    EXPECT_EQ(db().scalar("SELECT total_score(1)"), "5.5");
    EXPECT_EQ(db().scalar("SELECT total_score(2)"), "4");
    EXPECT_EQ(db().scalar("SELECT total_score(99)"), "0");
    // The function runs once per row of an outer query, reusing its plan.
    EXPECT_EQ(db().scalar("SELECT sum(total_score(n)) FROM generate_series(1, 5) n"), "15.5");
}

TEST_F(EmbeddedSql, QueryOneReturnsItsValue) {
    EXPECT_EQ(db().scalar("SELECT count_users()"), "4");
    EXPECT_EQ(db().scalar("SELECT user_name(3)"), "cyrille");
    EXPECT_EQ(db().scalar("SELECT score_of(1)"), "1.5");
    EXPECT_EQ(db().scalar("SELECT score_or_null(2)"), std::nullopt);
    EXPECT_EQ(db().scalar("SELECT user_row(1)"), "ann 1.5");
    EXPECT_EQ(db().scalar("SELECT user_row(2)"), "bob (no score)");
}

TEST_F(EmbeddedSql, NoRowIsP0002AndMoreThanOneIsP0003) {
    const ServerError none = db().expect_error("SELECT user_name(99)");
    EXPECT_EQ(none.sqlstate, "P0002") << none.message;
    EXPECT_THAT(none.message, HasSubstr(at_line_of("select name from es_users where id = $1")));
    EXPECT_THAT(none.message, HasSubstr("query returned no rows"));
    const ServerError many = db().expect_error("SELECT name_with_score(2.0)");
    EXPECT_EQ(many.sqlstate, "P0003") << many.message;
    EXPECT_THAT(many.message, HasSubstr("more than one row"));
    EXPECT_EQ(db().scalar("SELECT name_with_score(1.5)"), "ann");
}

TEST_F(EmbeddedSql, NullForANonNullableTypeIs22004NamingTheColumn) {
    const ServerError e = db().expect_error("SELECT score_of(2)");
    EXPECT_EQ(e.sqlstate, "22004") << e.message;
    EXPECT_THAT(e.message, HasSubstr(at_line_of("select score from es_users where id = $1")));
    EXPECT_THAT(e.message, HasSubstr("column value of the query is NULL, but it is declared float"));
}

TEST_F(EmbeddedSql, ExecBindsTextAndNullParameters) {
    db().exec("SELECT add_log('it''s; drop table es_users; --')");
    db().exec("SELECT add_log_maybe(NULL)");
    db().exec("SELECT add_log_maybe('x')");
    const Rows rows = db().query("SELECT msg FROM es_log ORDER BY msg NULLS FIRST");
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0][0], std::nullopt);
    EXPECT_EQ(rows[1][0], "it's; drop table es_users; --");
    EXPECT_EQ(rows[2][0], "x");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM es_users"), "4");
}

TEST_F(EmbeddedSql, AServerErrorKeepsItsSqlstateAndNamesTheKealLine) {
    EXPECT_EQ(db().scalar("SELECT ratio(7, 2)"), "3");
    const ServerError e = db().expect_error("SELECT ratio(1, 0)");
    EXPECT_EQ(e.sqlstate, "22012") << e.message;
    EXPECT_THAT(e.detail, HasSubstr(at_line_of("select $1 / $2") + ": embedded SQL statement"));
}

TEST_F(EmbeddedSql, ColumnsThatDoNotMatchTheDeclarationAre42804) {
    EXPECT_EQ(db().scalar("SELECT numeric_rows_as_int()"), "1");
    // Deployed (and checked) while es_kinds was (v int); changed since.
    db().exec("ALTER TABLE es_kinds ALTER COLUMN v TYPE numeric; ALTER TABLE es_kinds ADD COLUMN w int");
    // A query loop checks on its first row, before reading any value.
    const ServerError loop = db().expect_error("SELECT numeric_rows_as_int()");
    EXPECT_EQ(loop.sqlstate, "42804") << loop.message;
    EXPECT_THAT(loop.message, HasSubstr(at_line_of("select v from es_kinds\" () as (v: int)") +
                                        ": column 1 (v) of the query is numeric, but it is declared int"));
    const ServerError type = db().expect_error("SELECT numeric_as_int()");
    EXPECT_EQ(type.sqlstate, "42804");
    EXPECT_THAT(type.message, HasSubstr("column 1 (value) of the query is numeric, but it is declared int"));
    const ServerError count = db().expect_error("SELECT two_columns_as_one()");
    EXPECT_EQ(count.sqlstate, "42804");
    EXPECT_THAT(count.message, HasSubstr("the query returns 2 columns, but 1 is declared"));
}

TEST_F(EmbeddedSql, QueriesAndExecRunInsideAQueryLoop) {
    EXPECT_EQ(db().scalar("SELECT order_totals()"), "4");
    const Rows rows = db().query("SELECT msg FROM es_log ORDER BY msg");
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0][0], "ann spent 15");
    EXPECT_EQ(rows[1][0], "bob spent 0");
    EXPECT_EQ(rows[2][0], "cyrille spent 7");
    EXPECT_EQ(rows[3][0], "dee spent 0");
}

TEST_F(EmbeddedSql, BreakAndReturnCloseTheCursor) {
    PgConnection session = KealDatabase::get().connect();
    session.exec("BEGIN");
    EXPECT_EQ(session.scalar("SELECT first_name_longer_than(3)"), "cyrille");
    EXPECT_EQ(session.scalar("SELECT first_name_longer_than(10)"), std::nullopt);
    EXPECT_EQ(session.scalar("SELECT sum(rows_until(n)) FROM generate_series(1, 200) n"), "20100");
    EXPECT_EQ(session.scalar("SELECT count(*) FROM (SELECT first_name_longer_than(0) FROM generate_series(1, 300)) t"),
              "300");
    // Within the transaction, no cursor was left open by 502 early exits (the
    // loops' cursors are "<unnamed portal N>"; "" is this query's own portal).
    EXPECT_EQ(session.scalar("SELECT count(*) FROM pg_cursors WHERE name <> ''"), "0");
    session.exec("COMMIT");
}

// Streamed loops read 1,000 rows a batch from the executor: every row once
// across the batch boundaries, and nothing a batch changes in what a loop
// sees row by row.
TEST_F(EmbeddedSql, AStreamedLoopSeesEveryRowOnceAcrossBatches) {
    for (int n : {0, 1, 999, 1000, 1001, 2000, 2001, 12345})
        EXPECT_EQ(db().scalar("SELECT count_rows(" + std::to_string(n) + ")"), std::to_string(n)) << n << " rows";
    EXPECT_EQ(db().scalar("SELECT series_sum(0)"), "0");
    EXPECT_EQ(db().scalar("SELECT nulls_and_sum(3000)"), "1000 3000");
    EXPECT_EQ(db().scalar("SELECT nulls_and_sum(0)"), "0 0");
    EXPECT_EQ(db().scalar("SELECT text_lengths(2500)"),
              db().scalar("SELECT sum(2 * length(g::text) + 2) FROM generate_series(1, 2500) g"));
}

TEST_F(EmbeddedSql, ANullIsRaisedWhenTheLoopReachesItsRowNotWhenTheBatchArrives) {
    // The NULL is in the same batch as the rows before it, or in a later one.
    EXPECT_EQ(db().scalar("SELECT sum_until_null(2000, 500, 400)"), "79800");
    EXPECT_EQ(db().scalar("SELECT sum_until_null(2000, 1500, 1200)"), "719400");
    EXPECT_EQ(db().scalar("SELECT first_above(2000, 700, 600)"), "601");
    const std::string sum_line = at_line_of("else g end as v from generate_series(1, $1) g\"");
    const std::string above_line = at_line_of("else g end as v from generate_series(1, $1) as g\"");
    for (const auto& [call, line] : std::vector<std::pair<std::string, std::string>>{
             {"SELECT sum_until_null(2000, 500, 5000)", sum_line},
             {"SELECT sum_until_null(2000, 1500, 5000)", sum_line},
             {"SELECT first_above(2000, 700, 800)", above_line}}) {
        const ServerError e = db().expect_error(call);
        EXPECT_EQ(e.sqlstate, "22004") << call << ": " << e.message;
        EXPECT_THAT(e.message, HasSubstr(line + ": column v of the query is NULL, but it is declared int")) << call;
    }
}

TEST_F(EmbeddedSql, ACharColumnThatIsNotOneCharacterIsRaisedAtItsRow) {
    EXPECT_EQ(db().scalar("SELECT initials(1499)"),
              db().scalar("SELECT sum(65 + g % 26) FROM generate_series(1, 1499) g"));
    const ServerError e = db().expect_error("SELECT initials(2000)");
    EXPECT_EQ(e.sqlstate, "22023") << e.message;
    EXPECT_THAT(e.message, HasSubstr(at_line_of("then 'xy' else chr(") + ": a char column must hold text of exactly one"));
}

TEST_F(EmbeddedSql, ErrorsInTheMiddleOfABatchKeepTheirSqlstateAndLine) {
    EXPECT_EQ(db().scalar("SELECT raise_at(3000, 5000)"), "4501500");
    const ServerError raised = db().expect_error("SELECT raise_at(3000, 1500)");
    EXPECT_EQ(raised.sqlstate, "22023") << raised.message;
    EXPECT_THAT(raised.message, HasSubstr(at_line_of("raise \"stopped at row \"") + ": stopped at row 1500"));
    // The statement fails in the executor while it fills a batch.
    EXPECT_EQ(db().scalar("SELECT divide_rows(3000, 5000)"),
              db().scalar("SELECT sum(1000000 / (g - 5000)) FROM generate_series(1, 3000) g"));
    const ServerError server = db().expect_error("SELECT divide_rows(3000, 2500)");
    EXPECT_EQ(server.sqlstate, "22012") << server.message;
    EXPECT_THAT(server.detail, HasSubstr(at_line_of("select 1000000 / (g - $2)") + ": embedded SQL statement"));
    // The session goes on: later loops open their own cursors.
    EXPECT_EQ(db().scalar("SELECT count_rows(1500)"), "1500");
}

TEST_F(EmbeddedSql, TextsLiveAsLongAsTheLoopNeedsThem) {
    // Kept across batches (the first longest word is row 1,000's).
    EXPECT_EQ(db().scalar("SELECT longest_word(2500)"), "w1000");
    // Values stored out of line are detoasted as they are read.
    EXPECT_EQ(db().scalar("SELECT big_lengths()"), db().scalar("SELECT sum(length(body)) FROM es_big"));
    EXPECT_EQ(db().scalar("SELECT big_lengths()"), "160000");
}

TEST_F(EmbeddedSql, ALoopOverAStatementThatWritesReadsItsReturnedRows) {
    EXPECT_EQ(db().scalar("SELECT log_and_count(2500)"),
              db().scalar("SELECT sum(length('r' || g)) FROM generate_series(1, 2500) g"));
    EXPECT_EQ(db().scalar("SELECT count(*) FROM es_log"), "2500");
}

TEST_F(EmbeddedSql, LoopsNestAndRecurseEachWithItsOwnCursor) {
    EXPECT_EQ(db().scalar("SELECT pairs(60)"),
              db().scalar("SELECT sum(a * b + length('a' || a)) FROM generate_series(1, 60) a, generate_series(1, a) b"));
    EXPECT_EQ(db().scalar("SELECT nested_depth(10)"), "1024");
    PgConnection session = KealDatabase::get().connect();
    session.exec("BEGIN");
    EXPECT_EQ(session.scalar("SELECT sum(sum_until_null(2000, 1500, n)) FROM generate_series(1, 50) n"),
              session.scalar("SELECT sum(n * (n - 1) / 2) FROM generate_series(1, 50) n"));
    EXPECT_EQ(session.scalar("SELECT count(*) FROM pg_cursors WHERE name <> ''"), "0");
    session.exec("COMMIT");
}

TEST_F(EmbeddedSql, TenMillionRowsStream) {
    EXPECT_EQ(db().scalar("SELECT series_sum(10000000)"), "50000005000000");
}

TEST_F(EmbeddedSql, ATextLoopRunsInConstantMemory) {
    // 2,000,000 rows of 200 bytes: 400 MB if each row's text were kept.
    PgConnection session = KealDatabase::get().connect();
    const std::string pid = session.scalar("SELECT pg_backend_pid()").value();
    auto peak_kb = [&pid] {
        std::ifstream status("/proc/" + pid + "/status");
        std::string line;
        while (std::getline(status, line))
            if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
        throw std::runtime_error("no VmHWM for backend " + pid);
    };
    EXPECT_EQ(session.scalar("SELECT text_bytes(1000)"), "200000");
    const long long before = peak_kb();
    EXPECT_EQ(session.scalar("SELECT text_bytes(2000000)"), "400000000");
    const long long grown_mb = (peak_kb() - before) / 1024;
    EXPECT_LT(grown_mb, 64) << "the backend's peak memory grew by " << grown_mb << " MB";
}

TEST_F(EmbeddedSql, StatementTimeoutStopsAQueryLoop) {
    PgConnection session = KealDatabase::get().connect();
    session.exec("SET statement_timeout = '300ms'");
    const ServerError e = session.expect_error("SELECT spin_rows()");
    EXPECT_EQ(e.sqlstate, "57014") << e.message;
    session.exec("RESET statement_timeout");
    EXPECT_EQ(session.scalar("SELECT series_sum(3)"), "6");
}

TEST_F(EmbeddedSql, EachStatementIsPreparedOncePerBackend) {
    PgConnection session = KealDatabase::get().connect();
    std::vector<std::string> prepared;
    session.connection().set_notice_handler([&](const sluice::postgres::ServerDiagnostics& d) {
        if (d.message.rfind("keal: prepared ", 0) == 0) prepared.push_back(d.message);
    });
    session.exec("SET client_min_messages = debug1");
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(session.scalar("SELECT count_users()"), "4");
        EXPECT_EQ(session.scalar("SELECT total_score(1)"), "5.5");
    }
    EXPECT_EQ(session.scalar("SELECT sum(total_score(n)) FROM generate_series(1, 100) n"), "15.5");
    session.exec("RESET client_min_messages");
    ASSERT_EQ(prepared.size(), 2u) << ::testing::PrintToString(prepared);
    EXPECT_EQ(prepared[0], "keal: prepared " + at_line_of("select count(*) from es_users"));
    EXPECT_EQ(prepared[1], "keal: prepared " + at_line_of("select id, score from es_users where id >= $1"));
}

TEST_F(EmbeddedSql, VolatilityFollowsWhatAFunctionReaches) {
    auto volatility = [&](const std::string& f) {
        return db().scalar("SELECT provolatile::text FROM pg_proc WHERE proname = '" + f + "'").value();
    };
    EXPECT_EQ(volatility("total_score"), "s");
    EXPECT_EQ(volatility("count_users"), "s");
    EXPECT_EQ(volatility("add_log"), "v");
    EXPECT_EQ(volatility("order_totals"), "v");
    EXPECT_EQ(volatility("pure_double"), "i");
}

// The example program of docs/keal.md's "Embedded SQL" section, as written.
std::string docs_example() {
    std::ifstream in(KEAL_DOCS);
    std::string line;
    std::string program;
    bool marked = false;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line == "<!-- keal: e2e docs_embedded_sql -->") marked = true;
        else if (marked && !inside && line == "```keal") inside = true;
        else if (inside && line == "```") return program;
        else if (inside) program += line + "\n";
    }
    throw std::runtime_error(std::string("no docs_embedded_sql example in ") + KEAL_DOCS);
}

TEST_F(EmbeddedSql, TheDocsExampleRuns) {
    db().exec("CREATE TABLE IF NOT EXISTS users (id int PRIMARY KEY, name text NOT NULL, score float8);"
              "CREATE TABLE IF NOT EXISTS log (msg text); TRUNCATE users, log;"
              "INSERT INTO users VALUES (1, 'ann', 1.5), (2, 'bob', NULL), (3, 'cy', 2.0)");
    const std::string path = testing::TempDir() + "/docs_embedded_sql.keal";
    std::ofstream(path) << docs_example();
    const CommandResult r = run_keal({"deploy", path, "--db", KealDatabase::get().url()});
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(db().scalar("SELECT total_score(2)"), "2");
    EXPECT_EQ(db().scalar("SELECT count_users()"), "3");
    EXPECT_EQ(db().scalar("SELECT msg FROM log"), "counted 3");
    EXPECT_EQ(db().scalar("SELECT user_name(3)"), "cy");
    EXPECT_EQ(db().expect_error("SELECT user_name(4)").sqlstate, "P0002");
}

}  // namespace
}  // namespace keal::e2e

namespace keal::e2e {
namespace {

// `keal check --db`: statements described against the live database.
TEST_F(EmbeddedSql, CheckWithDbReportsWhatOnlyTheDatabaseKnows) {
    const CommandResult r = run_keal({"check", program_path("db_check_errors.keal"), "--db", KealDatabase::get().url()});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const std::string& out = r.output;
    auto at = [](const std::string& needle) {
        return "db_check_errors.keal:" + std::to_string(line_of("db_check_errors.keal", needle)) + ":";
    };
    EXPECT_THAT(out, HasSubstr(at("no_such_table") + "44: error: the database rejects this statement: relation "
                                                     "\"no_such_table\" does not exist [42P01]"));
    EXPECT_THAT(out, HasSubstr(at("select nme") + "30: error: the database rejects this statement: column \"nme\" "
                                                  "does not exist [42703]"));
    EXPECT_THAT(out, HasSubstr(at("select name from es_users where id = 1") +
                               "22: error: the value is text in the database (\"name\"), but it is declared int"));
    EXPECT_THAT(out, HasSubstr(at("select id, name from es_users") +
                               "20: error: the statement returns 2 columns but 1 is declared"));
    EXPECT_THAT(out, HasSubstr(at("where id = $1\" (name)") + "62: error: the database rejects this statement: "
                                                         "operator does not exist: integer = text [42883]"));
    EXPECT_THAT(out, HasSubstr(at("delete es_log") + "18: error: the database rejects this statement: syntax error"));
    EXPECT_THAT(out, HasSubstr(at("select score from es_users") +
                               "22: warning: the value may be NULL in the database (es_users.score has no NOT NULL)"));
    EXPECT_THAT(out, HasSubstr("6 errors generated."));
    // Without --db the same program passes: only the database knows.
    EXPECT_EQ(run_keal({"check", program_path("db_check_errors.keal")}).exit_code, 0);
}

TEST_F(EmbeddedSql, CheckWithDbPassesACorrectProgramWithItsWarning) {
    const CommandResult r = run_keal({"check", program_path("db_check_ok.keal"), "--db", KealDatabase::get().url()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("warning: the value may be NULL in the database"));
    EXPECT_EQ(r.output.find("doubled"), std::string::npos) << "an expression is trusted as declared:\n" << r.output;
}

TEST_F(EmbeddedSql, CheckWithAnUnreachableDbIsAClearError) {
    const CommandResult r = run_keal(
        {"check", program_path("db_check_ok.keal"), "--db", "postgresql://nobody@127.0.0.1:1/none?connect_timeout=5"});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("keal: error: cannot connect to nobody@127.0.0.1:1/none"));
}

// The driver's one error style: describe_statements returns the failure
// as a value and `keal describe` prints it; the file is not written.
TEST_F(EmbeddedSql, DescribeWithAnUnreachableDbIsAClearErrorAndWritesNoFile) {
    const std::string schema = testing::TempDir() + "/unreachable.descriptions";
    std::remove(schema.c_str());
    const CommandResult r = run_keal({"describe", program_path("db_check_ok.keal"), "--db",
                                      "postgresql://nobody@127.0.0.1:1/none?connect_timeout=5", "-o", schema});
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("keal: error: cannot connect to nobody@127.0.0.1:1/none"));
    EXPECT_FALSE(std::ifstream(schema).good()) << schema;
}

}  // namespace
}  // namespace keal::e2e

namespace keal::e2e {
namespace {

// `keal describe -o FILE` then `--schema FILE`: the same findings without a
// database, and a file that no longer matches the program is reported.
TEST_F(EmbeddedSql, DescribeThenCheckOfflineAgainstTheSchemaFile) {
    const std::string schema = testing::TempDir() + "/db_check_errors.descriptions";
    const CommandResult described =
        run_keal({"describe", program_path("db_check_errors.keal"), "--db", KealDatabase::get().url(), "-o", schema});
    ASSERT_EQ(described.exit_code, 0) << described.output;
    EXPECT_THAT(described.output, HasSubstr("described 7 statements into " + schema));
    const CommandResult online = run_keal({"check", program_path("db_check_errors.keal"), "--db", KealDatabase::get().url()});
    const CommandResult offline = run_keal({"check", program_path("db_check_errors.keal"), "--schema", schema});
    EXPECT_EQ(offline.exit_code, 1);
    EXPECT_EQ(offline.output, online.output);
    EXPECT_THAT(offline.output, HasSubstr("6 errors generated."));

    // The program changes: a statement the file does not describe is stale.
    std::ifstream in(program_path("db_check_ok.keal"));
    std::stringstream text;
    text << in.rdbuf();
    const std::string ok_schema = testing::TempDir() + "/db_check_ok.descriptions";
    ASSERT_EQ(run_keal({"describe", program_path("db_check_ok.keal"), "--db", KealDatabase::get().url(), "-o", ok_schema})
                  .exit_code,
              0);
    EXPECT_EQ(run_keal({"check", program_path("db_check_ok.keal"), "--schema", ok_schema}).exit_code, 0);
    std::string changed = text.str();
    changed.replace(changed.find("select score from es_users"), 26, "select score from es_orders");
    const std::string changed_path = testing::TempDir() + "/db_check_ok.keal";
    std::ofstream(changed_path) << changed;
    const CommandResult stale = run_keal({"check", changed_path, "--schema", ok_schema});
    EXPECT_EQ(stale.exit_code, 1) << stale.output;
    EXPECT_THAT(stale.output, HasSubstr("has no description; " + ok_schema + " is stale: describe the program again"));
}

}  // namespace
}  // namespace keal::e2e
