#pragma once
// Sans-I/O framing of MariaDB packets, for drivers that do their own I/O
// (AsyncConnection, the sequencing tests): bytes in, logical packets out;
// packets in, bytes out. The same rules as PacketChannel (the blocking
// runner's framing): 3-byte length + sequence id, pieces of 0xFFFFFF bytes
// joined, the sequence checked, max_packet_size enforced from each piece's
// header before its bytes are kept, with the same error messages. The
// compressed protocol is PacketChannel's only.
#include <cstddef>
#include <cstdint>
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

    // Input: receive into input_space(), then say how much arrived.
    std::span<std::uint8_t> input_space(std::size_t at_least = 16 * 1024);
    void received(std::size_t n) noexcept { in_end_ += n; }
    // The next complete logical packet, or nullopt until more bytes arrive.
    // The view stays valid until the next call of next_packet() or
    // input_space(). Error{protocol} on a wrong sequence id or an oversized
    // packet.
    std::optional<std::span<const std::uint8_t>> next_packet();
    bool has_buffered_input() const noexcept { return in_end_ > in_pos_; }

    // Output: frame packets, then hand out the bytes to send.
    void reset_sequence() noexcept { sequence_ = 0; }
    // The next packet read must carry `next`: a pipeline's replies each
    // start where their own command ended (exchange/command_pipeline.hpp).
    void expect_sequence(std::uint8_t next) noexcept { sequence_ = next; }
    void write_packet(std::span<const std::uint8_t> payload);
    std::span<const std::uint8_t> output() const noexcept {
        return std::span<const std::uint8_t>(out_).subspan(out_pos_);
    }
    void sent(std::size_t n) noexcept;

    std::uint8_t sequence() const noexcept { return sequence_; }
    const std::string& peer() const noexcept { return peer_; }

private:
    std::string peer_;
    std::size_t max_packet_size_;
    std::vector<std::uint8_t> in_;
    std::size_t in_pos_ = 0;
    std::size_t in_end_ = 0;
    std::vector<std::uint8_t> joined_;
    std::vector<std::uint8_t> out_;
    std::size_t out_pos_ = 0;
    std::uint8_t sequence_ = 0;
};

}  // namespace sluice::mariadb
