#pragma once
// Driving an exchange without sockets: scripted server bytes (built to the
// wire format with the hostile server's packet helpers) are fed through the
// sans-I/O framer in pieces, and same_for_every_split() checks that every
// split (at each byte boundary, and one byte at a time) gives the unsplit
// run's transcript (its events, the error and its message) and makes the
// client send the same bytes.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hostile_server.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/exchange/step.hpp"
#include "sluice/mariadb/transport/packet_framer.hpp"

namespace sluice::mariadb::test {

using Bytes = std::vector<std::uint8_t>;

// Server packets, framed with their sequence ids.
struct Script {
    Bytes bytes;
    Script& packet(std::uint8_t sequence, const Bytes& payload) {
        bytes.push_back(static_cast<std::uint8_t>(payload.size()));
        bytes.push_back(static_cast<std::uint8_t>(payload.size() >> 8));
        bytes.push_back(static_cast<std::uint8_t>(payload.size() >> 16));
        bytes.push_back(sequence);
        bytes.insert(bytes.end(), payload.begin(), payload.end());
        return *this;
    }
};

// What one run produced: a transcript of events and what the client sent.
struct Transcript {
    std::vector<std::string> events;
    Bytes sent;
    bool operator==(const Transcript&) const = default;
};
// gtest prints a differing transcript as its events and bytes.
inline void PrintTo(const Transcript& t, std::ostream* os) {
    for (const std::string& e : t.events) *os << "\n  event: " << e;
    *os << "\n  sent " << t.sent.size() << " bytes:";
    for (std::uint8_t b : t.sent) *os << ' ' << static_cast<int>(b);
}

// Feeds `server` to a framer in the pieces `cuts` says (each cut ends a
// piece), driving `resume` from `step`; Step::done ends the run.
class Driver {
public:
    Driver(const Bytes& server, std::vector<std::size_t> cuts) : server_(server), cuts_(std::move(cuts)) {}

    PacketFramer framer{"scripted-server"};
    exchange::Outbox out;
    Transcript run;

    void drive(exchange::Step step, const std::function<exchange::Step(std::span<const std::uint8_t>)>& resume) {
        for (;;) {
            switch (step) {
                case exchange::Step::read: {
                    std::optional<std::span<const std::uint8_t>> p;
                    while (!(p = framer.next_packet())) feed();
                    step = resume(*p);
                    break;
                }
                case exchange::Step::write:
                    for (const exchange::Outbox::Packet& p : out.packets()) {
                        if (p.new_command) framer.reset_sequence();
                        framer.write_packet(out.payload(p));
                    }
                    out.clear();
                    run.sent.insert(run.sent.end(), framer.output().begin(), framer.output().end());
                    framer.sent(framer.output().size());
                    step = resume({});
                    break;
                case exchange::Step::start_tls:
                case exchange::Step::compress: throw std::logic_error("the scripts switch no transport");
                case exchange::Step::done: return;
            }
        }
    }

private:
    void feed() {
        if (at_ == server_.size()) throw std::logic_error("the exchange wants more than the script sends");
        std::size_t end = server_.size();
        while (next_cut_ < cuts_.size() && cuts_[next_cut_] <= at_) ++next_cut_;
        if (next_cut_ < cuts_.size()) end = cuts_[next_cut_];
        std::span<std::uint8_t> space = framer.input_space(end - at_);
        std::copy(server_.begin() + static_cast<std::ptrdiff_t>(at_), server_.begin() + static_cast<std::ptrdiff_t>(end),
                  space.begin());
        framer.received(end - at_);
        at_ = end;
    }

    const Bytes& server_;
    std::vector<std::size_t> cuts_;
    std::size_t at_ = 0;
    std::size_t next_cut_ = 0;
};

using Scenario = std::function<void(Driver&)>;

inline Transcript play(const Bytes& server, std::vector<std::size_t> cuts, const Scenario& scenario) {
    Driver d(server, std::move(cuts));
    try {
        scenario(d);
    } catch (const Error& e) {
        d.run.events.push_back(std::string("error ") + std::string(to_string(e.kind())) + ": " + e.what());
    }
    return d.run;
}

// The unsplit run, checked to be what every split and the byte-by-byte
// feeding give too.
inline Transcript same_for_every_split(const Bytes& server, const Scenario& scenario) {
    const Transcript whole = play(server, {}, scenario);
    for (std::size_t cut = 1; cut < server.size(); ++cut) {
        EXPECT_EQ(play(server, {cut}, scenario), whole) << "split at byte " << cut;
    }
    std::vector<std::size_t> every;
    for (std::size_t i = 1; i < server.size(); ++i) every.push_back(i);
    EXPECT_EQ(play(server, every, scenario), whole) << "one byte at a time";
    return whole;
}

inline Bytes err_payload(std::uint16_t code, std::string_view state, std::string_view message) {
    return PacketBuilder{}.u8(0xFF).u16(code).text("#").text(state).text(message).bytes;
}

inline Bytes text_row(std::initializer_list<std::string_view> values) {
    PacketBuilder b;
    for (std::string_view v : values) b.lenenc(v);
    return b.bytes;
}

}  // namespace sluice::mariadb::test
