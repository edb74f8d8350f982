#pragma once
// The one exception type of the NATS JetStream client. Its kinds sort
// libnats's statuses and the JetStream API's answers by what a caller can
// do about them:
//
//   transient (the publisher resynchronises, a test asks again):
//     io       no server reachable, a socket error
//     timeout  no answer in time, or no responders: a leader election, a
//              node down
//     closed   the connection was lost, closed or went stale
//     server   only for the JetStream API's cluster answers: no leader, not
//              the leader, no peers, insufficient resources (all of them
//              pass with the next election)
//   not transient:
//     server   any other JetStream API error (api_code(): its err_code,
//              e.g. 10059 stream not found, 10071 wrong last sequence)
//     usage    a bad URL, subject or argument
//     protocol an answer that is not what was asked for (a stored message
//              without a header its writer always sets)
//
// (The pipeline's workers retry every kind but usage: a node that was just
// restarted answers "stream not found" for a while; that policy is theirs.)
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/common/error.hpp"

namespace sluice::nats {

enum class ErrorKind {
    io,
    timeout,
    closed,
    server,
    usage,
    protocol,
};

std::string_view to_string(ErrorKind kind) noexcept;

class Error : public common::Error {
public:
    Error(ErrorKind kind, const std::string& message) : common::Error(message), kind_(kind) {}
    // A JetStream API error: kind server, `api_code` the server's err_code.
    Error(int api_code, const std::string& message)
        : common::Error(message), kind_(ErrorKind::server), api_code_(api_code) {}

    ErrorKind kind() const noexcept { return kind_; }
    // The JetStream API's err_code (0 unless kind() is server).
    int api_code() const noexcept { return api_code_; }

    std::string_view part() const noexcept override { return "nats"; }
    std::string_view kind_name() const noexcept override { return to_string(kind_); }
    bool transient() const noexcept override;

private:
    ErrorKind kind_;
    int api_code_ = 0;
};

}  // namespace sluice::nats
