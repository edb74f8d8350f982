// PacketFramer's compressed protocol without sockets: what one framer sends,
// another reads back, whatever the byte boundaries; each command in frames
// of its own numbered from 0; short packets in stored frames; hostile frames
// refused with PacketChannel's words.
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/packet_framer.hpp"

namespace sluice::mariadb {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes text(const std::string& s) { return Bytes(s.begin(), s.end()); }

Bytes drain(PacketFramer& f) {
    std::span<const std::uint8_t> out = f.output();
    Bytes bytes(out.begin(), out.end());
    f.sent(out.size());
    return bytes;
}

// Feeds `bytes` to `reader` in pieces of `piece` bytes, collecting every
// packet as soon as it is complete.
std::vector<Bytes> read_all(PacketFramer& reader, const Bytes& bytes, std::size_t piece) {
    std::vector<Bytes> packets;
    for (std::size_t at = 0; at < bytes.size();) {
        const std::size_t n = std::min(piece, bytes.size() - at);
        std::span<std::uint8_t> space = reader.input_space(n);
        std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(at), n, space.begin());
        reader.received(n);
        at += n;
        while (auto p = reader.next_packet()) packets.emplace_back(p->begin(), p->end());
    }
    return packets;
}

std::size_t u24(const Bytes& b, std::size_t at) {
    return b[at] | (static_cast<std::size_t>(b[at + 1]) << 8) | (static_cast<std::size_t>(b[at + 2]) << 16);
}

TEST(PacketFramerCompression, WhatOneFramerSendsAnotherReadsAtEveryPieceSize) {
    PacketFramer writer("client");
    writer.enable_compression(50);
    ASSERT_TRUE(writer.is_compressed());
    const Bytes big = text(std::string(5000, 'a') + "tail");
    writer.reset_sequence();
    writer.write_packet(big);
    writer.write_packet(text("short"));
    const Bytes wire = drain(writer);
    // One command, one deflated frame (number 0) far smaller than its packets.
    ASSERT_GE(wire.size(), 7U);
    EXPECT_EQ(u24(wire, 0) + 7, wire.size());
    EXPECT_EQ(wire[3], 0);
    EXPECT_EQ(u24(wire, 4), big.size() + 4 + 5 + 4);
    EXPECT_LT(wire.size(), 200U);
    for (std::size_t piece : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{64}, wire.size()}) {
        PacketFramer reader("scripted-server");
        reader.enable_compression(50);
        const std::vector<Bytes> packets = read_all(reader, wire, piece);
        ASSERT_EQ(packets.size(), 2U) << "pieces of " << piece;
        EXPECT_EQ(packets[0], big);
        EXPECT_EQ(packets[1], text("short"));
        EXPECT_FALSE(reader.has_buffered_input());
    }
}

TEST(PacketFramerCompression, EachCommandGetsFramesOfItsOwnFromZeroAndShortOnesAreStored) {
    PacketFramer writer("client");
    writer.enable_compression(50);
    writer.reset_sequence();
    writer.write_packet(text("first command"));
    writer.reset_sequence();
    writer.write_packet(text("second command"));
    const Bytes wire = drain(writer);
    // Two stored frames (below the threshold: uncompressed length 0), both
    // numbered 0, each holding one packet with inner id 0.
    const std::size_t first_frame = 7 + u24(wire, 0);
    ASSERT_LT(first_frame, wire.size());
    EXPECT_EQ(wire[3], 0);
    EXPECT_EQ(u24(wire, 4), 0U);
    EXPECT_EQ(u24(wire, 7), std::string("first command").size());
    EXPECT_EQ(wire[first_frame + 3], 0);
    EXPECT_EQ(u24(wire, first_frame + 4), 0U);
    EXPECT_EQ(first_frame + 7 + u24(wire, first_frame), wire.size());
}

TEST(PacketFramerCompression, AWrongFrameNumberIsRefused) {
    PacketFramer reader("scripted-server");
    reader.enable_compression(50);
    const Bytes frame = {1, 0, 0, 5, 0, 0, 0, 'x'};  // frame 5, expected 0
    try {
        read_all(reader, frame, frame.size());
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_STREQ(e.what(), "compressed packet from scripted-server has sequence id 5, expected 0");
    }
}

TEST(PacketFramerCompression, AFrameClaimingMoreThanDeflateCanProduceIsRefusedFromItsHeader) {
    PacketFramer reader("scripted-server");
    reader.enable_compression(50);
    // 10 compressed bytes claiming 16 MiB: refused before its payload arrives.
    const Bytes header = {10, 0, 0, 0, 0xff, 0xff, 0xff};
    try {
        read_all(reader, header, header.size());
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_STREQ(e.what(), "compressed packet from scripted-server claims 16777215 bytes from 10 compressed bytes");
    }
}

TEST(PacketFramerCompression, ACorruptFrameIsRefused) {
    PacketFramer reader("scripted-server");
    reader.enable_compression(50);
    const Bytes frame = {4, 0, 0, 0, 40, 0, 0, 1, 2, 3, 4};  // not deflate data
    try {
        read_all(reader, frame, frame.size());
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_NE(std::string(e.what()).find("corrupt compressed packet from scripted-server (zlib: "),
                  std::string::npos)
            << e.what();
    }
}

TEST(PacketFramerCompression, DataBeforeTheSwitchIsRefused) {
    PacketFramer reader("scripted-server");
    std::span<std::uint8_t> space = reader.input_space(1);
    space[0] = 0;
    reader.received(1);
    try {
        reader.enable_compression(50);
        FAIL() << "accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_STREQ(e.what(), "server scripted-server sent data before compression was enabled");
    }
}

}  // namespace
}  // namespace sluice::mariadb
