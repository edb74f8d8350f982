#pragma once
// The smallest event loop for the AsyncConnection tests: poll() on what
// the connection asks for, until its operation ends.
#include <poll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "sluice/mariadb/async_connection.hpp"

namespace sluice::mariadb::test {

inline void drive(AsyncConnection& c) {
    while (c.busy()) {
        pollfd p{c.fd(), 0, 0};
        if (c.wants() & AsyncConnection::readable) p.events |= POLLIN;
        if (c.wants() & AsyncConnection::writable) p.events |= POLLOUT;
        int timeout_ms = -1;
        if (c.deadline() != Deadline::max()) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline() - Clock::now());
            timeout_ms = static_cast<int>(std::max<std::int64_t>(left.count(), 0));
        }
        if (::poll(&p, 1, timeout_ms) == 0) {
            c.on_deadline();
        } else {
            c.on_ready();
        }
    }
}

}  // namespace sluice::mariadb::test
