#pragma once
// The framing layer of the MariaDB protocol: logical packets over a Socket,
// optionally inside TLS and/or the zlib compressed protocol.
//
// Wire format: 3-byte little-endian length + 1-byte sequence id + payload.
// A logical packet of 0xFFFFFF bytes or more is split into 0xFFFFFF-byte
// pieces followed by a shorter (possibly empty) one. Every command starts at
// sequence 0 (reset_sequence()); each packet in either direction takes the
// next id, and a mismatch is a protocol error.
//
// Compressed protocol (after enable_compression()): the packet stream above is
// carried in compressed frames: 3-byte compressed length + 1-byte compressed
// sequence + 3-byte uncompressed length (0 = payload sent as is), then the
// payload. Frames have their own sequence, reset with reset_sequence() too.
// Several commands may be buffered before one flush (pipelining): each goes
// into frames of its own, numbered from 0 (the server reads one command's
// frames, then starts its frame count again for the next command).
//
// Packet size limit: a logical packet whose joined pieces would exceed
// max_packet_size() is Error{protocol}, raised from the length header of the
// piece that would cross it, before any of that piece is buffered. The
// default is what the client announces in its handshake response.
//
// Any I/O, timeout or framing failure marks the channel broken: every later
// call throws Error{broken}, since the stream position is then unknown.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/transport/deadline.hpp"
#include "sluice/mariadb/transport/socket.hpp"
#include "sluice/mariadb/transport/tls.hpp"

namespace sluice::mariadb {

class PacketChannel {
public:
    // Largest piece of a logical packet on the wire.
    static constexpr std::size_t max_packet_piece = 0xFFFFFF;

    explicit PacketChannel(Socket socket, Timeouts timeouts = {});
    PacketChannel(PacketChannel&&) noexcept;
    PacketChannel& operator=(PacketChannel&&) noexcept;
    PacketChannel(const PacketChannel&) = delete;
    PacketChannel& operator=(const PacketChannel&) = delete;
    ~PacketChannel();

    // Switches to TLS. The caller has already sent the SSLRequest packet
    // (through send_packet, so the sequence continues after it). host is
    // used for SNI and for the verify_full name check. Anything still
    // buffered for reading is a protocol error (the server must wait).
    void start_tls(const TlsOptions& options, std::string_view host);

    // Switches to the compressed protocol from the next packet on, in both
    // directions. Payloads shorter than threshold go uncompressed. MariaDB
    // (and Connector/C) switch after the OK that ends authentication, not
    // right after the HandshakeResponse: call it once that OK was read. The
    // frame sequence then follows reset_sequence() like the packets'.
    void enable_compression(std::size_t threshold = 50);

    // Reads one logical packet (continuations joined) and checks its
    // sequence id. The view stays valid until the next read_packet() call
    // (writes do not invalidate it). Deadline: timeouts().read for the whole
    // logical packet (all its pieces and frames), counted from the first
    // time the call has to read the socket; it is checked before every read,
    // so a peer that keeps bytes flowing cannot stretch the call past it.
    std::span<const std::uint8_t> read_packet();

    // Buffers one logical packet, splitting it and assigning sequence ids.
    void write_packet(std::span<const std::uint8_t> payload);
    // Sends everything buffered. Deadline: now + timeouts().write.
    void flush();
    // write_packet + flush.
    void send_packet(std::span<const std::uint8_t> payload);

    // A new command starts at sequence 0 (also the compressed sequence).
    // Called while packets are still buffered, it also marks where the next
    // command begins: under compression that command gets frames of its own.
    void reset_sequence() {
        sequence_ = 0;
        if (compression_) mark_compressed_command_start();
    }
    // The sequence id the next packet (read or written) must carry.
    std::uint8_t sequence() const noexcept { return sequence_; }
    // Pipelining (several commands written, then their replies read): before
    // reading the reply to each command, the id that reply starts with (1
    // for a one-packet command) and, under compression, the frame sequence
    // it starts with (the number of frames the command took: 1 for any
    // command shorter than 16 MiB). The server numbers each command's
    // frames from 0, so the replies' frame numbers restart for every reply.
    void expect_sequence(std::uint8_t next, std::uint8_t next_frame = 1) noexcept;

    // Bytes received and buffered but not read as packets yet (decoded or,
    // under compression, still in frames). After the last expected reply,
    // any is a reply nobody asked for.
    bool has_buffered_input() const noexcept;

