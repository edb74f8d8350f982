#pragma once
// The I/O side of failover for the change stream: which server of the list
// to connect to after a loss, and the position check (position_check.hpp)
// run on a fresh connection before the dump starts there: has it (return),
// behind (poll until it has it, with a progress line, up to a limit), lost
// (Error{usage} naming the GTIDs, or the position to go on from when the
// caller chose to continue).
#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/host_list.hpp"

namespace sluice::mariadb::cdc::detail {

class Failover {
public:
    Failover(const ConnectOptions& options, const StreamOptions& stream);

    // More than one server: connections check the position first.
    bool has_list() const noexcept { return servers_.size() > 1; }
    std::size_t current() const noexcept { return current_; }
    std::string current_name() const { return server_name(servers_[current_]); }
    // The options for the server read from now.
    ConnectOptions current_options() const { return for_server(options_, current_); }

    // At open: the first server of the list that answers.
    Connection connect_first();
    // After a loss at `lost_at`: the same server until failover_after has
    // passed, then the servers after it in order (it comes last).
    Connection reconnect(std::chrono::steady_clock::time_point lost_at);
    // `pause` (the reconnect back-off), cut short so that an attempt falls
    // right when failover_after has passed since `lost_at`.
    std::chrono::milliseconds pause_before_attempt(std::chrono::steady_clock::time_point lost_at,
                                                   std::chrono::milliseconds pause) const;

    // Before the dump on `c` (a connection to current()): returns the
    // position to read from (`position`, or with on_lost_transactions =
    // continue, where the server's history goes on). Waits while the server
    // is behind, up to reconnect_for (then Error{timeout}, so another server
    // may be tried); Error{usage} when it lost delivered transactions.
    GtidState hold_position(Connection& c, const GtidState& position);

private:
    void say(const std::string& line) const;

    ConnectOptions options_;
    const StreamOptions& stream_;
    std::vector<ServerAddress> servers_;
    std::size_t current_ = 0;
};

}  // namespace sluice::mariadb::cdc::detail
