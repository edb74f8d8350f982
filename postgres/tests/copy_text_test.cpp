// COPY text-format rows on bytes alone.
#include <gtest/gtest.h>

#include "sluice/postgres/copy.hpp"
#include "sluice/postgres/error.hpp"

using namespace sluice::postgres;

TEST(CopyText, EveryKindOfValue) {
    std::string out;
    append_copy_row(out, {1, -2.5, true, "plain", std::nullopt, Bytes{0x00, 0xab}});
    EXPECT_EQ(out, "1\t-2.5\tt\tplain\t\\N\t\\\\x00ab\n");
}

TEST(CopyText, EscapesTheCharactersCopyGivesMeaningTo) {
    std::string out;
    append_copy_row(out, {"a\tb\nc\rd\\e", "\\N"});
    EXPECT_EQ(out, "a\\tb\\nc\\rd\\\\e\t\\\\N\n");
}

TEST(CopyText, RowsAppendOneLineEach) {
    std::string out;
    append_copy_row(out, {1});
    append_copy_row(out, {std::nullopt});
    append_copy_row(out, {Bytes{}});
    EXPECT_EQ(out, "1\n\\N\n\\\\x\n");
}

TEST(CopyText, NulInTextIsRefused) {
    std::string out;
    EXPECT_THROW(append_copy_row(out, {std::string("a\0", 2)}), Error);
}
