// PacketChannel framing without a server: both ends of a socketpair (or of a
// loopback TCP connection where socket buffer size matters).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"
#include "socket_pair.hpp"

namespace sluice::mariadb {
namespace {

// The tests name a pair's two ends through references, not a structured
// binding: clang 14 (the fuzz preset's compiler) cannot capture a binding in
// a lambda.
using testing::socket_pair;
using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t piece = PacketChannel::max_packet_piece;

Bytes pattern(std::size_t size, std::uint32_t seed) {
    Bytes out(size);
    std::mt19937 rng(seed);
    for (auto& b : out) b = static_cast<std::uint8_t>(rng());
    return out;
}

// Bytes with long runs, so zlib actually shrinks them.
Bytes compressible(std::size_t size) {
    Bytes out(size);
    for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::uint8_t>('a' + (i / 97) % 26);
    return out;
}

// Reads exactly n raw bytes from a socket (the "server" side of a test).
Bytes read_raw(Socket& socket, std::size_t n) {
    Bytes out(n);
    std::size_t got = 0;
    const Deadline deadline = deadline_after(std::chrono::seconds(30));
    while (got < n) got += socket.read_some(std::span(out.data() + got, n - got), deadline);
    return out;
}

void write_raw(Socket& socket, const Bytes& bytes) {
    socket.write_all(bytes, deadline_after(std::chrono::seconds(30)));
}

Bytes header(std::size_t length, std::uint8_t sequence) {
    return {static_cast<std::uint8_t>(length), static_cast<std::uint8_t>(length >> 8),
            static_cast<std::uint8_t>(length >> 16), sequence};
}

ErrorKind kind_of(auto&& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.kind();
    }
    ADD_FAILURE() << "no Error thrown";
    return ErrorKind::usage;
}

TEST(Framing, SmallPacketsRoundTripWithSequenceIds) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    PacketChannel server(std::move(b));

    client.write_packet(Bytes{0x03, 'S', 'E', 'L'});
    client.write_packet(Bytes{});
    client.write_packet(Bytes{0x0e});
    EXPECT_EQ(client.sequence(), 3);
    client.flush();

    auto p0 = server.read_packet();
    EXPECT_EQ(Bytes(p0.begin(), p0.end()), (Bytes{0x03, 'S', 'E', 'L'}));
    EXPECT_TRUE(server.read_packet().empty());
    auto p2 = server.read_packet();
    EXPECT_EQ(Bytes(p2.begin(), p2.end()), Bytes{0x0e});
    EXPECT_EQ(server.sequence(), 3);

    // The answer continues the exchange's numbering.
    server.send_packet(Bytes{0x00, 0x00});
    auto ok = client.read_packet();
    EXPECT_EQ(Bytes(ok.begin(), ok.end()), (Bytes{0x00, 0x00}));
    EXPECT_EQ(client.sequence(), 4);

    client.reset_sequence();
    server.reset_sequence();
    client.send_packet(Bytes{0x0e});
    EXPECT_EQ(server.read_packet().size(), 1U);
    EXPECT_EQ(server.sequence(), 1);
}

TEST(Framing, WireBytesOfASmallPacket) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.send_packet(Bytes{0x10});  // COM_PING
    EXPECT_EQ(read_raw(b, 5), (Bytes{0x01, 0x00, 0x00, 0x00, 0x10}));
}

TEST(Framing, ManySmallPacketsFromOneBurst) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel reader(std::move(a));
    // 5,000 rows of varying size written in one burst, as a server streams
    // a result set: the reader must split them correctly whatever the recv
    // boundaries are.
    Bytes burst;
    for (std::size_t i = 0; i < 5000; ++i) {
        const std::size_t size = i % 300;
        const Bytes h = header(size, static_cast<std::uint8_t>(i));
        burst.insert(burst.end(), h.begin(), h.end());
        for (std::size_t j = 0; j < size; ++j) burst.push_back(static_cast<std::uint8_t>(i + j));
    }
    std::thread writer([&] { write_raw(b, burst); });
    for (std::size_t i = 0; i < 5000; ++i) {
        const auto packet = reader.read_packet();
        ASSERT_EQ(packet.size(), i % 300) << "packet " << i;
        for (std::size_t j = 0; j < packet.size(); ++j) {
            ASSERT_EQ(packet[j], static_cast<std::uint8_t>(i + j)) << "packet " << i << " byte " << j;
        }
    }
    writer.join();
}

