#include "sluice/nats/error.hpp"

#include <nats/nats.h>

namespace sluice::nats {

std::string_view to_string(ErrorKind kind) noexcept {
    switch (kind) {
        case ErrorKind::io: return "io";
        case ErrorKind::timeout: return "timeout";
        case ErrorKind::closed: return "closed";
        case ErrorKind::server: return "server";
        case ErrorKind::usage: return "usage";
        case ErrorKind::protocol: return "protocol";
    }
    return "unknown";
}

bool Error::transient() const noexcept {
    switch (kind_) {
        case ErrorKind::io:
        case ErrorKind::timeout:
        case ErrorKind::closed: return true;
        case ErrorKind::server:
            // The cluster's answers while it elects a leader or lacks peers.
            return api_code_ == JSClusterNotAvailErr || api_code_ == JSClusterNotLeaderErr ||
                   api_code_ == JSClusterNoPeersErr || api_code_ == JSInsufficientResourcesErr;
        case ErrorKind::usage:
        case ErrorKind::protocol: return false;
    }
    return false;
}

}  // namespace sluice::nats
