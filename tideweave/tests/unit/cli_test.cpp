// The tideweave binary end to end: stop at the first error with status 1,
// --keep-going (status 3 and a count on stderr when lines failed), --restore
// from a checkpoint line, usage errors (status 2, named), --help.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "driver.hpp"

namespace sluice::tideweave::testing {
namespace {

struct Result {
    int status = -1;
    std::string out;
    std::string err;
};

Result run_cli(const std::string& args, const std::string& stdin_text = "") {
    const std::string dir = ::testing::TempDir();
    // Per process: ctest runs each TEST as its own process, side by side.
    const std::string pid = std::to_string(::getpid());
    const std::string in_path = dir + "/tideweave_cli_stdin." + pid + ".ndjson";
    std::ofstream(in_path, std::ios::binary) << stdin_text;
    const std::string err_path = dir + "/tideweave_cli_stderr." + pid + ".txt";
    const std::string command = std::string(TIDEWEAVE_CLI) + " " + args + " < " + in_path + " 2>" + err_path;
    Result r;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return r;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
    const int raw = ::pclose(pipe);
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    std::ifstream err(err_path, std::ios::binary);
    std::ostringstream err_text;
    err_text << err.rdbuf();
    r.err = err_text.str();
    return r;
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

const std::string good1 = tx({ins("a", "k", 0, "1")});
const std::string bad = R"({"tx":[{"insert":{"id":"a","key":"k","ts":1,"value":1}}]})";  // duplicate id
const std::string unmatched = tx({ret("zz", "k", 50)});
const std::string good2 = tx({ins("b", "k", 5, "2")});

TEST(Cli, StopsAtTheFirstErrorWithStatus1) {
    const Result r = run_cli("stream", good1 + "\n\n" + bad + "\n" + good2 + "\n");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("stopped at the error on line 3"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, changes(1, {}, {row("k", 0, 10, 1, "1", "1", "1")}) + "\n" +
                         R"j({"error":{"line":3,"index":0,"message":"tx[0].insert: an active event with id \"a\" already exists (key \"k\", ts 0)"}})j" +
                         "\n");
}

TEST(Cli, KeepGoingContinuesPastErrors) {
    const std::string path = write_file("keep_going.ndjson", good1 + "\n" + bad + "\nnot json\n" + good2);
    const Result r = run_cli("stream --keep-going " + path);
    EXPECT_EQ(r.status, 3);  // distinct from 0 (clean) and 1 (stopped or failed)
    EXPECT_EQ(r.err, "tideweave: 2 of 4 lines were error lines (their error objects are on stdout); exit status 3\n");
    std::istringstream lines(r.out);
    std::string l;
    std::vector<std::string> got;
    while (std::getline(lines, l)) got.push_back(l);
    ASSERT_EQ(got.size(), 4U);
    EXPECT_EQ(got[1].substr(0, 29), R"({"error":{"line":2,"index":0,)");
    EXPECT_EQ(got[2].substr(0, 40), R"({"error":{"line":3,"message":"invalid JS)");
    EXPECT_EQ(got[3], changes(2, {row("k", 0, 10, 1, "1", "1", "1")}, {row("k", 0, 15, 2, "3", "1", "2")}));
}

TEST(Cli, KeepGoingWithoutErrorsExitsWith0AndSaysNothing) {
    const Result r = run_cli("stream --keep-going", good1 + "\n" + good2 + "\n");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.err, "");
}

TEST(Cli, GapAndLatenessOptions) {
    const Result r = run_cli("stream --gap 3 --lateness 0 -",
                             tx({ins("a", "k", 0, "1"), ins("b", "k", 4, "1")}) + "\n" + wm(8) + "\n");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, changes(1, {}, {row("k", 0, 3, 1, "1", "1", "1"), row("k", 4, 7, 1, "1", "1", "1")}) + "\n" +
                         R"({"version":1,"watermark":8,"finalized":[)" + row("k", 0, 3, 1, "1", "1", "1", true) +
                         "," + row("k", 4, 7, 1, "1", "1", "1", true) + "]}\n");
}

TEST(Cli, RestoreContinuesByteForByte) {
    const std::vector<std::string> lines = {
        tx({ins("a", "k", 0, "1"), ins("b", "k", 8, "0.1")}), wm(30), "{\"checkpoint\":true}",
        tx({ins("c", "k", 17, "0.2"), ret("a", "k", 0)}),     "{\"forget\":true}", unmatched,
        wm(60), "{\"snapshot\":true}"};
    std::string all, rest;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        all += lines[i] + "\n";
        if (i > 2) rest += lines[i] + "\n";
    }
    for (const char* engine : {"incremental", "naive"}) {
        const Result whole = run_cli(std::string("stream --keep-going --engine ") + engine, all);
        ASSERT_EQ(whole.status, 3);  // the unmatched retraction is an error line
        std::istringstream outs(whole.out);
        std::string l, checkpoint, after;
        for (int i = 0; std::getline(outs, l); ++i) {
            if (i == 2) checkpoint = l;
            if (i > 2) after += l + "\n";
        }
        const std::string path = write_file("checkpoint.json", checkpoint + "\n");
        // A --gap that contradicts the checkpoint's is a wrong command line.
        const Result contradicted = run_cli("stream --gap 99 --restore " + path, rest);
        EXPECT_EQ(contradicted.status, 2);
        EXPECT_NE(contradicted.err.find("--gap/--lateness differ from the checkpoint's (gap 10, lateness 20)"),
                  std::string::npos)
            << contradicted.err;
        const Result resumed = run_cli(std::string("stream --keep-going --engine ") + engine + " --restore " + path, rest);
        EXPECT_EQ(resumed.status, 3);
        EXPECT_EQ(resumed.out, after);
        EXPECT_NE(after.find(R"({"error":{"line":6,)"), std::string::npos);
    }
}