TEST(Framing, LargePacketWithinOnePieceButLargerThanTheBuffer) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel writer_channel(std::move(a));
    PacketChannel reader(std::move(b));
    const Bytes payload = pattern(3 * 1024 * 1024 + 7, 1);
    std::thread writer([&] { writer_channel.send_packet(payload); });
    const auto got = reader.read_packet();
    writer.join();
    ASSERT_EQ(got.size(), payload.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), payload.begin()));
    EXPECT_EQ(reader.sequence(), 1);
}

// The split rule: pieces of exactly 0xFFFFFF bytes mean "more follows"; an
// exact multiple ends with an empty piece.
class SplitSizes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SplitSizes, JoinedBackExactly) {
    const std::size_t size = GetParam();
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel writer_channel(std::move(a));
    PacketChannel reader(std::move(b));
    const Bytes payload = pattern(size, static_cast<std::uint32_t>(size));
    std::thread writer([&] {
        writer_channel.write_packet(payload);
        writer_channel.write_packet(Bytes{0x42});  // the next packet follows
        writer_channel.flush();
    });
    const auto got = reader.read_packet();
    ASSERT_EQ(got.size(), payload.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), payload.begin()));
    const std::size_t pieces = size / piece + 1;
    EXPECT_EQ(reader.sequence(), pieces);
    const auto next = reader.read_packet();
    ASSERT_EQ(next.size(), 1U);
    EXPECT_EQ(next[0], 0x42);
    writer.join();
}

INSTANTIATE_TEST_SUITE_P(Framing, SplitSizes,
                         ::testing::Values(piece - 1, piece, piece + 1, 2 * piece, 2 * piece + 1000));

TEST(Framing, ExactMultipleIsFollowedByAnEmptyPacketOnTheWire) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel writer_channel(std::move(a));
    const Bytes payload = pattern(piece, 9);
    std::thread writer([&] { writer_channel.send_packet(payload); });
    const Bytes first = read_raw(b, 4);
    EXPECT_EQ(first, header(piece, 0));
    const Bytes body = read_raw(b, piece);
    EXPECT_EQ(body, payload);
    EXPECT_EQ(read_raw(b, 4), header(0, 1));
    writer.join();
}

TEST(Framing, SequenceMismatchIsAProtocolErrorAndBreaksTheChannel) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    Bytes wrong = header(1, 5);
    wrong.push_back(0x00);
    write_raw(b, wrong);
    try {
        client.read_packet();
        FAIL() << "expected a protocol error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_NE(std::string(e.what()).find("sequence id 5, expected 0"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(client.broken());
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::broken);
    EXPECT_EQ(kind_of([&] { client.send_packet(Bytes{1}); }), ErrorKind::broken);
}

TEST(Framing, SequenceMismatchInALaterPiece) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    std::thread writer([&] {
        Bytes stream = header(piece, 0);
        stream.resize(4 + piece, 0x11);
        const Bytes bad = header(3, 7);
        stream.insert(stream.end(), bad.begin(), bad.end());
        stream.insert(stream.end(), {1, 2, 3});
        write_raw(b, stream);
    });
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::protocol);
    writer.join();
}

TEST(Framing, TruncatedStreamIsClosed) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    Bytes partial = header(100, 0);
    partial.resize(4 + 10, 0x33);
    write_raw(b, partial);
    b.close();
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::closed);
    EXPECT_TRUE(client.broken());
}

TEST(Framing, TruncatedHeaderIsClosed) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    write_raw(b, Bytes{0x05, 0x00});
    b.close();
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::closed);
}

