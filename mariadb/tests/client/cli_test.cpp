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
    Outcome bad_url = run_cli("--url 'mariadb://h/?bogus=1' 'SELECT 1'", true);
    EXPECT_EQ(bad_url.status, 1);
    EXPECT_NE(bad_url.out.find("bogus"), std::string::npos) << bad_url.out;
    Outcome no_server = run_cli("'SELECT 1' < /dev/null", true);
    EXPECT_EQ(no_server.status, 2);
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
