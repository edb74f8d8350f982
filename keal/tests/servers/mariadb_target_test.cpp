// --target mariadb: UDF libraries installed by keal deploy into the private
// MariaDB. What only MariaDB has: the mysql.func registration, argument types
// checked in f_init, utf8mb4 text, errors raised through the server, and
// KILL QUERY / max_statement_time stopping a runaway loop.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "keal_database.hpp"
#include "mariadb_session.hpp"
#include "sluice/mariadb/error.hpp"

namespace keal::servers {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class MariadbTarget : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        deploy_to_mariadb("corpus.keal");
        deploy_to_mariadb("runaway.keal");
    }
    MariadbSession db;
    Outcome q(const std::string& sql, Kind k = Kind::Int, const std::string& file = "corpus.keal") {
        return db.query(sql, k, file);
    }
};

TEST_F(MariadbTarget, DeployRegistersEveryExportWithItsReturnType) {
    EXPECT_EQ(q("SELECT ret FROM mysql.func WHERE name = 'k_steps'").rendered, "2");     // INT_RESULT
    EXPECT_EQ(q("SELECT ret FROM mysql.func WHERE name = 'k_hypot'").rendered, "1");     // REAL_RESULT
    EXPECT_EQ(q("SELECT ret FROM mysql.func WHERE name = 'k_reversed'").rendered, "0");  // STRING_RESULT
    EXPECT_THAT(q("SELECT dl FROM mysql.func WHERE name = 'k_steps'", Kind::Text).rendered, StartsWith("corpus-"));
    // Deploying again replaces the functions (DROP + CREATE), and they work.
    const e2e::CommandResult again = e2e::run_keal({"deploy", e2e::program_path("corpus.keal"), "--db", mariadb_url()});
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_THAT(again.output, HasSubstr("installed k_steps RETURNS INTEGER from corpus-"));
    EXPECT_EQ(q("SELECT k_steps(27)").rendered, "111");
}

// [T] parameters are JSON array text (a string argument), results a STRING
// of JSON; a bad array is the Keal error, with 22003 where the element is
// out of range and HY000 (1644) for the rest, as for other Keal errors.
TEST_F(MariadbTarget, ArraysAreJsonText) {
    EXPECT_EQ(q("SELECT ret FROM mysql.func WHERE name = 'k_arr_squares'").rendered, "0");  // STRING_RESULT
    EXPECT_EQ(q("SELECT k_arr_squares(4)", Kind::Text).rendered, "[0,1,4,9]");
    EXPECT_EQ(q("SELECT k_arr_sum('[1, 2, 3]')").rendered, "6");
    EXPECT_EQ(q("SELECT k_arr_sum(NULL) IS NULL").rendered, "1");
    const Outcome malformed = q("SELECT k_arr_sum('[1,')");
    EXPECT_THAT(malformed.rendered, StartsWith("error: corpus.keal:183: argument xs is not valid JSON: "));
    EXPECT_EQ(malformed.sqlstate, "HY000");
    const Outcome wide = q("SELECT k_arr_sum('[18446744073709551615]')");
    EXPECT_EQ(wide.rendered, "error: corpus.keal:183: argument xs: element 0 is out of range for int");
    EXPECT_EQ(wide.sqlstate, "22003");
    EXPECT_EQ(q("SELECT k_arr_sum(42)").rendered, "error: corpus.keal: argument 1 (xs) must be JSON array text, not an integer");
    EXPECT_EQ(q("SELECT k_arr_chars(CONVERT('é中' USING utf8mb4))", Kind::Text).rendered, "[\"é\",\"中\"]");
}

TEST_F(MariadbTarget, ArgumentTypesAreCheckedBeforeAnyRow) {
    // f_init's message comes inside the server's own (cut at 80 characters).
    EXPECT_EQ(q("SELECT k_steps(2.5e0)").rendered,
              "error: corpus.keal: argument 1 (n) must be an integer, not a double");
    EXPECT_EQ(q("SELECT k_vowels(42)").rendered,
              "error: corpus.keal: argument 1 (s) must be utf8mb4 text, not an integer");
    // A string or a decimal for an int is known to be wrong only when it is
    // not NULL (a NULL literal is a string to the server): checked per row.
    EXPECT_EQ(q("SELECT k_steps(2.5)").rendered,
              "error: corpus.keal: k_steps(): argument 1 (n) must be an integer, not a decimal");
    EXPECT_EQ(q("SELECT k_steps('27')").rendered,
              "error: corpus.keal: k_steps(): argument 1 (n) must be an integer, not a string");
    EXPECT_EQ(q("SELECT k_steps(1, 2)").rendered,
              "error: corpus.keal: k_steps() takes 1 argument, not 2");
    // Integers and decimals for a float are converted by the server.
    EXPECT_EQ(q("SELECT k_hypot(3, 4.0)", Kind::Float).rendered, "5");
    EXPECT_EQ(q("SELECT k_both(1, 2)", Kind::Bool).rendered,
              "error: corpus.keal: k_both(): argument 2 (b) must be 0 or 1, not another integer");
}

