// The sluice-mariadb executable, run as a user would.
#include <gtest/gtest.h>

#include <cstdio>
#include <sys/wait.h>

#include "server_env.hpp"

namespace {

struct Outcome {
    std::string out;
    int status = -1;
};

// Runs a shell command with stdout captured.
Outcome shell(const std::string& cmd) {
    Outcome r;
    FILE* p = ::popen(cmd.c_str(), "r");
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
    int st = ::pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

// Runs the CLI with these arguments (stderr merged into the output when asked).
Outcome run_cli(const std::string& args, bool merge_stderr = false) {
    return shell(std::string(SLUICE_MARIADB_CLI) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null"));
}

std::string url() { return sluice::mariadb::test::env().require("SLUICE_MARIADB_URL"); }

TEST(Cli, NdjsonRowsWithTypedValues) {
    Outcome r = run_cli("--format ndjson '" + url() +
                "' \"SELECT seq AS n, CONCAT('a\\\"', seq) AS s, NULL AS z, 1.50 AS d, X'00FF' AS b "
                "FROM seq_1_to_2\"");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "{\"n\":1,\"s\":\"a\\\"1\",\"z\":null,\"d\":\"1.50\",\"b\":\"AP8=\"}\n"
                     "{\"n\":2,\"s\":\"a\\\"2\",\"z\":null,\"d\":\"1.50\",\"b\":\"AP8=\"}\n");
}

TEST(Cli, TableFromStdinWithUrlFromTheEnvironment) {
    Outcome r = shell("echo \"SELECT 'x' AS name, 12 AS n; DO 1\" | SLUICE_MARIADB_URL='" + url() + "' " SLUICE_MARIADB_CLI);
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out,
              "+------+----+\n"
              "| name | n  |\n"
              "+------+----+\n"
              "| x    | 12 |\n"
              "+------+----+\n"
              "1 row in set\n"
              "Query OK, 0 rows affected\n");
}

TEST(Cli, ServerErrorsAndConnectFailuresExitNonZeroWithAMessage) {
    Outcome r = run_cli("--url '" + url() + "' 'SELECT nope'", true);
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.out.find("server error 1054, SQLSTATE 42S22"), std::string::npos) << r.out;
    Outcome refused = run_cli("mariadb://u@127.0.0.1:1/ 'SELECT 1'", true);
    EXPECT_EQ(refused.status, 1);
    EXPECT_NE(refused.out.find("127.0.0.1:1"), std::string::npos) << refused.out;
    Outcome no_server = run_cli("'SELECT 1' < /dev/null", true);
    EXPECT_EQ(no_server.status, 2);
}

// Every URL problem reads `invalid URL: WHAT in URL`, the URL whole with its
// password masked, and exits 2 (a usage error: nothing was sent).
TEST(Cli, UrlErrorsHaveOneFormatWithTheWholeUrlAndThePasswordMasked) {
    auto expect_invalid = [](const std::string& args, const std::string& message) {
        Outcome r = run_cli(args + " < /dev/null", true);
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_EQ(r.out, "sluice-mariadb: invalid URL: " + message + "\n") << args;
    };
    expect_invalid("--url 'mariadb://u:secret@h/?bogus=1' 'SELECT 1'",
                   "unknown parameter 'bogus' in mariadb://u:***@h/?bogus=1");
    expect_invalid("'mariadb://u:secret@h:99999/db' 'SELECT 1'", "port 99999 out of range in mariadb://u:***@h:99999/db");
    expect_invalid("'mariadb://u:secret@h/?ssl-mode=sometimes' 'SELECT 1'",
                   "unknown ssl-mode 'sometimes' (expected disable, prefer, require, verify-ca or verify-full) in "
                   "mariadb://u:***@h/?ssl-mode=sometimes");
    // A lone argument that starts like a URL is one, not SQL for the server.
    expect_invalid("'postgres://u:secret@h/db'", "the scheme must be mariadb:// or mysql:// in postgres://u:***@h/db");
    expect_invalid("'mariadb://u@h/?compress=maybe' 'SELECT 1'",
                   "compress=maybe (expected true or false) in mariadb://u@h/?compress=maybe");
    Outcome from_env = shell("SLUICE_MARIADB_URL='mariadb://u:secret@h/?bogus=1' " SLUICE_MARIADB_CLI " 'SELECT 1' 2>&1");
    EXPECT_EQ(from_env.status, 2);
    EXPECT_EQ(from_env.out, "sluice-mariadb: invalid URL: unknown parameter 'bogus' in mariadb://u:***@h/?bogus=1\n");
}

