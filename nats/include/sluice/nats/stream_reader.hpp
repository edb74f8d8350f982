#pragma once
// Reading a JetStream stream in order from a sequence on: an ordered push
// consumer (ephemeral, no acknowledgments; libnats recreates it from the
// last delivered sequence after a gap, a lost node or a reconnect).
//
//   StreamReader r = StreamReader::open(client, "SHOP", "SHOP", 1);
//   while (auto m = r.next(std::chrono::seconds(1))) { ... m->seq, m->data ... }
//
// LIFETIME: the message's data views the library's buffer until the next
// call of next(); the reader must not outlive its client.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/nats/client.hpp"

struct __natsSubscription;

namespace sluice::nats {

struct DeliveredMessage {
    std::uint64_t seq = 0;
    std::string_view data;
};

class StreamReader {
public:
    // Delivers the messages of `subject` (a subject of the stream, wildcards
    // allowed) with sequence >= first_seq.
    static StreamReader open(JetStreamClient& client, const std::string& stream, const std::string& subject,
                             std::uint64_t first_seq);
    StreamReader(StreamReader&&) noexcept;
    StreamReader& operator=(StreamReader&&) noexcept;
    ~StreamReader();

    // The next message; nullopt when none came within `timeout`.
    std::optional<DeliveredMessage> next(std::chrono::milliseconds timeout);
    // Messages already received and waiting (next() will not block).
    bool pending() const;

    // The library's queue of received messages is bounded (issue 25: a
    // worker holds at most this much of NATS buffers): past it libnats
    // drops messages as a slow consumer. JetStream's flow control (on for
    // ordered consumers) keeps the server from sending far ahead of what
    // was read, so a stream larger than the bound is read whole.
    static constexpr int max_pending_messages = 65536;
    static constexpr int max_pending_bytes = 32 * 1024 * 1024;
    struct Pending {
        int messages = 0;
        int bytes = 0;
    };
    // What the library holds now, and the limits it was given.
    Pending pending_now() const;
    Pending pending_limits() const;

private:
    struct Handles;
    explicit StreamReader(std::unique_ptr<Handles> h) noexcept;
    std::unique_ptr<Handles> h_;
};

}  // namespace sluice::nats
