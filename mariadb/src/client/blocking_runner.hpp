#pragma once
// The blocking runner: drives a sans-I/O exchange (exchange/step.hpp) over
// a PacketChannel, which frames, encrypts and compresses, waiting on the
// socket with the channel's deadlines. Every blocking call of the client
// runs its exchanges through here; AsyncConnection drives the same
// exchanges from an event loop.
#include <span>

#include "sluice/mariadb/exchange/login.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/transport/packet_channel.hpp"

namespace sluice::mariadb::detail {

// Sends what the outbox holds (each new command from sequence 0) in one
// flush, and empties it.
inline void send_outbox(PacketChannel& ch, exchange::Outbox& out) {
    for (const exchange::Outbox::Packet& p : out.packets()) {
        if (p.new_command) ch.reset_sequence();
        ch.write_packet(out.payload(p));
    }
    ch.flush();
    out.clear();
}

// Runs from `step` until Step::done: resume(Bytes) is the exchange's. The
// login (the only exchange that switches the transport) passes itself for
// start_tls and compress.
template <class Resume>
void run_blocking(PacketChannel& ch, exchange::Outbox& out, exchange::Step step, Resume&& resume,
                  const exchange::LoginExchange* login = nullptr) {
    using exchange::Step;
    for (;;) {
        switch (step) {
            case Step::read: step = resume(ch.read_packet()); break;
            case Step::write:
                send_outbox(ch, out);
                step = resume(std::span<const std::uint8_t>{});
                break;
            case Step::start_tls:
                ch.start_tls(login->tls_options(), login->tls_host());
                step = resume(std::span<const std::uint8_t>{});
                break;
            case Step::compress:
                ch.enable_compression(login->compress_threshold());
                step = resume(std::span<const std::uint8_t>{});
                break;
            case Step::done: return;
        }
    }
}

}  // namespace sluice::mariadb::detail
