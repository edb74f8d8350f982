#include "sluice/mariadb/transport/packet_framer.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace {
constexpr std::size_t header_size = 4;
constexpr std::size_t compressed_header_size = 7;
// deflate cannot expand data by more than ~1032:1; a frame claiming more is
// hostile or corrupt, and must not make us allocate what it claims.
constexpr std::size_t max_inflate_ratio = 1032;
// After a huge packet, buffers above this size are released.
constexpr std::size_t keep_buffer_limit = 16 * 1024 * 1024;

std::size_t load_u24(const std::uint8_t* p) {
    return static_cast<std::size_t>(p[0]) | (static_cast<std::size_t>(p[1]) << 8) |
           (static_cast<std::size_t>(p[2]) << 16);
}
void store_u24(std::uint8_t* p, std::size_t value) {
    p[0] = static_cast<std::uint8_t>(value);
    p[1] = static_cast<std::uint8_t>(value >> 8);
    p[2] = static_cast<std::uint8_t>(value >> 16);
}

// Room for `at_least` more bytes after buffer[pos, end): the unread part
// moves to the front when that makes the room, else the buffer grows.
std::span<std::uint8_t> room(std::vector<std::uint8_t>& buffer, std::size_t& pos, std::size_t& end,
                             std::size_t at_least) {
    if (pos == end) {
        pos = end = 0;
    } else if (pos > 0 && buffer.size() - end < at_least) {
        std::memmove(buffer.data(), buffer.data() + pos, end - pos);
        end -= pos;
        pos = 0;
    }
    if (buffer.size() - end < at_least) buffer.resize(std::max(buffer.size() * 2, end + at_least));
    return std::span<std::uint8_t>(buffer.data() + end, buffer.size() - end);
}

// Frames packets into `out`: pieces of 0xFFFFFF bytes, numbered from `sequence`.
void frame_packet(std::vector<std::uint8_t>& out, std::span<const std::uint8_t> payload, std::uint8_t& sequence) {
    std::size_t offset = 0;
    for (;;) {
        const std::size_t piece = std::min(payload.size() - offset, PacketFramer::max_packet_piece);
        const std::size_t at = out.size();
        out.resize(at + header_size + piece);
        store_u24(out.data() + at, piece);
        out[at + 3] = sequence++;
        if (piece > 0) std::memcpy(out.data() + at + header_size, payload.data() + offset, piece);
        offset += piece;
        // A piece of exactly 0xFFFFFF bytes says "more follows".
        if (piece < PacketFramer::max_packet_piece) break;
    }
}
}  // namespace

struct PacketFramer::Compression {
    std::size_t threshold = 50;
    // The next frame's number, both ways: a new command resets it to 0, the
    // reply's frames follow the request's.
    std::uint8_t sequence = 0;
    // Frames as received: raw[raw_pos, raw_end).
    std::vector<std::uint8_t> raw = std::vector<std::uint8_t>(64 * 1024);
    std::size_t raw_pos = 0;
    std::size_t raw_end = 0;
    // Packets written and not yet compressed into out_.
    std::vector<std::uint8_t> plain;
    // Offsets in `plain` where a later command begins: each command is
    // compressed into frames of its own, numbered from 0.
    std::vector<std::size_t> command_starts;
};

PacketFramer::PacketFramer(std::string peer, std::size_t max_packet_size)
    : peer_(std::move(peer)), max_packet_size_(max_packet_size), in_(64 * 1024) {}
PacketFramer::PacketFramer(PacketFramer&&) noexcept = default;
PacketFramer& PacketFramer::operator=(PacketFramer&&) noexcept = default;
PacketFramer::~PacketFramer() = default;

std::span<std::uint8_t> PacketFramer::input_space(std::size_t at_least) {
    if (compression_) return room(compression_->raw, compression_->raw_pos, compression_->raw_end, at_least);
    return room(in_, in_pos_, in_end_, at_least);
}

void PacketFramer::received(std::size_t n) noexcept {
    if (compression_) {
        compression_->raw_end += n;
    } else {
        in_end_ += n;
    }
}

bool PacketFramer::has_buffered_input() const noexcept {
    return in_end_ > in_pos_ || (compression_ && compression_->raw_end > compression_->raw_pos);
}

void PacketFramer::append_input(const std::uint8_t* data, std::size_t n) {
    std::span<std::uint8_t> space = room(in_, in_pos_, in_end_, n);
    std::memcpy(space.data(), data, n);
    in_end_ += n;
}

