// Embedded SQL in native clients (--target native), against the private
// server: every query form with its NULLs, parameters of every type, the
// SQLSTATEs (P0002, P0003, 22004, 42804, a server error's own, a failed
// connection), nested queries with begin/commit/rollback, break and return,
// one prepare per statement per connection, a 10-million-row loop in
// constant memory, statement_timeout and SIGINT, and docs/keal.md's
// native-client example.
#include "keal_database.hpp"
#include "native_program.hpp"
#include "sql_compare.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#ifndef KEAL_DOCS
#error "KEAL_DOCS must name docs/keal.md (set by CMake)"
#endif

namespace keal::e2e {
namespace {

using ::testing::HasSubstr;

class NativeSql : public ::testing::Test {
protected:
    void SetUp() override {
        db().exec(
            "CREATE TABLE IF NOT EXISTS ns_users (id int PRIMARY KEY, name text NOT NULL, score float8,"
            " active bool NOT NULL, initial text NOT NULL, photo bytea);"
            "CREATE TABLE IF NOT EXISTS ns_orders (user_id int, amount int);"
            "CREATE TABLE IF NOT EXISTS ns_log (msg text);"
            "CREATE TABLE IF NOT EXISTS ns_param (n int8);"
            "TRUNCATE ns_users, ns_orders, ns_log, ns_param;"
            "INSERT INTO ns_users VALUES (1, 'ann', 1.5, true, 'a', '\\x00ff'), (2, 'bob', NULL, false, 'b', NULL),"
            " (3, 'cyrille', 2.0, true, 'c', NULL);"
            "INSERT INTO ns_orders VALUES (1, 10), (1, 5), (3, 7);");
    }
    static PgConnection& db() { return KealDatabase::get().sql(); }
    static std::map<std::string, std::string> env() { return {{"DATABASE_URL", KealDatabase::get().url()}}; }
    // Builds and runs a program given as text (named NAME.keal in messages).
    static ProgramRun run_text(const std::string& name, const std::string& text) {
        return NativeProgram::from_text(name, text).run(env());
    }
};

TEST_F(NativeSql, EveryQueryFormNullsNestedQueriesAndTransactions) {
    const ProgramRun r = NativeProgram(program_path("native_sql.keal")).run(env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out,
              "users: 3\n"
              "user 3: cyrille\n"
              "score of 2: null\n"
              "1 ann 1.5 true a \\x00ff\n"
              "7 8 1.25 [pad  ] nm vc\n"
              "row 2 (no score)\n"
              "row 3 2\n"
              "total from 2: 2\n"
              "echo: it's; --|42|2.5|NULL|true|6869\n"
              "char: \xc3\xa9 1\n"
              "log:   ann order 10\n"
              "log:   ann order 5\n"
              "log:   cyrille order 7\n"
              "log: ann spent 15\n"
              "log: bob spent 0\n"
              "log: cyrille spent 7\n"
              "first long name: ann\n"
              "seen: 3 0\n");
    // What the program wrote and committed stays; the rolled back row does not.
    EXPECT_EQ(db().scalar("SELECT count(*) FROM ns_log"), "6");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM ns_log WHERE msg = 'rolled back'"), "0");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM ns_users"), "3");
}

TEST_F(NativeSql, EachStatementIsPreparedOncePerConnection) {
    // Three statements, each run 200 times: three prepares. The program also
    // asks the server, whose pg_prepared_statements lists this session's.
    NativeProgram p = NativeProgram::from_text("prepares", R"K(export fn main() {
    var sum = 0
    for i in 0..200 {
        sum += query one "select $1::int8 + 1" (i) as int
        exec "insert into ns_log(msg) values ($1)" (text(i))
        for r in query "select id from ns_users where id <= $1" (i % 3) as (id: int) {
            sum += r.id
        }
    }
    print(sum, query one "select count(*) from pg_prepared_statements" () as int)
}
)K");
    auto e = env();
    e["KEAL_SQL_TRACE"] = "1";
    const ProgramRun r = p.run(e);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // sum of i+1 over 0..199, plus for i%3 == 1: 1, == 2: 1+2 (66 and 66 times).
    EXPECT_EQ(r.out, std::to_string(200 * 201 / 2 + 67 * 1 + 66 * 3) + " 4\n");
    EXPECT_EQ(r.err,
              "keal: prepared prepares.keal:4\n"
              "keal: prepared prepares.keal:5\n"
              "keal: prepared prepares.keal:6\n"
              "keal: prepared prepares.keal:10\n");
    EXPECT_EQ(db().scalar("SELECT count(*) FROM ns_log"), "200");
}

