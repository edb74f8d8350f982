// Packet framing, sequence ids, 16 MiB split/join and the compressed protocol.
#include "sluice/mariadb/transport/packet_channel.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb {
namespace {

constexpr std::size_t header_size = 4;
constexpr std::size_t compressed_header_size = 7;
// One recv() fills this much: a streamed result set of small rows is
// served by one syscall per ~64 KiB instead of one per row.
constexpr std::size_t initial_input_size = 64 * 1024;
// After a huge packet, buffers above this size are released rather than
// kept for the connection's lifetime.
constexpr std::size_t keep_buffer_limit = 16 * 1024 * 1024;
// deflate cannot expand data by more than ~1032:1; a frame claiming more is
// hostile or corrupt, and must not make us allocate what it claims.
constexpr std::size_t max_inflate_ratio = 1032;

std::size_t load_u24(const std::uint8_t* p) {
    return static_cast<std::size_t>(p[0]) | (static_cast<std::size_t>(p[1]) << 8) |
           (static_cast<std::size_t>(p[2]) << 16);
}

void store_u24(std::uint8_t* p, std::size_t value) {
    p[0] = static_cast<std::uint8_t>(value);
    p[1] = static_cast<std::uint8_t>(value >> 8);
    p[2] = static_cast<std::uint8_t>(value >> 16);
}

void release_if_huge(std::vector<std::uint8_t>& buffer) {
    if (buffer.capacity() > keep_buffer_limit) std::vector<std::uint8_t>().swap(buffer);
}

}  // namespace

struct PacketChannel::Compression {
    std::size_t threshold = 50;
    std::uint8_t sequence = 0;
    // Compressed frames as received: raw[raw_pos, raw_end).
    std::vector<std::uint8_t> raw = std::vector<std::uint8_t>(initial_input_size);
    std::size_t raw_pos = 0;
    std::size_t raw_end = 0;
    // Outgoing frames are assembled here, then written at once.
    std::vector<std::uint8_t> frames;
    // Offsets in out_ where a pipelined command begins (after the first):
    // each command is compressed into frames of its own, numbered from 0.
    std::vector<std::size_t> command_starts;
};

PacketChannel::PacketChannel(Socket socket, Timeouts timeouts)
    : socket_(std::move(socket)), timeouts_(timeouts), in_(initial_input_size) {}
PacketChannel::PacketChannel(PacketChannel&&) noexcept = default;
PacketChannel& PacketChannel::operator=(PacketChannel&&) noexcept = default;
PacketChannel::~PacketChannel() = default;

template <class Op>
auto PacketChannel::guarded(Op&& op) -> decltype(op()) {
    check_usable();
    try {
        return op();
    } catch (const Error&) {
        // The stream position is unknown after any failure: nothing more
        // can be read or written safely on this connection.
        broken_ = true;
        throw;
    }
}

void PacketChannel::check_usable() const {
    if (broken_) {
        throw Error(ErrorKind::broken, "connection to " + socket_.peer() +
                                           " is unusable after an earlier error or close");
    }
}

Deadline PacketChannel::next_read_deadline(LazyDeadline& deadline) const {
    if (deadline.expired()) {
        throw Error(ErrorKind::timeout, "read from " + socket_.peer() +
                                            " timed out: a packet still arriving after " +
                                            std::to_string(timeouts_.read.count()) + " ms");
    }
    return deadline.get();
}

void PacketChannel::check_packet_size(std::size_t reached) const {
    if (reached > max_packet_size_) {
        throw Error(ErrorKind::protocol,
                    "packet from " + socket_.peer() + " would reach " + std::to_string(reached) +
                        " bytes, over the limit of " + std::to_string(max_packet_size_) +
                        " bytes (max_packet_size)");
    }
}

std::size_t PacketChannel::raw_read(std::span<std::uint8_t> buf, Deadline deadline) {
    if (tls_) return tls_->read_some(buf, deadline);
    if (awaiting_reply_) {
        awaiting_reply_ = false;
        socket_.wait_readable(deadline);
    }
    return socket_.read_some(buf, deadline);
}

