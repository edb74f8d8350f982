#pragma once
// Sans-I/O framing of MariaDB packets, for drivers that do their own I/O
// (AsyncConnection, the sequencing tests): bytes in, logical packets out;
// packets in, bytes out. The same rules as PacketChannel (the blocking
// runner's framing): 3-byte length + sequence id, pieces of 0xFFFFFF bytes
// joined, the sequence checked, max_packet_size enforced from each piece's
// header before its bytes are kept, with the same error messages; and the
// compressed protocol (enable_compression), framed as PacketChannel frames
// it: each command in frames of its own numbered from 0, inner packet ids
// adopted rather than checked, a frame's claimed size bounded by deflate's
// ratio before anything is allocated.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sluice/mariadb/protocol/constants.hpp"

namespace sluice::mariadb {

class PacketFramer {
public:
    static constexpr std::size_t max_packet_piece = 0xFFFFFF;

    // `peer` names the server in errors.
    explicit PacketFramer(std::string peer, std::size_t max_packet_size = protocol::default_max_packet_size);

    PacketFramer(PacketFramer&&) noexcept;
    PacketFramer& operator=(PacketFramer&&) noexcept;
    ~PacketFramer();

    // Input: receive into input_space(), then say how much arrived.
    std::span<std::uint8_t> input_space(std::size_t at_least = 16 * 1024);
    void received(std::size_t n) noexcept;
    // The next complete logical packet, or nullopt until more bytes arrive.
    // The view stays valid until the next call of next_packet() or
    // input_space(). Error{protocol} on a wrong sequence id or an oversized
    // packet, and under compression on a wrong frame number, a frame
    // claiming more than deflate can produce, or a corrupt one.
    std::optional<std::span<const std::uint8_t>> next_packet();
    bool has_buffered_input() const noexcept;

    // Output: frame packets, then hand out the bytes to send. A packet
    // written after reset_sequence() starts a new command (under
    // compression: frames of its own, numbered from 0).
    void reset_sequence();
    // The next packet read must carry `next`: a pipeline's replies each
    // start where their own command ended (exchange/command_pipeline.hpp).
    // Packets only: frames are inflated as they arrive, so a compressed
    // connection cannot be pipelined through the framer (AsyncConnection
    // refuses it).
    void expect_sequence(std::uint8_t next) noexcept { sequence_ = next; }
    void write_packet(std::span<const std::uint8_t> payload);
    // Under compression the packets written since the last call are
    // compressed into frames here.
    std::span<const std::uint8_t> output();
    void sent(std::size_t n) noexcept;

    // From the next packet on, both ways: the compressed protocol (after the
    // login's OK). Packets below `threshold` bytes go in stored frames.
    // Error{protocol} when the server already sent more.
    void enable_compression(std::size_t threshold);
    bool is_compressed() const noexcept { return compression_ != nullptr; }

    std::uint8_t sequence() const noexcept { return sequence_; }
    const std::string& peer() const noexcept { return peer_; }

private:
    struct Compression;
    void inflate_frames();
    void compress_pending();
    void append_input(const std::uint8_t* data, std::size_t n);

    std::string peer_;
    std::size_t max_packet_size_;
    std::vector<std::uint8_t> in_;
    std::size_t in_pos_ = 0;
    std::size_t in_end_ = 0;
    std::vector<std::uint8_t> joined_;
    std::vector<std::uint8_t> out_;
    std::size_t out_pos_ = 0;
    std::uint8_t sequence_ = 0;
    std::unique_ptr<Compression> compression_;
};

}  // namespace sluice::mariadb
