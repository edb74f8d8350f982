#include "sluice/mariadb/protocol/rows.hpp"

#include <gtest/gtest.h>

#include "bytes.hpp"

namespace sluice::mariadb::protocol {
namespace {

using test::PacketBuilder;

TEST(TextRow, SplitsFieldsAndNullsWithoutCopying) {
    PacketBuilder p;
    p.lenenc("42").u8(0xFB).lenenc("").lenenc("héllo");
    std::vector<FieldSlice> out(4);
    decode_text_row(p.bytes, out);
    EXPECT_EQ(as_text(out[0].bytes), "42");
    EXPECT_TRUE(out[1].null);
    EXPECT_FALSE(out[2].null);
    EXPECT_EQ(out[2].bytes.size(), 0u);
    EXPECT_EQ(as_text(out[3].bytes), "héllo");
    EXPECT_EQ(out[0].bytes.data(), p.bytes.data() + 1);  // a view into the packet
}

TEST(TextRow, LongValuesUseWiderLengthPrefixes) {
    std::string big(300, 'b');
    PacketBuilder p;
    p.lenenc("a").raw({0xFC, 0x2C, 0x01}).text(big).u8(0xFB);
    std::vector<FieldSlice> out(3);
    decode_text_row(p.bytes, out);
    EXPECT_EQ(as_text(out[0].bytes), "a");
    EXPECT_EQ(as_text(out[1].bytes), big);
    EXPECT_TRUE(out[2].null);
}

TEST(TextRow, LengthBeyondThePacketNamesTheColumn) {
    PacketBuilder one_byte;
    one_byte.lenenc("ok").u8(10).text("short");
    std::vector<FieldSlice> out(2);
    try {
        decode_text_row(one_byte.bytes, out);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_NE(std::string(e.what()).find("column 1"), std::string::npos) << e.what();
    }
    PacketBuilder wide;
    wide.lenenc("ok").raw({0xFD, 0xFF, 0xFF, 0xFF}).text("x");
    try {
        decode_text_row(wide.bytes, out);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("column 1"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << e.what();
    }
}

TEST(TextRow, TooFewOrTooManyFieldsAreErrorsNamingTheColumn) {
    PacketBuilder p;
    p.lenenc("1").lenenc("2");
    std::vector<FieldSlice> three(3);
    try {
        decode_text_row(p.bytes, three);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("column 2"), std::string::npos) << e.what();
    }
    std::vector<FieldSlice> one(1);
    EXPECT_THROW(decode_text_row(p.bytes, one), Error);
}

TEST(BinaryRow, DecodesEachEncodingAndTheOffsetNullBitmap) {
    std::vector<ColumnType> types{ColumnType::tiny,     ColumnType::short_,   ColumnType::long_,
                                  ColumnType::longlong, ColumnType::double_,  ColumnType::datetime,
                                  ColumnType::time,     ColumnType::var_string, ColumnType::date};
    PacketBuilder p;
    p.u8(0x00);
    // 9 columns -> (9 + 9) / 8 = 2 bytes; column 8 (bit 10) is NULL.
    p.u8(0x00).u8(0x04);
    p.u8(0xFF);                                     // tiny -1
    p.u16(0x8000);                                  // short
    p.u32(0xFFFFFFFF);                              // long
    p.u32(1).u32(0);                                // longlong 1
    p.raw({0, 0, 0, 0, 0, 0, 0xF0, 0x3F});          // double 1.0
    p.u8(11).u16(2024).u8(2).u8(29).u8(23).u8(59).u8(58).u32(123456);
    p.u8(12).u8(1).u32(34).u8(22).u8(59).u8(59).u32(999999);
    p.lenenc("abc");
    std::vector<FieldSlice> out(types.size());
    decode_binary_row(p.bytes, types, out);
    EXPECT_EQ(out[0].bytes.size(), 1u);
    EXPECT_EQ(out[3].bytes.size(), 8u);
    EXPECT_EQ(as_text(out[7].bytes), "abc");
    EXPECT_TRUE(out[8].null);
    DateTime dt = decode_binary_datetime(out[5].bytes);
    EXPECT_EQ(dt, (DateTime{2024, 2, 29, 23, 59, 58, 123456}));
    Time t = decode_binary_time(out[6].bytes);
    EXPECT_TRUE(t.negative);
    EXPECT_EQ(t.hours, 34u * 24 + 22);
    EXPECT_EQ(t.microseconds, 999999u);
}

TEST(BinaryRow, InvalidTemporalLengthAndTrailingBytesAreErrors) {
    std::vector<ColumnType> types{ColumnType::date};
    PacketBuilder bad_len;
    bad_len.u8(0).u8(0).u8(5).raw({1, 2, 3, 4, 5});
    std::vector<FieldSlice> out(1);
    EXPECT_THROW(decode_binary_row(bad_len.bytes, types, out), Error);
    PacketBuilder trailing;
    trailing.u8(0).u8(0).u8(0).u8(0xAA);
    EXPECT_THROW(decode_binary_row(trailing.bytes, types, out), Error);
}

TEST(BinaryRow, OutOfRangeTemporalFieldsAreErrors) {
    std::vector<std::uint8_t> month13{0xE8, 0x07, 13, 1};
    EXPECT_THROW(decode_binary_datetime(month13), Error);
    std::vector<std::uint8_t> hour25{0, 0, 0, 0, 0, 25, 0, 0};
    EXPECT_THROW(decode_binary_time(hour25), Error);
    EXPECT_EQ(decode_binary_datetime({}), DateTime{});
}

TEST(BinaryRow, EveryTruncationIsAnError) {
    std::vector<ColumnType> types{ColumnType::longlong, ColumnType::var_string};
    PacketBuilder p;
    p.u8(0).u8(0).u32(5).u32(0).lenenc("xyz");
    std::vector<FieldSlice> out(2);
    decode_binary_row(p.bytes, types, out);
    for (std::size_t n = 0; n < p.bytes.size(); ++n) {
        std::vector<std::uint8_t> cut(p.bytes.begin(), p.bytes.begin() + static_cast<long>(n));
        EXPECT_EQ(test::kind_of_error([&] { decode_binary_row(cut, types, out); }), ErrorKind::protocol) << n;
    }
}

}  // namespace
}  // namespace sluice::mariadb::protocol