void PacketChannel::raw_write(std::span<const std::uint8_t> data, Deadline deadline) {
    if (tls_) {
        tls_->write_all(data, deadline);
    } else {
        socket_.write_all(data, deadline);
    }
}

void PacketChannel::reserve_input(std::size_t more) {
    if (in_.size() - in_end_ >= more) return;
    // Move the unconsumed tail to the front; views handed out earlier are
    // already invalid (we are inside the next read call).
    const std::size_t pending = in_end_ - in_pos_;
    if (in_pos_ > 0) {
        std::memmove(in_.data(), in_.data() + in_pos_, pending);
        in_pos_ = 0;
        in_end_ = pending;
    }
    if (in_.size() - in_end_ < more) in_.resize(std::max(in_.size() * 2, in_end_ + more));
}

void PacketChannel::fill(std::size_t n, LazyDeadline& deadline) {
    while (in_end_ - in_pos_ < n) {
        if (compression_) {
            read_compressed_frame(deadline);
            continue;
        }
        reserve_input(n - (in_end_ - in_pos_));
        in_end_ += raw_read(std::span(in_.data() + in_end_, in_.size() - in_end_),
                            next_read_deadline(deadline));
    }
}

void PacketChannel::read_compressed_frame(LazyDeadline& deadline) {
    Compression& c = *compression_;
    auto raw_fill = [&](std::size_t n) {
        while (c.raw_end - c.raw_pos < n) {
            if (c.raw.size() - c.raw_pos < n) {
                const std::size_t pending = c.raw_end - c.raw_pos;
                std::memmove(c.raw.data(), c.raw.data() + c.raw_pos, pending);
                c.raw_pos = 0;
                c.raw_end = pending;
                if (c.raw.size() < n) c.raw.resize(n);
            }
            c.raw_end += raw_read(std::span(c.raw.data() + c.raw_end, c.raw.size() - c.raw_end),
                                  next_read_deadline(deadline));
        }
    };
    raw_fill(compressed_header_size);
    const std::uint8_t* header = c.raw.data() + c.raw_pos;
    const std::size_t compressed_length = load_u24(header);
    const std::uint8_t frame_sequence = header[3];
    const std::size_t uncompressed_length = load_u24(header + 4);
    if (frame_sequence != c.sequence) {
        throw Error(ErrorKind::protocol, "compressed packet from " + socket_.peer() + " has sequence id " +
                                             std::to_string(frame_sequence) + ", expected " +
                                             std::to_string(c.sequence));
    }
    ++c.sequence;
    if (uncompressed_length > compressed_length * max_inflate_ratio + 64) {
        throw Error(ErrorKind::protocol, "compressed packet from " + socket_.peer() + " claims " +
                                             std::to_string(uncompressed_length) + " bytes from " +
                                             std::to_string(compressed_length) + " compressed bytes");
    }
    raw_fill(compressed_header_size + compressed_length);
    const std::uint8_t* payload = c.raw.data() + c.raw_pos + compressed_header_size;
    if (uncompressed_length == 0) {
        // Sent as is (below the sender's threshold, or incompressible).
        reserve_input(compressed_length);
        std::memcpy(in_.data() + in_end_, payload, compressed_length);
        in_end_ += compressed_length;
    } else {
        reserve_input(uncompressed_length);
        uLongf produced = static_cast<uLongf>(uncompressed_length);
        const int rc = ::uncompress(in_.data() + in_end_, &produced, payload, static_cast<uLong>(compressed_length));
        if (rc != Z_OK || produced != uncompressed_length) {
            throw Error(ErrorKind::protocol, "corrupt compressed packet from " + socket_.peer() + " (zlib: " +
                                                 (rc == Z_OK ? "length mismatch" : std::string(zError(rc))) + ")");
        }
        in_end_ += uncompressed_length;
    }
    c.raw_pos += compressed_header_size + compressed_length;
}