TEST_F(NativeSql, BreakInsideATransactionKeepsTheTransaction) {
    // Inside BEGIN, stopping a stream early must not cancel it (the cancel's
    // error would abort the transaction): the rest is read and dropped.
    ProgramRun r = run_text("break_in_tx", R"K(export fn main() {
    exec "begin"
    exec "insert into ns_log(msg) values ($1)" ("before")
    var seen = 0
    for r in query "select generate_series(1, 50000)" () as int {
        seen += r
        if seen >= 6 { break }
    }
    exec "insert into ns_log(msg) values ($1)" ("after " + text(seen))
    exec "commit"
}
)K");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Rows rows = db().query("SELECT msg FROM ns_log ORDER BY msg");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0][0], "after 6");
    EXPECT_EQ(rows[1][0], "before");
}

TEST_F(NativeSql, NoRowIsP0002AndMoreThanOneIsP0003) {
    ProgramRun none = run_text("none", "export fn main() {\n    print(\"before\")\n"
                                       "    let n = query one \"select name from ns_users where id = $1\" (99) as text\n"
                                       "    print(n)\n}\n");
    EXPECT_EQ(none.exit_code, 1);
    EXPECT_EQ(none.out, "before\n");
    EXPECT_EQ(none.err, "none.keal:3: error: query returned no rows [P0002]\n");
    ProgramRun many = run_text("many", "export fn main() {\n"
                                       "    let n = query one \"select name from ns_users\" () as text\n    print(n)\n}\n");
    EXPECT_EQ(many.exit_code, 1);
    EXPECT_EQ(many.err, "many.keal:2: error: query returned more than one row [P0003]\n");
}

TEST_F(NativeSql, NullForANonNullableTypeIs22004NamingTheColumn) {
    ProgramRun one = run_text("null_one", "export fn main() {\n"
                                          "    let s = query one \"select score from ns_users where id = 2\" () as float\n"
                                          "    print(s)\n}\n");
    EXPECT_EQ(one.exit_code, 1);
    EXPECT_EQ(one.err, "null_one.keal:2: error: column value of the query is NULL, but it is declared float; declare it "
                       "float? to accept NULL [22004]\n");
    ProgramRun loop = run_text("null_loop", "export fn main() {\n"
                                            "    for r in query \"select id, score from ns_users order by id\" ()\n"
                                            "             as (id: int, score: float) {\n"
                                            "        print(r.id, r.score)\n    }\n}\n");
    EXPECT_EQ(loop.exit_code, 1);
    EXPECT_EQ(loop.out, "1 1.5\n");
    EXPECT_EQ(loop.err, "null_loop.keal:2: error: column score of the query is NULL, but it is declared float; declare it "
                        "float? to accept NULL [22004]\n");
    // Every reader checks NULL itself (no separate is-null call for a
    // non-null declaration): each declared kind, in a loop and in `query one`.
    const std::vector<std::pair<std::string, std::string>> kinds = {
        {"int", "null::int8"}, {"float", "null::float8"}, {"bool", "null::bool"},
        {"text", "null::text"}, {"char", "null::text"}, {"bytes", "null::bytea"}};
    for (const auto& [kind, sql] : kinds) {
        ProgramRun k = run_text("null_" + kind, "export fn main() {\n"
                                                "    for r in query \"select 1 as id, " + sql + " as v\" () as (id: int, v: " +
                                                    kind + ") {\n        print(r.id)\n    }\n"
                                                "    let w = query one \"select " + sql + "\" () as " + kind + "\n"
                                                "    print(1)\n}\n");
        EXPECT_EQ(k.exit_code, 1) << kind;
        EXPECT_EQ(k.out, "") << kind;
        EXPECT_EQ(k.err, "null_" + kind + ".keal:2: error: column v of the query is NULL, but it is declared " + kind +
                             "; declare it " + kind + "? to accept NULL [22004]\n")
            << kind;
    }
}