TEST(Framing, HugeClaimedLengthOnATruncatedStreamIsClosed) {
    // A header claiming a 16 MiB piece followed by nothing: the reader must
    // end with "closed", having only buffered what arrived.
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    write_raw(b, header(piece, 0));
    b.close();
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::closed);
}

TEST(Framing, SilentPeerHitsTheReadDeadline) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    PacketChannel client(std::move(a), Timeouts{std::chrono::milliseconds(1000), std::chrono::milliseconds(150),
                                                std::chrono::milliseconds(1000)});
    const auto started = Clock::now();
    try {
        client.read_packet();
        FAIL() << "expected a timeout";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::timeout);
        EXPECT_NE(std::string(e.what()).find("pair-a"), std::string::npos) << e.what();
    }
    EXPECT_GE(Clock::now() - started, std::chrono::milliseconds(150));
    EXPECT_TRUE(client.broken());
}

TEST(Framing, PeerSendingTooSlowlyStillHitsTheDeadline) {
    // A trickle of bytes must not extend the deadline of one read_packet().
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a), Timeouts{std::chrono::milliseconds(1000), std::chrono::milliseconds(300),
                                                std::chrono::milliseconds(1000)});
    std::atomic<bool> stop{false};
    std::thread trickler([&] {
        write_raw(b, header(50, 0));
        for (int i = 0; i < 40 && !stop; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            try {
                write_raw(b, Bytes{0x01});
            } catch (const Error&) {
                return;
            }
        }
    });
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::timeout);
    stop = true;
    trickler.join();
}

TEST(Framing, WriteDeadlineOnAPeerThatNeverReads) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    PacketChannel client(std::move(a), Timeouts{std::chrono::milliseconds(1000), std::chrono::milliseconds(1000),
                                                std::chrono::milliseconds(150)});
    const Bytes big = pattern(8 * 1024 * 1024, 3);
    EXPECT_EQ(kind_of([&] { client.send_packet(big); }), ErrorKind::timeout);
    EXPECT_TRUE(client.broken());
}

TEST(Framing, ClosedChannelRefusesFurtherUse) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    PacketChannel client(std::move(a));
    client.close();
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::broken);
    EXPECT_EQ(kind_of([&] { client.flush(); }), ErrorKind::broken);
}

TEST(Framing, ViewStaysValidAcrossWrites) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    PacketChannel server(std::move(b));
    server.send_packet(Bytes{1, 2, 3, 4});
    const auto view = client.read_packet();
    client.send_packet(Bytes{9, 9});
    EXPECT_EQ(Bytes(view.begin(), view.end()), (Bytes{1, 2, 3, 4}));
}

// ----- compressed protocol -----

struct CompressedPair {
    PacketChannel client;
    PacketChannel server;
};

CompressedPair compressed_pair(std::size_t threshold = 50) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    CompressedPair pair{PacketChannel(std::move(a)), PacketChannel(std::move(b))};
    pair.client.enable_compression(threshold);
    pair.server.enable_compression(threshold);
    return pair;
}

TEST(Compression, SmallAndLargePacketsRoundTrip) {
    auto pair = compressed_pair();
    EXPECT_TRUE(pair.client.is_compressed());
    const std::vector<Bytes> payloads = {Bytes{0x03, 'x'}, compressible(49), compressible(50), compressible(70000),
                                         pattern(100000, 4), Bytes{}};
    std::thread writer([&] {
        for (const auto& p : payloads) pair.client.write_packet(p);
        pair.client.flush();
    });
    for (const auto& expected : payloads) {
        const auto got = pair.server.read_packet();
        ASSERT_EQ(got.size(), expected.size());
        EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.begin()));
    }
    writer.join();
    // And back, on the same exchange.
    pair.server.send_packet(compressible(1000));
    EXPECT_EQ(pair.client.read_packet().size(), 1000U);
}