std::size_t PacketChannel::read_header(LazyDeadline& deadline) {
    if (in_end_ - in_pos_ < header_size) fill(header_size, deadline);
    const std::uint8_t* header = in_.data() + in_pos_;
    const std::size_t length = load_u24(header);
    const std::uint8_t packet_sequence = header[3];
    // Under compression, MariaDB and Connector/C check only the frames'
    // sequence; the inner ids follow the sender's own counter, so we adopt
    // them instead of checking.
    if (!compression_ && packet_sequence != sequence_) {
        throw Error(ErrorKind::protocol, "packet from " + socket_.peer() + " has sequence id " +
                                             std::to_string(packet_sequence) + ", expected " +
                                             std::to_string(sequence_));
    }
    sequence_ = static_cast<std::uint8_t>(packet_sequence + 1);
    in_pos_ += header_size;
    return length;
}

std::span<const std::uint8_t> PacketChannel::read_packet() {
    return guarded([&]() -> std::span<const std::uint8_t> {
        release_if_huge(joined_);
        LazyDeadline deadline(timeouts_.read);
        std::size_t length = read_header(deadline);
        // Each piece is checked from its header, before its bytes are
        // buffered: a hostile peer cannot make us hold more than the limit.
        check_packet_size(length);
        if (length < max_packet_piece && length <= in_.size()) {
            // Hot path: the packet fits the buffer and is handed out in place.
            if (in_end_ - in_pos_ < length) fill(length, deadline);
            const std::span<const std::uint8_t> packet(in_.data() + in_pos_, length);
            in_pos_ += length;
            return packet;
        }
        // Large or split packet: join the pieces as their bytes arrive, so
        // memory grows only with data actually received.
        joined_.clear();
        for (;;) {
            std::size_t remaining = length;
            while (remaining > 0) {
                if (in_end_ == in_pos_) fill(1, deadline);
                const std::size_t take = std::min(remaining, in_end_ - in_pos_);
                joined_.insert(joined_.end(), in_.data() + in_pos_, in_.data() + in_pos_ + take);
                in_pos_ += take;
                remaining -= take;
            }
            if (length < max_packet_piece) break;
            length = read_header(deadline);
            check_packet_size(joined_.size() + length);
        }
        return std::span<const std::uint8_t>(joined_);
    });
}

void PacketChannel::write_packet(std::span<const std::uint8_t> payload) {
    check_usable();
    std::size_t offset = 0;
    for (;;) {
        const std::size_t piece = std::min(payload.size() - offset, max_packet_piece);
        const std::size_t at = out_.size();
        out_.resize(at + header_size + piece);
        store_u24(out_.data() + at, piece);
        out_[at + 3] = sequence_++;
        if (piece > 0) std::memcpy(out_.data() + at + header_size, payload.data() + offset, piece);
        offset += piece;
        // A piece of exactly 0xFFFFFF bytes says "more follows": a payload
        // that is an exact multiple ends with an empty packet.
        if (piece < max_packet_piece) break;
    }
}

void PacketChannel::send_compressed(Deadline deadline) {
    Compression& c = *compression_;
    c.frames.clear();
    // The first command continues the current frame number (an exchange
    // under way, e.g. the rest of a LOAD DATA upload); every later one
    // starts at 0, as the server resets its count before each command.
    std::uint8_t frame_sequence = c.sequence;
    std::size_t next_boundary = 0;
    std::size_t offset = 0;
    while (offset < out_.size()) {
        if (next_boundary < c.command_starts.size() && c.command_starts[next_boundary] == offset) {
            frame_sequence = 0;
            ++next_boundary;
            continue;
        }
        // A frame never spans two commands: the server would take the
        // second command's bytes as left over from the first one's frame.
        const std::size_t command_end =
            next_boundary < c.command_starts.size() ? c.command_starts[next_boundary] : out_.size();
        const std::size_t chunk = std::min(command_end - offset, max_packet_piece);
        const std::uint8_t* source = out_.data() + offset;
        const std::size_t at = c.frames.size();
        bool deflated = false;
        if (chunk >= c.threshold) {
            uLongf bound = ::compressBound(static_cast<uLong>(chunk));
            c.frames.resize(at + compressed_header_size + bound);
            const int rc = ::compress(c.frames.data() + at + compressed_header_size, &bound, source,
                                      static_cast<uLong>(chunk));
            if (rc != Z_OK) {
                throw Error(ErrorKind::io, std::string("zlib compress failed: ") + zError(rc));
            }
            // Incompressible data goes as is: the frame must not grow.
            if (bound < chunk) {
                c.frames.resize(at + compressed_header_size + bound);
                store_u24(c.frames.data() + at, bound);
                store_u24(c.frames.data() + at + 4, chunk);
                deflated = true;
            }
        }
        if (!deflated) {
            c.frames.resize(at + compressed_header_size + chunk);
            std::memcpy(c.frames.data() + at + compressed_header_size, source, chunk);
            store_u24(c.frames.data() + at, chunk);
            store_u24(c.frames.data() + at + 4, 0);
        }
        c.frames[at + 3] = frame_sequence++;
        offset += chunk;
    }
    // The reply to the last command follows its frames' numbers (a command
    // begun by reset_sequence() but not written yet starts at 0).
    c.sequence = next_boundary < c.command_starts.size() ? 0 : frame_sequence;
    c.command_starts.clear();
    raw_write(c.frames, deadline);
    release_if_huge(c.frames);
}