TEST(Cli, FailuresExitWith1) {
    const Result missing = run_cli("stream /nonexistent/input.ndjson");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("cannot open /nonexistent/input.ndjson"), std::string::npos) << missing.err;
    EXPECT_EQ(run_cli("stream --restore " + write_file("broken.json", "{\"version\":1}")).status, 1);
    EXPECT_EQ(run_cli("stream --restore /nonexistent/checkpoint.json").status, 1);
}

// CLI11's own statuses (105 for a value out of range, 106 for a missing
// subcommand, 109 for an unexpected argument) must not leak out.
TEST(Cli, UsageErrorsExitWith2AndSayWhatIsWrong) {
    const Result out_of_range = run_cli("stream --gap 0");
    EXPECT_EQ(out_of_range.status, 2);
    EXPECT_NE(out_of_range.err.find("--gap: Value 0 not in range"), std::string::npos) << out_of_range.err;
    const Result not_a_number = run_cli("stream --gap abc");
    EXPECT_EQ(not_a_number.status, 2);
    EXPECT_NE(not_a_number.err.find("--gap: 'abc' is not a number"), std::string::npos) << not_a_number.err;
    EXPECT_EQ(run_cli("stream --lateness x").status, 2);
    EXPECT_EQ(run_cli("compare-naive --events many").status, 2);
    const Result unknown_option = run_cli("stream --bogus");
    EXPECT_EQ(unknown_option.status, 2);
    EXPECT_NE(unknown_option.err.find("--bogus"), std::string::npos) << unknown_option.err;
    const Result unknown_command = run_cli("bogus");
    EXPECT_EQ(unknown_command.status, 2);
    EXPECT_NE(unknown_command.err.find("unknown command 'bogus' (the commands are: stream, compare-naive)"),
              std::string::npos)
        << unknown_command.err;
    EXPECT_EQ(run_cli("").status, 2);  // no command at all
}

// Issue 32: a directory as the input names the path, with keal's status for
// the same mistake (2, a usage error), not "read: Is a directory" and 1.
TEST(Cli, ADirectoryAsTheInputIsAUsageErrorNamingIt) {
    const std::string dir = ::testing::TempDir();
    const Result input = run_cli("stream " + dir);
    EXPECT_EQ(input.status, 2) << input.err;
    EXPECT_EQ(input.err, "tideweave: error: input '" + dir + "' is a directory; give a file\n");
    const Result checkpoint = run_cli("stream --restore " + dir);
    EXPECT_EQ(checkpoint.status, 2) << checkpoint.err;
    EXPECT_EQ(checkpoint.err, "tideweave: error: checkpoint '" + dir + "' is a directory; give a file\n");
}

// Option errors carry the tool's name (docs/exit-status.md).
TEST(Cli, OptionErrorsStartWithTheToolsName) {
    const Result unknown_option = run_cli("stream --bogus");
    EXPECT_EQ(unknown_option.err, "tideweave: error: unknown option '--bogus'\nRun with --help for more information.\n");
    const Result out_of_range = run_cli("stream --gap 0");
    EXPECT_EQ(out_of_range.err.rfind("tideweave: error: --gap: Value 0 not in range", 0), 0U) << out_of_range.err;
}

TEST(Cli, HelpDescribesEachCommand) {
    const Result top = run_cli("--help");
    EXPECT_EQ(top.status, 0);
    EXPECT_NE(top.out.find("compare-naive"), std::string::npos);
    const Result stream = run_cli("stream --help");
    EXPECT_NE(stream.out.find("--keep-going"), std::string::npos);
    EXPECT_NE(stream.out.find("--restore"), std::string::npos);
    const Result compare = run_cli("compare-naive --help");
    EXPECT_NE(compare.out.find("--retract-percent"), std::string::npos);
}

TEST(Cli, CompareNaiveShowsTheNumbersOnlyDrift) {
    const Result r = run_cli("compare-naive --events 3000 --seed 5");
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("with wrong boundaries (no split)"), std::string::npos);
    EXPECT_NE(r.out.find("first "), std::string::npos) << r.out;  // some sessions differ
}

}  // namespace
}  // namespace sluice::tideweave::testing