TEST(Compression, PacketsOver16MiBRoundTripBothWays) {
    auto pair = compressed_pair();
    const Bytes big = compressible(2 * piece + 12345);
    const Bytes random = pattern(piece + 3, 5);  // incompressible, goes as is
    std::thread writer([&] {
        pair.client.write_packet(big);
        pair.client.write_packet(random);
        pair.client.flush();
    });
    const auto got = pair.server.read_packet();
    ASSERT_EQ(got.size(), big.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), big.begin()));
    const auto got_random = pair.server.read_packet();
    ASSERT_EQ(got_random.size(), random.size());
    EXPECT_TRUE(std::equal(got_random.begin(), got_random.end(), random.begin()));
    writer.join();

    std::thread back([&] { pair.server.send_packet(big); });
    const auto echoed = pair.client.read_packet();
    back.join();
    ASSERT_EQ(echoed.size(), big.size());
    EXPECT_TRUE(std::equal(echoed.begin(), echoed.end(), big.begin()));
}

TEST(Compression, BelowThresholdGoesUncompressedOnTheWire) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression(50);
    client.send_packet(Bytes{0x10});  // 5 bytes with its header: below 50
    const Bytes frame = read_raw(b, 7 + 5);
    EXPECT_EQ(Bytes(frame.begin(), frame.begin() + 7), (Bytes{5, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(Bytes(frame.begin() + 7, frame.end()), (Bytes{1, 0, 0, 0, 0x10}));
}

TEST(Compression, AboveThresholdIsDeflatedOnTheWire) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.reset_sequence();
    client.enable_compression(50);
    const Bytes payload = compressible(4000);
    client.send_packet(payload);
    const Bytes h = read_raw(b, 7);
    const auto u24 = [](const std::uint8_t* p) {
        return std::size_t{p[0]} | (std::size_t{p[1]} << 8) | (std::size_t{p[2]} << 16);
    };
    const std::size_t compressed = u24(h.data());
    const std::size_t uncompressed = u24(h.data() + 4);
    EXPECT_EQ(h[3], 0);
    EXPECT_EQ(uncompressed, payload.size() + 4);
    EXPECT_LT(compressed, payload.size() / 4);
}

TEST(Compression, StartsAfterTheLoginOkWithTheNextCommand) {
    // The login's OK is plain; compression applies from the next command,
    // whose frames start at sequence 0 like its packets.
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    PacketChannel server(std::move(b));
    server.send_packet(Bytes{10});
    client.read_packet();
    client.send_packet(Bytes{1, 2, 3});
    server.read_packet();
    server.send_packet(Bytes{0, 0, 0});
    EXPECT_EQ(client.read_packet().size(), 3U);
    client.enable_compression();
    server.enable_compression();
    client.reset_sequence();
    server.reset_sequence();
    client.send_packet(Bytes{0x03, 'S'});
    EXPECT_EQ(server.read_packet().size(), 2U);
    server.send_packet(compressible(500));
    EXPECT_EQ(client.read_packet().size(), 500U);
    EXPECT_EQ(client.sequence(), 2);
}

TEST(Compression, WrongFrameSequenceIsAProtocolError) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression();
    write_raw(b, Bytes{5, 0, 0, 9, 0, 0, 0, 1, 0, 0, 0, 0x00});
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::protocol);
}

TEST(Compression, CorruptDeflateDataIsAProtocolError) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression();
    write_raw(b, Bytes{6, 0, 0, 0, 100, 0, 0, 'g', 'a', 'r', 'b', 'a', 'g'});
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::protocol);
}

TEST(Compression, ImplausibleInflatedSizeIsRejectedBeforeAllocating) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression();
    // 2 compressed bytes claiming 16 MiB - 1 uncompressed.
    write_raw(b, Bytes{2, 0, 0, 0, 0xff, 0xff, 0xff, 0x78, 0x9c});
    try {
        client.read_packet();
        FAIL() << "expected a protocol error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::protocol);
        EXPECT_NE(std::string(e.what()).find("claims 16777215 bytes"), std::string::npos) << e.what();
    }
}

TEST(Compression, TruncatedFrameIsClosed) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression();
    write_raw(b, Bytes{20, 0, 0, 0, 0, 0, 0, 1, 2});
    b.close();
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::closed);
}

