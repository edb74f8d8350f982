#pragma once
// Internal: the one poll() loop shared by Socket and TlsSession.
#include <string>

#include "sluice/mariadb/transport/deadline.hpp"

namespace sluice::mariadb::detail {

// Waits until fd reports `events` (POLLIN/POLLOUT) or an error condition;
// false when the deadline passed first. Error{io} if poll() itself fails.
bool wait_fd(int fd, short events, Deadline deadline, const std::string& peer);

}  // namespace sluice::mariadb::detail