TEST_F(NativeSql, AServerErrorKeepsItsSqlstateAndNamesTheKealLine) {
    ProgramRun r = run_text("ratio", "export fn main() {\n    print(query one \"select $1 / $2\" (7, 2) as int)\n"
                                     "    print(query one \"select $1 / $2\" (1, 0) as int)\n}\n");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "3\n");
    EXPECT_EQ(r.err, "ratio.keal:3: error: division by zero [22012]\n");
    ProgramRun missing = run_text("missing", "export fn main() {\n    exec \"insert into no_such_table values ($1)\" (1)\n}\n");
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_EQ(missing.err, "missing.keal:2: error: relation \"no_such_table\" does not exist [42P01]\n");
    // Midway through a streamed loop: the rows before the error were used.
    ProgramRun midway = run_text("midway", "export fn main() {\n"
                                           "    for r in query \"select 10 / (3 - g) from generate_series(1, 5) g\" () as int {\n"
                                           "        print(r)\n    }\n}\n");
    EXPECT_EQ(midway.exit_code, 1);
    EXPECT_EQ(midway.out, "5\n10\n");
    EXPECT_EQ(midway.err, "midway.keal:2: error: division by zero [22012]\n");
}

TEST_F(NativeSql, ColumnsThatDoNotMatchTheDeclarationAre42804) {
    ProgramRun type = run_text("kinds", "export fn main() {\n    print(query one \"select 1.5::numeric\" () as float)\n}\n");
    EXPECT_EQ(type.exit_code, 1);
    EXPECT_EQ(type.err, "kinds.keal:2: error: column 1 (value) of the query is numeric, but it is declared float [42804]\n");
    ProgramRun count = run_text("count", "export fn main() {\n"
                                         "    for r in query \"select id, name from ns_users\" () as (id: int) {\n"
                                         "        let n = query one \"select 1\" () as int\n        print(r.id, n)\n    }\n}\n");
    EXPECT_EQ(count.exit_code, 1);
    EXPECT_EQ(count.err, "count.keal:2: error: the query returns 2 columns, but 1 is declared [42804]\n");
}

TEST_F(NativeSql, AFailedConnectionIsAClearErrorAtTheFirstStatement) {
    NativeProgram p = NativeProgram::from_text("unreachable", "export fn main() {\n    print(\"start\")\n"
                                                              "    exec \"select 1\" ()\n}\n");
    const ProgramRun r = p.run({{"DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none?connect_timeout=5"}});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "start\n");
    EXPECT_THAT(r.err, HasSubstr("unreachable.keal:3: error: cannot connect to nobody@127.0.0.1:1/none: "));
    // Without DATABASE_URL the PG* variables are used.
    const std::string url = KealDatabase::get().url();
    const ProgramRun pg_vars = p.run({{"DATABASE_URL", ""}, {"PGHOST", "127.0.0.1"}, {"PGPORT", "1"}, {"PGUSER", "pgvars"},
                                      {"PGCONNECT_TIMEOUT", "5"}});
    EXPECT_EQ(pg_vars.exit_code, 1);
    EXPECT_THAT(pg_vars.err, HasSubstr("cannot connect to pgvars@127.0.0.1:1/"));
}

TEST_F(NativeSql, KealRunPassesTheDatabaseUrl) {
    const std::string path = testing::TempDir() + "/run_db.keal";
    std::ofstream(path) << "export fn main() {\n    print(query one \"select count(*) from ns_users\" () as int)\n}\n";
    const CommandResult r = run_keal({"run", path, "--db", KealDatabase::get().url()});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output, "3\n");
}

