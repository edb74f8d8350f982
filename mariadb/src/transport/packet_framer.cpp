#include "sluice/mariadb/transport/packet_framer.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace {
constexpr std::size_t header_size = 4;
// After a huge packet, buffers above this size are released.
constexpr std::size_t keep_buffer_limit = 16 * 1024 * 1024;

std::size_t load_u24(const std::uint8_t* p) {
    return static_cast<std::size_t>(p[0]) | (static_cast<std::size_t>(p[1]) << 8) |
           (static_cast<std::size_t>(p[2]) << 16);
}
}  // namespace

PacketFramer::PacketFramer(std::string peer, std::size_t max_packet_size)
    : peer_(std::move(peer)), max_packet_size_(max_packet_size), in_(64 * 1024) {}

std::span<std::uint8_t> PacketFramer::input_space(std::size_t at_least) {
    if (in_pos_ == in_end_) {
        in_pos_ = in_end_ = 0;
    } else if (in_pos_ > 0 && in_.size() - in_end_ < at_least) {
        std::memmove(in_.data(), in_.data() + in_pos_, in_end_ - in_pos_);
        in_end_ -= in_pos_;
        in_pos_ = 0;
    }
    if (in_.size() - in_end_ < at_least) in_.resize(std::max(in_.size() * 2, in_end_ + at_least));
    return std::span<std::uint8_t>(in_.data() + in_end_, in_.size() - in_end_);
}

std::optional<std::span<const std::uint8_t>> PacketFramer::next_packet() {
    if (joined_.capacity() > keep_buffer_limit) std::vector<std::uint8_t>().swap(joined_);
    // Walk the pieces without consuming them: nothing moves until the whole
    // logical packet is here, so a packet split anywhere reads the same.
    std::size_t at = in_pos_;
    std::size_t total = 0;
    std::uint8_t expected = sequence_;
    std::size_t pieces = 0;
    for (;;) {
        if (in_end_ - at < header_size) return std::nullopt;
        const std::uint8_t* header = in_.data() + at;
        const std::size_t length = load_u24(header);
        if (header[3] != expected) {
            throw Error(ErrorKind::protocol, "packet from " + peer_ + " has sequence id " +
                                                 std::to_string(header[3]) + ", expected " +
                                                 std::to_string(expected));
        }
        if (total + length > max_packet_size_) {
            throw Error(ErrorKind::protocol, "packet from " + peer_ + " would reach " +
                                                 std::to_string(total + length) + " bytes, over the limit of " +
                                                 std::to_string(max_packet_size_) + " bytes (max_packet_size)");
        }
        if (in_end_ - at - header_size < length) return std::nullopt;
        at += header_size + length;
        total += length;
        ++pieces;
        ++expected;
        if (length < max_packet_piece) break;
    }
    sequence_ = expected;
    const std::size_t first = in_pos_;
    in_pos_ = at;
    if (pieces == 1) return std::span<const std::uint8_t>(in_.data() + first + header_size, total);
    joined_.clear();
    for (std::size_t p = first; p < at;) {
        const std::size_t length = load_u24(in_.data() + p);
        joined_.insert(joined_.end(), in_.data() + p + header_size, in_.data() + p + header_size + length);
        p += header_size + length;
    }
    return std::span<const std::uint8_t>(joined_);
}

void PacketFramer::write_packet(std::span<const std::uint8_t> payload) {
    std::size_t offset = 0;
    for (;;) {
        const std::size_t piece = std::min(payload.size() - offset, max_packet_piece);
        const std::size_t at = out_.size();
        out_.resize(at + header_size + piece);
        out_[at] = static_cast<std::uint8_t>(piece);
        out_[at + 1] = static_cast<std::uint8_t>(piece >> 8);
        out_[at + 2] = static_cast<std::uint8_t>(piece >> 16);
        out_[at + 3] = sequence_++;
        if (piece > 0) std::memcpy(out_.data() + at + header_size, payload.data() + offset, piece);
        offset += piece;
        // A piece of exactly 0xFFFFFF bytes says "more follows".
        if (piece < max_packet_piece) break;
    }
}

void PacketFramer::sent(std::size_t n) noexcept {
    out_pos_ += n;
    if (out_pos_ == out_.size()) {
        out_.clear();
        out_pos_ = 0;
    }
}

}  // namespace sluice::mariadb