void PacketChannel::flush() {
    guarded([&] {
        if (out_.empty()) return;
        const Deadline deadline = deadline_after(timeouts_.write);
        if (compression_) {
            send_compressed(deadline);
        } else {
            raw_write(out_, deadline);
        }
        awaiting_reply_ = in_end_ == in_pos_;
        out_.clear();
        release_if_huge(out_);
    });
}

void PacketChannel::send_packet(std::span<const std::uint8_t> payload) {
    write_packet(payload);
    flush();
}

void PacketChannel::mark_compressed_command_start() {
    Compression& c = *compression_;
    if (out_.empty()) {
        c.sequence = 0;
    } else if (c.command_starts.empty() || c.command_starts.back() != out_.size()) {
        // Another command behind buffered ones: send_compressed() starts
        // its frames here, at sequence 0.
        c.command_starts.push_back(out_.size());
    }
}

void PacketChannel::expect_sequence(std::uint8_t next, std::uint8_t next_frame) noexcept {
    sequence_ = next;
    if (compression_) compression_->sequence = next_frame;
}

bool PacketChannel::has_buffered_input() const noexcept {
    if (in_end_ != in_pos_) return true;
    return compression_ && compression_->raw_end != compression_->raw_pos;
}

void PacketChannel::start_tls(const TlsOptions& options, std::string_view host) {
    flush();  // the SSLRequest, if the caller only buffered it
    guarded([&] {
        if (tls_) throw Error(ErrorKind::usage, "TLS is already active on the connection to " + socket_.peer());
        if (in_end_ != in_pos_) {
            throw Error(ErrorKind::protocol, "server " + socket_.peer() + " sent data before the TLS handshake");
        }
        tls_ = std::make_unique<TlsSession>(
            TlsSession::handshake(socket_, options, host, deadline_after(timeouts_.connect)));
    });
}

void PacketChannel::enable_compression(std::size_t threshold) {
    flush();  // what was written before the switch goes uncompressed
    guarded([&] {
        if (compression_) return;
        if (in_end_ != in_pos_) {
            throw Error(ErrorKind::protocol,
                        "server " + socket_.peer() + " sent data before compression was enabled");
        }
        compression_ = std::make_unique<Compression>();
        compression_->threshold = threshold;
        // Frames number like packets: a new command resets both to 0, and an
        // exchange already under way continues from the current number.
        compression_->sequence = sequence_;
        compressed_ = true;
    });
}

void PacketChannel::close() noexcept {
    if (tls_) tls_->shutdown();
    socket_.shutdown();
    socket_.close();
    broken_ = true;
}

std::string PacketChannel::tls_version() const { return tls_ ? tls_->protocol_version() : std::string(); }
std::string PacketChannel::tls_cipher() const { return tls_ ? tls_->cipher() : std::string(); }
bool PacketChannel::tls_session_reused() const noexcept { return tls_ && tls_->session_reused(); }

}  // namespace sluice::mariadb
