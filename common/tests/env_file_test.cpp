#include "sluice/common/env_file.hpp"

#include <gtest/gtest.h>

using sluice::EnvFile;

TEST(EnvFile, ParsesAssignmentsCommentsExportAndQuotes) {
    auto env = EnvFile::parse(
        "# comment\n\nA=1\nexport B='two words'\nC=\"x=y\"\r\n  D = spaced \nnot a line\n");
    EXPECT_EQ(env.require("A"), "1");
    EXPECT_EQ(env.require("B"), "two words");
    EXPECT_EQ(env.require("C"), "x=y");
    EXPECT_EQ(env.require("D"), "spaced");
    EXPECT_EQ(env.values().size(), 4u);
}

TEST(EnvFile, MissingKeyNamesTheKey) {
    auto env = EnvFile::parse("A=1\n");
    EXPECT_FALSE(env.get("B").has_value());
    try {
        (void)env.require("SLUICE_NOPE");
        FAIL() << "expected an exception";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("SLUICE_NOPE"), std::string::npos);
    }
}

TEST(EnvFile, UnreadableFileNamesThePath) {
    EXPECT_THROW(EnvFile::load("/nonexistent/sluice/env"), std::runtime_error);
}
