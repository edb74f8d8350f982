#include "start_failure.hpp"

#include "sluice/common/error.hpp"
#include "sluice/postgres/error.hpp"

namespace sluice::pipeline {

bool is_connection_failure(const std::exception& e) {
    const common::Error* error = common::as_error(e);
    if (error == nullptr) return false;
    // Every MariaDB and NATS failure here is one of reaching or logging in.
    if (error->part() == "mariadb" || error->part() == "nats") return true;
    if (error->part() == "postgres") {
        const auto* p = static_cast<const postgres::Error*>(error);  // part() names the type
        if (p->kind() == postgres::ErrorKind::connection) return true;
        // 08: connection exceptions; 28: a failed login; 57P03: the server is starting up.
        const std::string& s = p->sqlstate();
        return p->kind() == postgres::ErrorKind::server &&
               (s.rfind("08", 0) == 0 || s.rfind("28", 0) == 0 || s == "57P03");
    }
    return false;
}

bool gives_up_at_start(const std::exception& e, const RunStats& stats, std::chrono::steady_clock::duration waited,
                       std::chrono::milliseconds connect_timeout) {
    if (stats.connected || !is_connection_failure(e)) return false;
    const common::Error* error = common::as_error(e);
    const bool sink = error != nullptr && error->part() == "postgres";
    if (sink ? stats.sink_reached : stats.source_reached) return false;
    return waited >= connect_timeout;
}

std::string start_failure_note(std::chrono::milliseconds connect_timeout) {
    if (connect_timeout.count() == 0)
        return " (at start: not retried, a connection that never worked is not an outage; pass --connect-timeout "
               "SECONDS to wait for a server that is still starting)";
    return " (at start: no connection within --connect-timeout " +
           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(connect_timeout).count()) + " s)";
}

}  // namespace sluice::pipeline
