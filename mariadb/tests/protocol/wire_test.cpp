#include "sluice/mariadb/protocol/wire.hpp"

#include <gtest/gtest.h>

#include "bytes.hpp"

namespace sluice::mariadb::protocol {
namespace {

TEST(Wire, LenencIntegersRoundTripAtEveryWidthBoundary) {
    for (std::uint64_t v : {0ull, 250ull, 251ull, 0xFFFFull, 0x10000ull, 0xFFFFFFull, 0x1000000ull,
                            0xFFFFFFFFFFFFFFFFull}) {
        std::vector<std::uint8_t> buf;
        Writer w(buf);
        w.lenenc(v);
        EXPECT_EQ(buf.size(), lenenc_size(v)) << v;
        Reader r(buf, "test");
        EXPECT_EQ(r.lenenc("v"), v);
        EXPECT_TRUE(r.at_end());
    }
}

TEST(Wire, NullMarkerAndReservedPrefixAreNotIntegers) {
    std::vector<std::uint8_t> null_marker{0xFB};
    Reader r1(null_marker, "test");
    EXPECT_THROW(r1.lenenc("v"), Error);
    std::vector<std::uint8_t> ff{0xFF};
    Reader r2(ff, "test");
    EXPECT_THROW(r2.lenenc("v"), Error);
}

TEST(Wire, TruncatedIntegerNamesPacketFieldAndOffset) {
    std::vector<std::uint8_t> buf{0xFD, 0x01};
    Reader r(buf, "OK packet");
    try {
        r.lenenc("affected rows");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        std::string msg = e.what();
        EXPECT_NE(msg.find("OK packet"), std::string::npos) << msg;
        EXPECT_NE(msg.find("affected rows"), std::string::npos) << msg;
        EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    }
}

TEST(Wire, HostileStringLengthIsRejectedWithoutReading) {
    // Claims 2^63 bytes, holds 3.
    std::vector<std::uint8_t> buf{0xFE, 0, 0, 0, 0, 0, 0, 0, 0x80, 'a', 'b', 'c'};
    Reader r(buf, "column definition");
    try {
        r.lenenc_bytes("catalog");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos);
    }
    EXPECT_EQ(r.position(), 0u);
}

TEST(Wire, NulStringNeedsItsTerminator) {
    std::vector<std::uint8_t> ok{'a', 'b', 0, 'c'};
    Reader r(ok, "t");
    EXPECT_EQ(r.nul_text("s"), "ab");
    EXPECT_EQ(r.remaining(), 1u);
    std::vector<std::uint8_t> bad{'a', 'b'};
    Reader r2(bad, "t");
    EXPECT_THROW(r2.nul_text("s"), Error);
}

TEST(Wire, FixedIntegersAreLittleEndian) {
    std::vector<std::uint8_t> buf;
    Writer w(buf);
    w.u16(0x0102);
    w.u24(0x030405);
    w.u32(0x06070809);
    w.u64(0x0A0B0C0D0E0F1011ull);
    EXPECT_EQ(buf, (std::vector<std::uint8_t>{2, 1, 5, 4, 3, 9, 8, 7, 6, 0x11, 0x10, 0x0F, 0x0E, 0x0D, 0x0C, 0x0B, 0x0A}));
    Reader r(buf, "t");
    EXPECT_EQ(r.u16("a"), 0x0102);
    EXPECT_EQ(r.u24("b"), 0x030405u);
    EXPECT_EQ(r.u32("c"), 0x06070809u);
    EXPECT_EQ(r.u64("d"), 0x0A0B0C0D0E0F1011ull);
    EXPECT_THROW(r.u8("e"), Error);
}

}  // namespace
}  // namespace sluice::mariadb::protocol
