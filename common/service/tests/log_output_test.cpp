#include "sluice/service/log_output.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <ostream>

using namespace sluice::service;

// 2026-12-01T23:40:00.123Z
constexpr long long at = 1796168400123LL;

TEST(LogOutput, TextLinesAreKeptWithPasswordsMasked) {
    EXPECT_EQ(format_log_line(LogFormat::text, "p", "sluice-mariadb cdc: error: mariadb://u:pw@h:1/ refused", at),
              "sluice-mariadb cdc: error: mariadb://u:***@h:1/ refused\n");
}

TEST(LogOutput, JsonLinesHaveLevelTimeMessageAndFields) {
    EXPECT_EQ(format_log_line(LogFormat::json, "sluice-mariadb cdc",
                              "sluice-mariadb cdc: error: cannot connect to mariadb://u:pw@h:1/ \"x\"", at),
              "{\"level\":\"error\",\"time\":\"2026-12-01T23:40:00.123Z\",\"message\":\"cannot connect to "
              "mariadb://u:***@h:1/ \\\"x\\\"\",\"fields\":{\"program\":\"sluice-mariadb cdc\"}}\n");
    EXPECT_EQ(format_log_line(LogFormat::json, "sluice-pipeline", "sluice-pipeline run: warning: slow", at, "\"lag_seconds\":2"),
              "{\"level\":\"warning\",\"time\":\"2026-12-01T23:40:00.123Z\",\"message\":\"slow\",\"fields\":{"
              "\"program\":\"sluice-pipeline run\",\"lag_seconds\":2}}\n");
    // A line without a program prefix keeps the installed program's name.
    EXPECT_EQ(format_log_line(LogFormat::json, "sluice-pipeline", "3 commits", at),
              "{\"level\":\"info\",\"time\":\"2026-12-01T23:40:00.123Z\",\"message\":\"3 commits\",\"fields\":{"
              "\"program\":\"sluice-pipeline\"}}\n");
}

TEST(LogOutput, AStreamWritesOneObjectPerWholeLine) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    {
        LogLines lines(LogFormat::json, "sluice-x", fds[1]);
        std::ostream os(&lines);
        os << "sluice-x: first" << " part" << std::flush;  // no newline yet: nothing written
        os << "\nsluice-x: error: second\n";
    }
    close(fds[1]);
    std::string got;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    ASSERT_EQ(std::count(got.begin(), got.end(), '\n'), 2);
    EXPECT_NE(got.find("\"level\":\"info\",\"time\":"), std::string::npos);
    EXPECT_NE(got.find("\"message\":\"first part\""), std::string::npos);
    EXPECT_NE(got.find("\"level\":\"error\""), std::string::npos);
    EXPECT_NE(got.find("\"message\":\"second\""), std::string::npos);
}

TEST(LogOutput, UnknownFormatIsRefused) {
    EXPECT_EQ(parse_log_format("json"), LogFormat::json);
    EXPECT_EQ(parse_log_format("text"), LogFormat::text);
    EXPECT_THROW(parse_log_format("xml"), std::invalid_argument);
}
