#pragma once
// Test helper: two connected channels over a unix socketpair, so the framing
// layer can be driven from both ends without a server.
#include <sys/socket.h>

#include <stdexcept>
#include <utility>

#include "sluice/mariadb/transport/packet_channel.hpp"
#include "sluice/mariadb/transport/socket.hpp"

namespace sluice::mariadb::testing {

inline std::pair<Socket, Socket> socket_pair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        throw std::runtime_error("socketpair failed");
    }
    return {Socket::adopt(fds[0], "pair-a"), Socket::adopt(fds[1], "pair-b")};
}

}  // namespace sluice::mariadb::testing
