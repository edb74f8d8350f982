#pragma once
// The sans-I/O exchange model (Boost.MySQL's sansio algorithms are the
// model; src/auth's plugins are this codebase's). An exchange (login, a
// result's reading, a prepare, a simple command) owns its state and never
// touches a socket: whoever drives it calls resume() with what it asked for
// and gets the next Step back:
//
//   read      give me the next logical packet: resume(packet)
//   write     send the packets in the Outbox (then clear it): resume({})
//   start_tls switch the transport to TLS (tls_options()/tls_host() of the
//             login say how): resume({})
//   compress  switch the transport to the compressed protocol: resume({})
//   done      the exchange is over; read its outcome from the exchange
//
// and "error" is resume() throwing Error, with the kind and message the
// blocking API has always thrown. The framing (sequence ids, packet
// splitting, TLS, compression) is the driver's: src/transport's
// PacketChannel for the blocking runner, PacketFramer for AsyncConnection
// and the sequencing tests. Packets marked new_command restart the sequence
// at 0 before they go out (every command does).
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "sluice/mariadb/protocol/wire.hpp"

namespace sluice::mariadb::exchange {

enum class Step { read, write, start_tls, compress, done };

// The packets an exchange asks to send, encoded back to back in one reused
// buffer.
class Outbox {
public:
    struct Packet {
        std::size_t offset = 0;
        std::size_t size = 0;
        bool new_command = false;
    };

    // Encodes one packet with encode(protocol::Writer&).
    template <class F>
    void add(bool new_command, F&& encode) {
        const std::size_t begin = data_.size();
        protocol::Writer w(data_);
        encode(w);
        packets_.push_back(Packet{begin, data_.size() - begin, new_command});
    }
    void add_bytes(bool new_command, std::span<const std::uint8_t> payload) {
        add(new_command, [&](protocol::Writer& w) { w.bytes(payload); });
    }

    // For encoders that own their whole buffer (BulkPacket clears it and
    // takes back a row that does not fit): fill(std::vector<uint8_t>&)
    // writes one packet's payload straight into the outbox's buffer, so a
    // 16 MiB bulk packet is never copied. Only into an empty outbox; if fill
    // throws, the outbox stays empty.
    template <class F>
    void add_whole(bool new_command, F&& fill) {
        if (!empty()) throw std::logic_error("Outbox::add_whole needs an empty outbox");
        try {
            fill(data_);
        } catch (...) {
            data_.clear();
            throw;
        }
        packets_.push_back(Packet{0, data_.size(), new_command});
    }

    const std::vector<Packet>& packets() const noexcept { return packets_; }
    std::span<const std::uint8_t> payload(const Packet& p) const noexcept {
        return std::span<const std::uint8_t>(data_).subspan(p.offset, p.size);
    }
    bool empty() const noexcept { return packets_.empty(); }
    // Keeps the buffer's capacity: steady-state commands allocate nothing.
    void clear() noexcept {
        data_.clear();
        packets_.clear();
    }

private:
    std::vector<std::uint8_t> data_;
    std::vector<Packet> packets_;
};

}  // namespace sluice::mariadb::exchange