// ----- pipelined commands under compression -----

struct RawFrame {
    std::uint8_t sequence;
    std::size_t compressed_length;
    std::size_t uncompressed_length;  // 0: payload sent as is
};

RawFrame read_frame_header(Socket& socket) {
    const Bytes h = read_raw(socket, 7);
    const auto u24 = [](const std::uint8_t* p) {
        return std::size_t{p[0]} | (std::size_t{p[1]} << 8) | (std::size_t{p[2]} << 16);
    };
    return RawFrame{h[3], u24(h.data()), u24(h.data() + 4)};
}

Bytes frame(std::uint8_t sequence, const Bytes& packets) {
    Bytes out = header(packets.size(), sequence);
    out.insert(out.end(), {0, 0, 0});  // sent as is
    out.insert(out.end(), packets.begin(), packets.end());
    return out;
}

Bytes packet(std::uint8_t sequence, const Bytes& payload) {
    Bytes out = header(payload.size(), sequence);
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

TEST(CompressedPipeline, EachCommandGetsItsOwnFramesNumberedFromZero) {
    // The server reads one command's frames, resets its frame count, then
    // reads the next command: frames must not mix commands, and each
    // command's first frame carries 0.
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression(50);
    const Bytes big = compressible(4000);  // deflated
    client.reset_sequence();
    client.write_packet(Bytes{0x1f});  // COM_RESET_CONNECTION
    client.reset_sequence();
    client.write_packet(big);
    client.reset_sequence();
    client.write_packet(Bytes{0x03, 'S'});
    client.write_packet(Bytes{0x04});  // a second packet of the same command
    client.flush();

    const RawFrame f1 = read_frame_header(b);
    EXPECT_EQ(f1.sequence, 0);
    EXPECT_EQ(f1.uncompressed_length, 0U);
    EXPECT_EQ(read_raw(b, f1.compressed_length), packet(0, Bytes{0x1f}));

    const RawFrame f2 = read_frame_header(b);
    EXPECT_EQ(f2.sequence, 0);
    EXPECT_EQ(f2.uncompressed_length, big.size() + 4);
    EXPECT_LT(f2.compressed_length, big.size() / 4);
    read_raw(b, f2.compressed_length);

    const RawFrame f3 = read_frame_header(b);
    EXPECT_EQ(f3.sequence, 0);
    Bytes both = packet(0, Bytes{0x03, 'S'});
    const Bytes second = packet(1, Bytes{0x04});
    both.insert(both.end(), second.begin(), second.end());
    EXPECT_EQ(read_raw(b, f3.compressed_length), both);
    // The last command took one frame: its reply comes as frame 1.
    write_raw(b, frame(1, packet(2, Bytes{0x00})));
    EXPECT_EQ(client.read_packet().size(), 1U);
}

TEST(CompressedPipeline, RepliesWhoseFrameSequenceRestartsAreReadInOrder) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression(50);
    for (int i = 0; i < 3; ++i) {
        client.reset_sequence();
        client.write_packet(Bytes{0x0e});
    }
    client.flush();
    read_raw(b, 3 * (7 + 5));

    // Reply 1: one packet in frame 1. Reply 2: two packets in frame 1.
    // Reply 3: frames 1 and 2, a packet in each.
    Bytes wire = frame(1, packet(1, Bytes{0x00, 1}));
    Bytes two = packet(1, Bytes{0x01});
    const Bytes more = packet(2, compressible(300));
    two.insert(two.end(), more.begin(), more.end());
    for (const Bytes& f : {frame(1, two), frame(1, packet(1, Bytes{0x00, 3})), frame(2, packet(2, Bytes{0xfe}))}) {
        wire.insert(wire.end(), f.begin(), f.end());
    }
    write_raw(b, wire);

    client.expect_sequence(1);
    auto first = client.read_packet();
    EXPECT_EQ(Bytes(first.begin(), first.end()), (Bytes{0x00, 1}));
    client.expect_sequence(1);
    EXPECT_EQ(client.read_packet().size(), 1U);
    EXPECT_EQ(client.read_packet().size(), 300U);
    client.expect_sequence(1);
    auto third = client.read_packet();
    EXPECT_EQ(Bytes(third.begin(), third.end()), (Bytes{0x00, 3}));
    auto last = client.read_packet();
    EXPECT_EQ(Bytes(last.begin(), last.end()), (Bytes{0xfe}));
}