    bool is_tls() const noexcept { return tls_ != nullptr; }
    bool is_compressed() const noexcept { return compressed_; }
    bool broken() const noexcept { return broken_; }
    // Sends nothing; shuts the TLS session (close_notify, best effort) and
    // the socket down. Later calls throw Error{broken}.
    void close() noexcept;

    // Largest logical packet read_packet() accepts (see the top comment).
    void set_max_packet_size(std::size_t bytes) noexcept { max_packet_size_ = bytes; }
    std::size_t max_packet_size() const noexcept { return max_packet_size_; }

    void set_timeouts(Timeouts timeouts) noexcept { timeouts_ = timeouts; }
    const Timeouts& timeouts() const noexcept { return timeouts_; }
    // The underlying socket (for its peer name and descriptor).
    const Socket& socket() const noexcept { return socket_; }
    // TLS details for diagnostics; empty strings when plain.
    std::string tls_version() const;
    std::string tls_cipher() const;
    // True when the TLS handshake resumed a kept session (TlsSession).
    bool tls_session_reused() const noexcept;

private:
    // reset_sequence() under compression: the frame sequence, and where the
    // next command's frames start when packets are still buffered.
    void mark_compressed_command_start();
    struct Compression;  // zlib state, compressed sequence, raw frame buffer

    // The deadline of one read_packet() call, taken from the clock only when
    // the call first has to wait for bytes: a packet already buffered (most
    // rows of a streamed result) costs no clock read, which matters on VMs
    // where clock_gettime is slow.
    class LazyDeadline {
    public:
        explicit LazyDeadline(std::chrono::milliseconds timeout) noexcept : timeout_(timeout) {}
        Deadline get() {
            if (!known_) {
                deadline_ = deadline_after(timeout_);
                known_ = true;
            }
            return deadline_;
        }
        // True once a deadline was taken and has passed.
        bool expired() const {
            return known_ && deadline_ != Deadline::max() && Clock::now() >= deadline_;
        }

    private:
        std::chrono::milliseconds timeout_;
        Deadline deadline_{};
        bool known_ = false;
    };

    void check_usable() const;
    // The deadline for the next raw read of a read_packet() call; throws
    // Error{timeout} if the call has already run past it (bytes arriving
    // without pause never make a read wait, and only waits see the clock).
    Deadline next_read_deadline(LazyDeadline& deadline) const;
    // Error{protocol} unless `reached` bytes fit max_packet_size_.
    void check_packet_size(std::size_t reached) const;
    // Runs op; any Error marks the channel broken before it propagates.
    template <class Op>
    auto guarded(Op&& op) -> decltype(op());
    // Raw byte source/sink: TLS when active, the socket otherwise.
    std::size_t raw_read(std::span<std::uint8_t> buf, Deadline deadline);
    void raw_write(std::span<const std::uint8_t> data, Deadline deadline);
    // Ensures n bytes of the packet stream are buffered at in_pos_
    // (n <= in_.size()); throws on EOF or timeout.
    void fill(std::size_t n, LazyDeadline& deadline);
    // Makes room for `more` bytes after in_end_, compacting or growing in_.
    void reserve_input(std::size_t more);
    // Appends the payload of the next compressed frame to in_.
    void read_compressed_frame(LazyDeadline& deadline);
    // Reads a 4-byte packet header, checks its sequence; returns the length.
    std::size_t read_header(LazyDeadline& deadline);
    void send_compressed(Deadline deadline);

    Socket socket_;
    std::unique_ptr<TlsSession> tls_;
    std::unique_ptr<Compression> compression_;
    Timeouts timeouts_;
    std::size_t max_packet_size_ = protocol::default_max_packet_size;

    // Bytes of the packet stream received but not yet consumed:
    // in_[in_pos_, in_end_). With compression these are decompressed bytes.
    std::vector<std::uint8_t> in_;
    std::size_t in_pos_ = 0;
    std::size_t in_end_ = 0;
    // A packet larger than the buffer, or split over several pieces, is
    // joined here.
    std::vector<std::uint8_t> joined_;
    // Packets written but not flushed (the uncompressed packet stream).
    std::vector<std::uint8_t> out_;

    std::uint8_t sequence_ = 0;
    bool compressed_ = false;
    bool broken_ = false;
    // Set by flush(): the reply to what was just sent cannot have arrived
    // yet, so the next socket read waits first instead of trying recv() and
    // getting EAGAIN (one syscall less per round trip).
    bool awaiting_reply_ = false;
};

}  // namespace sluice::mariadb