// Every complete frame received so far, inflated into in_ (where packets
// are found as without compression).
void PacketFramer::inflate_frames() {
    Compression& c = *compression_;
    for (;;) {
        if (c.raw_end - c.raw_pos < compressed_header_size) return;
        const std::uint8_t* header = c.raw.data() + c.raw_pos;
        const std::size_t compressed_length = load_u24(header);
        const std::uint8_t frame_sequence = header[3];
        const std::size_t uncompressed_length = load_u24(header + 4);
        if (frame_sequence != c.sequence) {
            throw Error(ErrorKind::protocol, "compressed packet from " + peer_ + " has sequence id " +
                                                 std::to_string(frame_sequence) + ", expected " +
                                                 std::to_string(c.sequence));
        }
        if (uncompressed_length > compressed_length * max_inflate_ratio + 64) {
            throw Error(ErrorKind::protocol, "compressed packet from " + peer_ + " claims " +
                                                 std::to_string(uncompressed_length) + " bytes from " +
                                                 std::to_string(compressed_length) + " compressed bytes");
        }
        if (c.raw_end - c.raw_pos - compressed_header_size < compressed_length) return;
        const std::uint8_t* payload = header + compressed_header_size;
        if (uncompressed_length == 0) {
            // Sent as is (below the sender's threshold, or incompressible).
            append_input(payload, compressed_length);
        } else {
            std::span<std::uint8_t> space = room(in_, in_pos_, in_end_, uncompressed_length);
            uLongf produced = static_cast<uLongf>(uncompressed_length);
            const int rc = ::uncompress(space.data(), &produced, payload, static_cast<uLong>(compressed_length));
            if (rc != Z_OK || produced != uncompressed_length) {
                throw Error(ErrorKind::protocol, "corrupt compressed packet from " + peer_ + " (zlib: " +
                                                     (rc == Z_OK ? "length mismatch" : std::string(zError(rc))) + ")");
            }
            in_end_ += uncompressed_length;
        }
        ++c.sequence;
        c.raw_pos += compressed_header_size + compressed_length;
    }
}

std::optional<std::span<const std::uint8_t>> PacketFramer::next_packet() {
    if (joined_.capacity() > keep_buffer_limit) std::vector<std::uint8_t>().swap(joined_);
    if (compression_) inflate_frames();
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
        // Under compression, MariaDB and Connector/C check only the frames'
        // numbers; the inner ids follow the sender's own counter, so they
        // are adopted instead of checked (as PacketChannel does).
        if (compression_) expected = header[3];
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
    frame_packet(compression_ ? compression_->plain : out_, payload, sequence_);
}

void PacketFramer::reset_sequence() {
    sequence_ = 0;
    if (!compression_) return;
    Compression& c = *compression_;
    if (c.plain.empty()) {
        c.sequence = 0;
    } else if (c.command_starts.empty() || c.command_starts.back() != c.plain.size()) {
        // Another command behind pending ones: its frames start here, at 0.
        c.command_starts.push_back(c.plain.size());
    }
}

std::span<const std::uint8_t> PacketFramer::output() {
    if (compression_ && !compression_->plain.empty()) compress_pending();
    return std::span<const std::uint8_t>(out_).subspan(out_pos_);
}

// The packets written since the last output(), as frames appended to out_:
// PacketChannel::send_compressed's rules.
void PacketFramer::compress_pending() {
    Compression& c = *compression_;
    std::uint8_t frame_sequence = c.sequence;
    std::size_t next_boundary = 0;
    std::size_t offset = 0;
    while (offset < c.plain.size()) {
        if (next_boundary < c.command_starts.size() && c.command_starts[next_boundary] == offset) {
            frame_sequence = 0;
            ++next_boundary;
            continue;
        }
        // A frame never spans two commands: the server would take the
        // second command's bytes as left over from the first one's frame.
        const std::size_t command_end =
            next_boundary < c.command_starts.size() ? c.command_starts[next_boundary] : c.plain.size();
        const std::size_t chunk = std::min(command_end - offset, max_packet_piece);
        const std::uint8_t* source = c.plain.data() + offset;
        const std::size_t at = out_.size();
        bool deflated = false;
        if (chunk >= c.threshold) {
            uLongf bound = ::compressBound(static_cast<uLong>(chunk));
            out_.resize(at + compressed_header_size + bound);
            const int rc =
                ::compress(out_.data() + at + compressed_header_size, &bound, source, static_cast<uLong>(chunk));
            if (rc != Z_OK) throw Error(ErrorKind::io, std::string("zlib compress failed: ") + zError(rc));
            // Incompressible data goes as is: the frame must not grow.
            if (bound < chunk) {
                out_.resize(at + compressed_header_size + bound);
                store_u24(out_.data() + at, bound);
                store_u24(out_.data() + at + 4, chunk);
                deflated = true;
            }
        }
        if (!deflated) {
            out_.resize(at + compressed_header_size + chunk);
            std::memcpy(out_.data() + at + compressed_header_size, source, chunk);
            store_u24(out_.data() + at, chunk);
            store_u24(out_.data() + at + 4, 0);
        }
        out_[at + 3] = frame_sequence++;
        offset += chunk;
    }
    // The reply to the last command follows its frames' numbers (a command
    // begun by reset_sequence() but not written yet starts at 0).
    c.sequence = next_boundary < c.command_starts.size() ? 0 : frame_sequence;
    c.command_starts.clear();
    c.plain.clear();
    if (c.plain.capacity() > keep_buffer_limit) std::vector<std::uint8_t>().swap(c.plain);
}

void PacketFramer::enable_compression(std::size_t threshold) {
    if (compression_) return;
    if (in_end_ != in_pos_) {
        throw Error(ErrorKind::protocol, "server " + peer_ + " sent data before compression was enabled");
    }
    compression_ = std::make_unique<Compression>();
    compression_->threshold = threshold;
    // Frames number like packets: an exchange under way continues from the
    // current number.
    compression_->sequence = sequence_;
}

void PacketFramer::sent(std::size_t n) noexcept {
    out_pos_ += n;
    if (out_pos_ == out_.size()) {
        out_.clear();
        out_pos_ = 0;
    }
}

}  // namespace sluice::mariadb