TEST(CompressedPipeline, ASecondReplyReadWithoutExpectSequenceIsAProtocolError) {
    // The frame count restarts per reply: reading on as if it continued
    // must be caught, not silently accepted.
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.enable_compression(50);
    for (int i = 0; i < 2; ++i) {
        client.reset_sequence();
        client.write_packet(Bytes{0x0e});
    }
    client.flush();
    Bytes wire = frame(1, packet(1, Bytes{0x00}));
    const Bytes second = frame(1, packet(1, Bytes{0x00}));
    wire.insert(wire.end(), second.begin(), second.end());
    write_raw(b, wire);
    client.read_packet();
    EXPECT_EQ(kind_of([&] { client.read_packet(); }), ErrorKind::protocol);
}

TEST(CompressedPipeline, ServerSideChannelReadsEachCommandAndRepliesInStep) {
    // Both ends through PacketChannel, the server resetting before each
    // command as MariaDB does: commands and replies stay in step.
    auto pair = compressed_pair();
    const std::vector<Bytes> commands = {Bytes{0x1f}, compressible(2000), Bytes{0x16, 'S', 'E', 'L'}};
    for (const Bytes& c : commands) {
        pair.client.reset_sequence();
        pair.client.write_packet(c);
    }
    pair.client.flush();
    std::thread server([&] {
        for (const Bytes& c : commands) {
            pair.server.reset_sequence();
            EXPECT_EQ(pair.server.read_packet().size(), c.size());
            pair.server.send_packet(compressible(c.size() + 100));
        }
    });
    for (const Bytes& c : commands) {
        pair.client.expect_sequence(1);
        EXPECT_EQ(pair.client.read_packet().size(), c.size() + 100);
    }
    server.join();
}

// --- Packet size limit -------------------------------------------------

std::string message_of(auto&& action) {
    try {
        action();
    } catch (const Error& e) {
        return std::string(to_string(e.kind())) + ": " + e.what();
    }
    ADD_FAILURE() << "no Error thrown";
    return {};
}

TEST(PacketLimit, DefaultIsWhatTheClientAnnounces) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    PacketChannel client(std::move(a));
    EXPECT_EQ(client.max_packet_size(), protocol::default_max_packet_size);
}

TEST(PacketLimit, APacketOfExactlyTheLimitIsRead) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.set_max_packet_size(1000);
    PacketChannel server(std::move(b));
    server.send_packet(pattern(1000, 7));
    EXPECT_EQ(client.read_packet().size(), 1000U);
}

TEST(PacketLimit, AHeaderOverTheLimitFailsBeforeItsPayloadArrives) {
    // Only the header is sent, then the peer closes: a client that waited
    // for the payload would report "closed"; the limit is seen in the header.
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.set_max_packet_size(1000);
    write_raw(b, header(1001, 0));
    b.close();
    const std::string message = message_of([&] { client.read_packet(); });
    EXPECT_NE(message.find("protocol"), std::string::npos) << message;
    EXPECT_NE(message.find("1001 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("limit of 1000 bytes"), std::string::npos) << message;
    EXPECT_TRUE(client.broken());
}

TEST(PacketLimit, TheLimitCountsTheJoinedPieces) {
    // One full piece (within the limit), then the header of a second piece
    // that would take the packet past it, then nothing: the client must stop
    // at that header, not wait for (or buffer) the second piece.
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.set_max_packet_size(piece + 100);
    std::thread writer([&b] {
        Bytes wire = header(piece, 0);
        const Bytes body = pattern(piece, 8);
        wire.insert(wire.end(), body.begin(), body.end());
        const Bytes second = header(101, 1);
        wire.insert(wire.end(), second.begin(), second.end());
        write_raw(b, wire);
        b.close();
    });
    const std::string message = message_of([&] { client.read_packet(); });
    writer.join();
    EXPECT_NE(message.find("protocol"), std::string::npos) << message;
    EXPECT_NE(message.find(std::to_string(piece + 101) + " bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("limit of " + std::to_string(piece + 100)), std::string::npos)
        << message;
}

TEST(PacketLimit, SplitPacketsUpToTheLimitStillJoin) {
    auto ends = socket_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a));
    client.set_max_packet_size(piece + 100);
    PacketChannel server(std::move(b));
    const Bytes big = pattern(piece + 100, 9);
    std::thread writer([&] { server.send_packet(big); });
    const auto got = client.read_packet();
    writer.join();
    ASSERT_EQ(got.size(), big.size());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), big.begin()));
}

