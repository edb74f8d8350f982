// EventSplitter: a binlog file's bytes (after the magic) cut into events
// by their event_length fields, each checked against what is left.
#include <algorithm>
#include <string>

#include "sluice/mariadb/binlog/decoder.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::binlog {

EventSplitter::EventSplitter(std::span<const std::uint8_t> file_bytes) : bytes_(file_bytes) {
    static constexpr std::uint8_t magic[4] = {0xFE, 'b', 'i', 'n'};
    if (bytes_.size() < 4 || !std::equal(magic, magic + 4, bytes_.begin()))
        throw Error(ErrorKind::protocol, "not a binlog file: it does not start with 0xFE 'bin'");
}

std::span<const std::uint8_t> EventSplitter::next() {
    if (pos_ >= bytes_.size()) return {};
    std::size_t left = bytes_.size() - pos_;
    if (left < event_header_length)
        throw Error(ErrorKind::protocol, "binlog file: " + std::to_string(left) + " bytes at offset " +
                                             std::to_string(pos_) + " are less than an event header");
    const std::uint8_t* p = bytes_.data() + pos_ + 9;
    std::uint32_t len = std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
                        (std::uint32_t{p[3]} << 24);
    if (len < event_header_length || len > left)
        throw Error(ErrorKind::protocol, "binlog file: the event at offset " + std::to_string(pos_) + " claims " +
                                             std::to_string(len) + " bytes, " + std::to_string(left) + " are left");
    auto ev = bytes_.subspan(pos_, len);
    pos_ += len;
    return ev;
}

}  // namespace sluice::mariadb::binlog
