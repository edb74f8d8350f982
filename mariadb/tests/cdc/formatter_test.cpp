// The NDJSON value formatter on values alone (the real-server test compares
// SELECT and CDC lines for every type).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

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

// write_string (the CDC lines' escaper, into a Buffer) against the shared
// reference: every byte value at every position of strings that reach the
// 16-byte, 8-byte and byte-at-a-time scans, and runs of several escapes.
std::string written(std::string_view text) {
    Buffer b;
    b.commit(write_string(b.room(string_bound(text.size())), text));
    return std::string(b.view());
}

TEST(Formatter, WrittenStringsMatchTheReferenceForEveryByteAtEveryPosition) {
    for (std::size_t len : {1U, 7U, 8U, 15U, 16U, 17U, 24U, 31U, 32U, 33U, 47U}) {
        for (int byte = 0; byte < 256; ++byte) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string text(len, 'a');
                text[at] = static_cast<char>(byte);
                std::string reference;
                sluice::json::append_string(reference, text);
                ASSERT_EQ(written(text), reference) << byte << " at " << at << " of " << len;
                std::string appended;
                append_string(appended, text);
                ASSERT_EQ(appended, reference) << byte << " at " << at << " of " << len;
            }
        }
    }
    std::mt19937 rng(7);
    const char alphabet[] = "ab\"\\\n\x01\x7f\x80\xff ";
    for (int round = 0; round < 2000; ++round) {
        std::string text(rng() % 70, ' ');
        for (char& c : text) c = alphabet[rng() % (sizeof alphabet - 1)];
        std::string reference;
        sluice::json::append_string(reference, text);
        ASSERT_EQ(written(text), reference) << round;
    }
    EXPECT_EQ(written(""), "\"\"");
    EXPECT_EQ(written(std::string_view()), "\"\"");  // no data pointer at all (UBSan: memcpy from null)
}

TEST(Formatter, BufferKeepsItsBytesAcrossGrowth) {
    Buffer b;
    std::string expected;
    for (int i = 0; i < 20000; ++i) {
        const std::string piece = std::to_string(i) + ",";
        b.append(piece);
        expected += piece;
        if (i % 1000 == 0) {
            char* p = b.room(100000);  // far more room than used: only what is committed counts
            *p = 'x';
            b.commit(p + 1);
            expected += 'x';
        }
    }
    EXPECT_EQ(b.view(), expected);
    b.clear();
    EXPECT_TRUE(b.empty());
    b.push_back('!');
    EXPECT_EQ(b.view(), "!");
}

TEST(Formatter, WrittenNumbersMatchTheAppendedOnes) {
    char buf[max_number_length];
    EXPECT_EQ(std::string_view(buf, write_integer(buf, std::numeric_limits<std::int64_t>::min())),
              "-9223372036854775808");
    EXPECT_EQ(std::string_view(buf, write_unsigned(buf, std::numeric_limits<std::uint64_t>::max())),
              "18446744073709551615");
    EXPECT_EQ(std::string_view(buf, write_double(buf, -std::numeric_limits<double>::infinity())), "\"-inf\"");
    EXPECT_EQ(std::string_view(buf, write_double(buf, -std::numeric_limits<double>::denorm_min())), "-5e-324");
    EXPECT_EQ(std::string_view(buf, write_float(buf, -0.0F)), "0");
    EXPECT_EQ(std::string_view(buf, write_null(buf)), "null");
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