TEST(PacketLimit, AppliesInsideCompressedFrames) {
    auto pair = compressed_pair();
    pair.client.set_max_packet_size(1000);
    pair.server.send_packet(compressible(1000));
    EXPECT_EQ(pair.client.read_packet().size(), 1000U);
    pair.server.reset_sequence();
    pair.client.reset_sequence();
    pair.server.send_packet(compressible(5000));
    const std::string message = message_of([&] { pair.client.read_packet(); });
    EXPECT_NE(message.find("protocol"), std::string::npos) << message;
    EXPECT_NE(message.find("5000 bytes"), std::string::npos) << message;
}

// --- Read deadline against a peer that never pauses ----------------------

// Two ends of a loopback TCP connection: its socket buffers are far larger
// than a socketpair's, so a fast writer stays ahead of the reader.
std::pair<Socket, Socket> tcp_pair() {
    const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
        throw std::runtime_error("tcp_pair: cannot listen on 127.0.0.1");
    }
    Socket client = Socket::connect_tcp("127.0.0.1", ntohs(addr.sin_port),
                                        deadline_after(std::chrono::seconds(10)));
    const int accepted = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    ::close(listener);
    if (accepted < 0) throw std::runtime_error("tcp_pair: accept failed");
    return {std::move(client), Socket::adopt(accepted, "tcp-b")};
}

TEST(Framing, APeerThatNeverPausesCannotStretchAReadPastItsDeadline) {
    // A 1 GiB packet (64 full pieces and an empty one, within the default
    // limit) sent as fast as the socket takes it: the reader always finds
    // bytes ready and never waits, so only a deadline checked before each
    // read ends the call. No machine reads 1 GiB through a socket in 300 ms;
    // without the check the whole packet is read and returned.
    constexpr std::size_t pieces = 64;
    auto ends = tcp_pair();
    Socket& a = ends.first;
    Socket& b = ends.second;
    PacketChannel client(std::move(a),
                         Timeouts{std::chrono::milliseconds(1000), std::chrono::milliseconds(300),
                                  std::chrono::milliseconds(1000)});
    std::atomic<std::size_t> sent{0};
    std::thread writer([&] {
        const Bytes chunk = pattern(1024 * 1024, 10);
        try {
            for (std::size_t p = 0; p <= pieces; ++p) {
                const std::size_t length = p < pieces ? piece : 0;
                write_raw(b, header(length, static_cast<std::uint8_t>(p)));
                for (std::size_t done = 0; done < length;) {
                    const std::size_t n = std::min(chunk.size(), length - done);
                    b.write_all(std::span(chunk.data(), n),
                                deadline_after(std::chrono::seconds(30)));
                    done += n;
                    sent += n;
                }
            }
        } catch (const Error&) {
            // The reader gave up and closed its end.
        }
        b.close();
    });
    const ErrorKind kind = kind_of([&] { client.read_packet(); });
    client.close();
    writer.join();
    EXPECT_EQ(kind, ErrorKind::timeout);
    EXPECT_LT(sent.load(), pieces * piece);
}

}  // namespace
}  // namespace sluice::mariadb
