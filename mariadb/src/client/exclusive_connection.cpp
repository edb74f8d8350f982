#include "exclusive_connection.hpp"

#include <poll.h>

#include <utility>

namespace sluice::mariadb::detail {

Session& ExclusiveConnection::session_of(Connection& c) {
    if (!c.session_) throw Error(ErrorKind::usage, "connection was moved from");
    return *c.session_;
}

ExclusiveConnection::ExclusiveConnection(Connection connection)
    : connection_(std::move(connection)), session_(session_of(connection_)) {}

void ExclusiveConnection::set_read_timeout(std::chrono::milliseconds timeout) {
    Timeouts t = session_.chan().timeouts();
    t.read = timeout;
    session_.chan().set_timeouts(t);
}

bool ExclusiveConnection::input_pending() const noexcept {
    if (!session_.channel || session_.channel->broken()) return false;
    pollfd p{session_.channel->socket().fd(), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

void ExclusiveConnection::mark_broken(const Error& cause) noexcept {
    session_.on_error(cause);
    session_.mark_broken(cause.what());
}

}  // namespace sluice::mariadb::detail