// The cdc subcommand reports URL errors in the same form, as a usage error.
TEST(Cli, CdcUrlErrorsHaveTheSameFormat) {
    Outcome r = run_cli("cdc 'mariadb://u:secret@h/?bogus=1' --until-end", true);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "sluice-mariadb cdc: invalid URL: unknown parameter 'bogus' in mariadb://u:***@h/?bogus=1\n");
    EXPECT_EQ(run_cli("cdc 'mariadb://h/' --bogus").status, 2);
}

TEST(Cli, APositionalUrlAndTheUrlOptionConflict) {
    Outcome r = run_cli("--url 'mariadb://a:one@h1/' 'mariadb://b:two@h2/' 'SELECT 1'", true);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out,
              "sluice-mariadb: invalid URL: both a positional URL (mariadb://b:***@h2/) and --url "
              "(mariadb://a:***@h1/) are given; pass one\n");
}

// CLI11's own statuses (109 for an unexpected argument, 105 for a value not
// allowed) must not leak out.
TEST(Cli, CommandLineErrorsExitWith2) {
    Outcome unknown = run_cli("--bogus 'SELECT 1'", true);
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.out.find("--bogus"), std::string::npos) << unknown.out;
    EXPECT_EQ(run_cli("--format xml 'SELECT 1'").status, 2);
    EXPECT_EQ(run_cli("'mariadb://h/' 'SELECT 1' 'SELECT 2'").status, 2);
}

// Issue 32: option errors carry the tool's name, and a usage error found
// only when the URL is used (verify-full without a CA) exits 2, not 1.
TEST(Cli, OptionErrorsCarryTheToolsNameAndLateUsageErrorsExit2) {
    Outcome unknown = run_cli("--bogus 'SELECT 1'", true);
    EXPECT_EQ(unknown.out, "sluice-mariadb: error: unknown option '--bogus'\nRun with --help for more information.\n");
    Outcome choice = run_cli("--format xml 'SELECT 1'", true);
    EXPECT_EQ(choice.out.rfind("sluice-mariadb: error: --format: ", 0), 0U) << choice.out;
    Outcome cdc_unknown = run_cli("cdc 'mariadb://h/' --bogus", true);
    EXPECT_EQ(cdc_unknown.out, "sluice-mariadb cdc: error: unknown option '--bogus'\nRun with --help for more information.\n");
    Outcome no_ca = run_cli("'mariadb://u@127.0.0.1:" + sluice::mariadb::test::env().require("SLUICE_MARIADB_PORT") +
                                "/?ssl-mode=verify-full' 'SELECT 1'",
                            true);
    EXPECT_EQ(no_ca.status, 2) << no_ca.out;
    EXPECT_NE(no_ca.out.find("needs a CA (ssl-ca or ssl-capath) (usage)"), std::string::npos) << no_ca.out;
}

// DECIMAL is a number to the eye: right-aligned like the integers. A tab or
// line break inside a value would break the table, so it is escaped.
TEST(Cli, TableRightAlignsDecimalAndEscapesTabsAndNewlines) {
    Outcome r = run_cli("'" + url() + "' \"SELECT CAST(1.5 AS DECIMAL(6,2)) AS d, "
                        "CONCAT('a', CHAR(9 USING utf8mb4), 'b', CHAR(10 USING utf8mb4), 'c', CHAR(92 USING utf8mb4), 'd') AS s "
                        "UNION ALL SELECT 100.25, 'x'\"");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out,
              "+--------+------------+\n"
              "| d      | s          |\n"
              "+--------+------------+\n"
              "|   1.50 | a\\tb\\nc\\\\d |\n"
              "| 100.25 | x          |\n"
              "+--------+------------+\n"
              "2 rows in set\n");
}

TEST(Cli, HelpDescribesTheInterface) {
    Outcome r = run_cli("--help");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("--format"), std::string::npos);
    EXPECT_NE(r.out.find("SLUICE_MARIADB_URL"), std::string::npos);
    // The secure default (issue 19) is stated where a user looks first.
    EXPECT_NE(r.out.find("Without ssl-mode, TCP to a host that is not loopback is verify-full"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("loopback and unix sockets use prefer"), std::string::npos) << r.out;
}

}  // namespace