TEST_F(NativeSql, TenMillionRowsStreamInConstantMemory) {
    // Each row carries 100 bytes of text: 1 GB if the rows were kept. The
    // program's peak memory is compared with the same loop over 1,000 rows.
    NativeProgram p = NativeProgram::from_text("series", R"K(export fn main() {
    let n = query one "select n from ns_param" () as int
    var sum = 0
    var chars = 0
    for r in query "select g, repeat('x', 100) from (select generate_series(1, $1) g) s" (n) as (g: int, s: text) {
        sum += r.g
        chars += len(r.s)
    }
    print(sum, chars)
}
)K");
    db().exec("INSERT INTO ns_param VALUES (1000)");
    const ProgramRun small = p.run(env());
    ASSERT_EQ(small.exit_code, 0) << small.err;
    EXPECT_EQ(small.out, "500500 100000\n");
    db().exec("UPDATE ns_param SET n = 10000000");
    const ProgramRun big = p.run(env());
    ASSERT_EQ(big.exit_code, 0) << big.err;
    EXPECT_EQ(big.out, "50000005000000 1000000000\n");
    const long long grown_mb = (big.peak_rss_kb - small.peak_rss_kb) / 1024;
    EXPECT_LT(grown_mb, 16) << "peak memory " << small.peak_rss_kb << " kB for 1,000 rows, " << big.peak_rss_kb
                            << " kB for 10,000,000";
}

TEST_F(NativeSql, ACursorLoopWithStatementsInItsBodyRunsInConstantMemory) {
    NativeProgram p = NativeProgram::from_text("cursor_series", R"K(export fn main() {
    let n = query one "select n from ns_param" () as int
    var sum = 0
    for r in query "select generate_series(1, $1)" (n) as int {
        if r % 100000 == 0 { sum += query one "select $1::int8" (r) as int }
    }
    print(sum)
}
)K");
    db().exec("INSERT INTO ns_param VALUES (1000)");
    const ProgramRun small = p.run(env());
    ASSERT_EQ(small.exit_code, 0) << small.err;
    EXPECT_EQ(small.out, "0\n");
    db().exec("UPDATE ns_param SET n = 1000000");
    const ProgramRun big = p.run(env());
    ASSERT_EQ(big.exit_code, 0) << big.err;
    EXPECT_EQ(big.out, "5500000\n");
    EXPECT_LT((big.peak_rss_kb - small.peak_rss_kb) / 1024, 16);
}

TEST_F(NativeSql, StatementTimeoutStopsAQueryLoop) {
    ProgramRun r = run_text("timeout", "export fn main() {\n    exec \"set statement_timeout = '300ms'\" ()\n"
                                       "    var n = 0\n"
                                       "    for r in query \"select generate_series(1, 1000000000000)\" () as int {\n"
                                       "        n += 1\n    }\n    print(n)\n}\n");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "timeout.keal:4: error: canceling statement due to statement timeout [57014]\n");
}

