#include "sluice/common/json_write.hpp"

#include <gtest/gtest.h>

using sluice::json::append_string;

static std::string quoted(std::string_view s) {
    std::string out = "x";
    append_string(out, s);
    return out;
}

TEST(JsonWrite, PlainTextAndUtf8AreCopiedAsIs) {
    EXPECT_EQ(quoted(""), "x\"\"");
    EXPECT_EQ(quoted("abc é 中 😀"), "x\"abc é 中 😀\"");
}

TEST(JsonWrite, QuotesBackslashesAndControlCharactersAreEscaped) {
    EXPECT_EQ(quoted("a\"b\\c"), "x\"a\\\"b\\\\c\"");
    EXPECT_EQ(quoted("\n\r\t\b\f"), "x\"\\n\\r\\t\\b\\f\"");
    EXPECT_EQ(quoted(std::string_view("\0\x01\x1f", 3)), "x\"\\u0000\\u0001\\u001f\"");
    EXPECT_EQ(quoted("\x7f"), "x\"\x7f\"");
}
