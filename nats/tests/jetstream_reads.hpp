#pragma once
// Reading a JetStream stream's state and messages from a test, through the
// moments a cluster is not answering: right after it starts (no meta leader
// yet), while a publisher creates the stream, or while a node is killed.
// Shared by the NATS, CDC and pipeline tests on a NatsCluster.
#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "sluice/common/error.hpp"
#include "sluice/nats/client.hpp"

namespace sluice::test {

// The stream's last sequence number (0 when it does not exist); a transient
// failure of the JetStream API asked again, for up to about six seconds.
inline std::uint64_t last_seq(nats::JetStreamClient& client, const std::string& stream) {
    for (int attempt = 0;; ++attempt) {
        try {
            auto s = client.stream_state(stream);
            return s ? s->last_seq : 0;
        } catch (const std::exception& e) {
            if (!common::is_transient(e) || attempt >= 60) throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
}

// Every message of the stream, in sequence order (none when it does not exist).
inline std::vector<nats::StoredMessage> stored_messages(nats::JetStreamClient& client, const std::string& stream) {
    auto state = client.stream_state(stream);
    std::vector<nats::StoredMessage> out;
    if (!state) return out;
    for (std::uint64_t s = state->first_seq; s <= state->last_seq && state->messages; ++s)
        out.push_back(client.message(stream, s));
    return out;
}

}  // namespace sluice::test