TEST_F(NativeSql, SigintCancelsTheRunningStatementOnTheServer) {
    NativeProgram p = NativeProgram::from_text("sleepy", "export fn main() {\n    print(\"sleeping\")\n"
                                                         "    exec \"select pg_sleep(600), 'keal-sigint-test'\" ()\n}\n");
    const pid_t pid = p.start(env());
    const std::string running =
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%keal-sigint-test%' AND pid <> pg_backend_pid()"
        " AND wait_event = 'PgSleep'";
    // Wait (without a time limit that could fail the test) until the server
    // runs it; a program that exits first fails the test instead of hanging it.
    while (db().scalar(running) != "1") {
        siginfo_t info{};
        ASSERT_EQ(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT), 0);
        ASSERT_EQ(info.si_pid, 0) << "the program exited before its statement ran on the server";
        usleep(20000);
    }
    // The backend running it, and when the statement started (server clock).
    const std::string backend = db().scalar(
        "SELECT pid FROM pg_stat_activity WHERE query LIKE '%keal-sigint-test%' AND pid <> pg_backend_pid()"
        " AND wait_event = 'PgSleep'").value();
    const std::string started = "(SELECT extract(epoch FROM query_start) FROM pg_stat_activity WHERE pid = " + backend + ")";
    const double started_at = std::stod(db().scalar("SELECT " + started).value());
    ASSERT_EQ(kill(pid, SIGINT), 0);
    const ProgramRun r = p.wait();
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(r.out, "sleeping\n");
    EXPECT_EQ(r.err, "sleepy.keal:3: error: canceling statement due to user request [57014]\n");
    // The statement did not outlive the program on the server: its backend
    // stops running it. Left running, pg_sleep(600) would end by itself
    // after ten minutes; the loop fails the test before that instead of
    // passing then.
    const std::string still_running = "SELECT count(*) FROM pg_stat_activity WHERE pid = " + backend +
                                      " AND state = 'active' AND query LIKE '%keal-sigint-test%'";
    auto seconds_since_start = [&] {
        return std::stod(db().scalar("SELECT extract(epoch FROM clock_timestamp())").value()) - started_at;
    };
    while (db().scalar(still_running) != "0") {
        ASSERT_LT(seconds_since_start(), 590.0) << "the statement is still running on the server: not canceled";
        usleep(20000);
    }
    EXPECT_LT(seconds_since_start(), 590.0) << "the statement ran to its end instead of being canceled";
    EXPECT_EQ(db().scalar("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%keal-sigint-test%'"
                          " AND pid <> pg_backend_pid() AND state = 'active'"),
              "0");
}

TEST_F(NativeSql, DbAndSchemaChecksCoverNativeClients) {
    const std::string url = KealDatabase::get().url();
    const CommandResult ok = run_keal({"check", program_path("native_sql.keal"), "--target", "native", "--db", url});
    EXPECT_EQ(ok.exit_code, 0) << ok.output;
    const std::string wrong = testing::TempDir() + "/native_wrong.keal";
    std::ofstream(wrong) << "export fn main() {\n    print(query one \"select name from ns_users where id = 1\" () as int)\n}\n";
    const CommandResult online = run_keal({"build", wrong, "--target", "native", "-o", testing::TempDir() + "/nw", "--db", url});
    EXPECT_EQ(online.exit_code, 1);
    EXPECT_THAT(online.output, HasSubstr("native_wrong.keal:2:21: error: the value is text in the database (\"name\"), "
                                         "but it is declared int"));
    const std::string schema = testing::TempDir() + "/native_wrong.descriptions";
    ASSERT_EQ(run_keal({"describe", wrong, "--db", url, "-o", schema}).exit_code, 0);
    const CommandResult offline = run_keal({"check", wrong, "--target", "native", "--schema", schema});
    EXPECT_EQ(offline.exit_code, 1);
    EXPECT_EQ(offline.output, run_keal({"check", wrong, "--target", "native", "--db", url}).output);
}

// The native-client example of docs/keal.md's "Embedded SQL" section, as written.
std::string docs_example() {
    std::ifstream in(KEAL_DOCS);
    std::string line;
    std::string program;
    bool marked = false;
    bool inside = false;
    while (std::getline(in, line)) {
        if (line == "<!-- keal: e2e docs_native_sql -->") marked = true;
        else if (marked && !inside && line == "```keal") inside = true;
        else if (inside && line == "```") return program;
        else if (inside) program += line + "\n";
    }
    throw std::runtime_error(std::string("no docs_native_sql example in ") + KEAL_DOCS);
}

TEST_F(NativeSql, TheDocsExampleRuns) {
    db().exec("CREATE TABLE IF NOT EXISTS users (id int PRIMARY KEY, name text NOT NULL, score float8);"
              "CREATE TABLE IF NOT EXISTS log (msg text); TRUNCATE users, log;"
              "INSERT INTO users VALUES (1, 'ann', 1.5), (2, 'bob', NULL), (3, 'cy', 2.0)");
    const ProgramRun r = NativeProgram::from_text("docs_native_sql", docs_example()).run(env());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "users: 3\nann 1.5\nbob (no score)\ncy 2\ntotal: 3.5\n");
    EXPECT_EQ(db().scalar("SELECT msg FROM log"), "counted 3");
}

}  // namespace
}  // namespace keal::e2e
