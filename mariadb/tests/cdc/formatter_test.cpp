// The NDJSON value formatter on values alone (the real-server test compares
// SELECT and CDC lines for every type).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

}  // namespace
}  // namespace sluice::mariadb::ndjson
