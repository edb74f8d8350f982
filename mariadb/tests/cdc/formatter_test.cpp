// The NDJSON value formatter on values alone (the real-server test compares
// SELECT and CDC lines for every type).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sluice/common/json_write.hpp"
#include "sluice/mariadb/ndjson.hpp"

namespace sluice::mariadb::ndjson {
namespace {

template <class F>
std::string text(F&& f) {
    std::string out;
    f(out);
    return out;
}

TEST(Formatter, FloatIsTheShortestTextThatReadsBackAsTheSameFloat) {
    EXPECT_EQ(text([](std::string& o) { append_float(o, 16777216.0F); }), "16777216");
    EXPECT_EQ(text([](std::string& o) { append_float(o, 0.1F); }), "0.1");
    EXPECT_EQ(text([](std::string& o) { append_float(o, 1.2345678F); }), "1.2345678");
    EXPECT_EQ(text([](std::string& o) { append_float(o, std::numeric_limits<float>::max()); }), "3.4028235e+38");
    EXPECT_EQ(text([](std::string& o) { append_float(o, std::numeric_limits<float>::denorm_min()); }), "1e-45");
    EXPECT_EQ(text([](std::string& o) { append_float(o, -0.0F); }), "0");
    EXPECT_EQ(text([](std::string& o) { append_double(o, 0.1); }), "0.1");
    EXPECT_EQ(text([](std::string& o) { append_double(o, 1e308); }), "1e+308");
    EXPECT_EQ(text([](std::string& o) { append_double(o, 5e-324); }), "5e-324");
    EXPECT_EQ(text([](std::string& o) { append_double(o, std::nan("")); }), "\"nan\"");
}

TEST(Formatter, Base64PadsAndAppendsZeroBytes) {
    std::vector<std::uint8_t> b{0x00, 0xFF};
    EXPECT_EQ(text([&](std::string& o) { append_base64(o, b); }), "\"AP8=\"");
    EXPECT_EQ(text([&](std::string& o) { append_base64(o, b, 1); }), "\"AP8A\"");
    EXPECT_EQ(text([&](std::string& o) { append_base64(o, std::span<const std::uint8_t>{}, 4); }), "\"AAAAAA==\"");
    std::vector<std::uint8_t> man{'M', 'a', 'n', 'M'};
    EXPECT_EQ(text([&](std::string& o) { append_base64(o, man); }), "\"TWFuTQ==\"");
}

TEST(Formatter, IntegersStringsAndKeys) {
    EXPECT_EQ(text([](std::string& o) { append_integer(o, std::numeric_limits<std::int64_t>::min()); }),
              "-9223372036854775808");
    EXPECT_EQ(text([](std::string& o) { append_unsigned(o, std::numeric_limits<std::uint64_t>::max()); }),
              "18446744073709551615");
    EXPECT_EQ(text([](std::string& o) {
                  append_key(o, "a\"b");
                  append_string(o, "line\nnext");
              }),
              "\"a\\\"b\":\"line\\nnext\"");
}

TEST(Formatter, StringsAreEscapedWhereverTheSpecialByteFalls) {
    // The fast path checks 8 bytes at a time: put each special byte at each
    // position of a block and in the tail.
    for (char special : {'"', '\\', '\n', '\x01', '\x1f'}) {
        for (std::size_t len : {1U, 7U, 8U, 9U, 16U, 23U}) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string text(len, 'a');
                text[at] = special;
                std::string fast, reference;
                append_string(fast, text);
                sluice::json::append_string(reference, text);
                EXPECT_EQ(fast, reference) << int(special) << " at " << at << " of " << len;
            }
        }
    }
    std::string utf8;
    append_string(utf8, "caf\xC3\xA9 \xF0\x9F\x98\x80 0123456789");
    EXPECT_EQ(utf8, "\"caf\xC3\xA9 \xF0\x9F\x98\x80 0123456789\"");
    std::string empty;
    append_string(empty, "");
    EXPECT_EQ(empty, "\"\"");
}

TEST(Formatter, Base64OfEveryLengthMatchesTheReference) {
    // RFC 4648 test vectors, then lengths across the fast loop's boundary.
    const char* vectors[][2] = {{"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="},
                                {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
    for (auto& v : vectors) {
        std::string out;
        std::string_view in(v[0]);
        append_base64(out, std::span(reinterpret_cast<const std::uint8_t*>(in.data()), in.size()));
        EXPECT_EQ(out, "\"" + std::string(v[1]) + "\"");
    }
    // Padding bytes continue the value: "f" + two zero bytes is "f\0\0".
    std::string padded;
    std::uint8_t f = 'f';
    append_base64(padded, std::span(&f, 1), 2);
    EXPECT_EQ(padded, "\"ZgAA\"");
}

}  // namespace
}  // namespace sluice::mariadb::ndjson