TEST_F(MariadbTarget, NullGivesNullAndNullableParametersSeeIt) {
    EXPECT_EQ(q("SELECT k_steps(NULL)").rendered, "NULL");
    EXPECT_EQ(q("SELECT k_hypot(NULL, 1)", Kind::Float).rendered, "NULL");
    EXPECT_EQ(q("SELECT k_describe(NULL)", Kind::Text).rendered, "nothing");
    EXPECT_EQ(q("SELECT k_label('x', NULL)", Kind::Text).rendered, "x:-1");
}

TEST_F(MariadbTarget, TextIsUtf8mb4InAndOut) {
    EXPECT_EQ(q("SELECT CONVERT(k_reversed(_utf8mb4'héllo😀') USING utf8mb4)", Kind::Text).rendered, "😀olléh");
    EXPECT_EQ(q("SELECT k_chars(_utf8mb4'héllo😀')").rendered, "6");
    // A latin1 string is not UTF-8: an error, not mojibake.
    EXPECT_EQ(q("SELECT k_chars(CONVERT(_utf8mb4'héllo' USING latin1))").rendered,
              "error: corpus.keal: k_chars(): argument 1 (s) must be utf8mb4 text, not bytes that are not UTF-8 (or contain "
              "NUL)");
}

TEST_F(MariadbTarget, ErrorsReachTheClientWithTheirSqlstate) {
    const auto error_of = [&](const std::string& sql) -> sluice::mariadb::Error {
        try {
            sluice::mariadb::ResultSet rs = db.connection().query(sql);
            while (rs.next() != nullptr) {
            }
        } catch (const sluice::mariadb::Error& e) {
            return e;
        }
        throw std::runtime_error("no error from " + sql);
    };
    const sluice::mariadb::Error overflow = error_of("SELECT k_mul(9223372036854775807, 2)");
    EXPECT_EQ(overflow.server_code(), 1690);
    EXPECT_EQ(overflow.sqlstate(), "22003");
    EXPECT_THAT(overflow.what(), HasSubstr("corpus.keal:20: integer overflow"));
    const sluice::mariadb::Error div0 = error_of("SELECT k_div(1, 0)");
    EXPECT_EQ(div0.server_code(), 1365);
    EXPECT_EQ(div0.sqlstate(), "22012");
    const sluice::mariadb::Error raised = error_of("SELECT k_positive(-3)");
    EXPECT_EQ(raised.server_code(), 1644);
    EXPECT_THAT(raised.what(), HasSubstr("corpus.keal:46: n must not be negative, got -3"));
    // The first failing row stops a statement over many rows.
    EXPECT_THAT(error_of("SELECT sum(k_div(100, CAST(seq AS SIGNED) - 3)) FROM seq_0_to_6").what(),
                HasSubstr("corpus.keal:24: division by zero"));
    EXPECT_EQ(q("SELECT k_steps(27)").rendered, "111");
}

TEST_F(MariadbTarget, DeepRecursionIsAnErrorAndTheServerSurvives) {
    EXPECT_EQ(q("SELECT keal_depth(1000)", Kind::Int, "runaway.keal").rendered, "1000");
    EXPECT_EQ(q("SELECT keal_depth(100000000)", Kind::Int, "runaway.keal").rendered,
              "error: runaway.keal:24: stack depth limit exceeded");
    MariadbSession fresh;
    EXPECT_EQ(fresh.query("SELECT keal_depth(10)", Kind::Int, "runaway.keal").rendered, "10");
}

TEST_F(MariadbTarget, KillQueryStopsARunawayLoop) {
    MariadbSession victim;
    const std::uint32_t id = victim.connection().connection_id();
    std::future<Outcome> running = std::async(std::launch::async, [&] {
        return victim.query("SELECT keal_spin(1)", Kind::Int, "runaway.keal");
    });
    // Wait until the server runs it, then kill it (no timing is asserted:
    // only that KILL QUERY ends the loop, with the Keal error).
    const std::string running_sql = "SELECT count(*) FROM information_schema.processlist WHERE id = " +
                                    std::to_string(id) + " AND info LIKE 'SELECT keal_spin%'";
    while (q(running_sql).rendered != "1") std::this_thread::sleep_for(std::chrono::milliseconds(10));
    db.connection().execute("KILL QUERY " + std::to_string(id));
    const Outcome o = running.get();
    EXPECT_EQ(o.rendered, "error: runaway.keal: query execution was interrupted (KILL QUERY or max_statement_time)");
    EXPECT_EQ(o.sqlstate, "70100");
    EXPECT_EQ(victim.query("SELECT keal_spin_range(2000)", Kind::Int, "runaway.keal").rendered, "0");
}

TEST_F(MariadbTarget, MaxStatementTimeStopsARunawayLoop) {
    const Outcome o = q("SET STATEMENT max_statement_time = 0.2 FOR SELECT keal_spin_range(9223372036854775807)",
                        Kind::Int, "runaway.keal");
    EXPECT_THAT(o.rendered, HasSubstr("interrupted"));
    EXPECT_EQ(q("SELECT keal_spin_range(2000)", Kind::Int, "runaway.keal").rendered, "0");
}

}  // namespace
}  // namespace keal::servers
