#include "failover.hpp"

#include <algorithm>
#include <thread>

#include "position_check.hpp"
#include "sluice/mariadb/error.hpp"

namespace sluice::mariadb::cdc::detail {

using Clock = std::chrono::steady_clock;

namespace {

std::string single_value(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = r ? r->get<std::optional<std::string>>(0).value_or("") : "";
    while (rs.next()) {
    }
    return v;
}

// A replica connection is set up: SHOW ALL SLAVES STATUS has a row. An
// account that may not ask (no REPLICA MONITOR) is judged by read_only,
// which replicas run with.
bool replicating(Connection& c) {
    try {
        ResultSet rs = c.query("SHOW ALL SLAVES STATUS");
        bool any = false;
        while (rs.next()) any = true;
        return any;
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::server) throw;
        return single_value(c, "SELECT @@global.read_only") == "1";
    }
}

std::string seconds(std::chrono::milliseconds ms) {
    const auto tenths = ms.count() / 100;
    return std::to_string(tenths / 10) + (tenths % 10 ? "." + std::to_string(tenths % 10) : "") + " s";
}

}  // namespace

Failover::Failover(const ConnectOptions& options, const StreamOptions& stream)
    : options_(options), stream_(stream), servers_(servers_of(options)) {}

void Failover::say(const std::string& line) const {
    if (stream_.log) *stream_.log << stream_.log_prefix << line << "\n" << std::flush;
}

Connection Failover::connect_first() {
    if (!has_list()) return Connection::connect(options_);
    return connect_in_order(options_, 0, &current_);
}

Connection Failover::reconnect(Clock::time_point lost_at) {
    if (!has_list() || Clock::now() - lost_at < stream_.failover_after)
        return Connection::connect(current_options());
    const std::size_t was = current_;
    std::size_t chosen = was;
    Connection c = connect_in_order(options_, was + 1, &chosen);
    if (chosen != was) {
        current_ = chosen;
        say("failing over from " + server_name(servers_[was]) + " (lost " +
            seconds(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - lost_at)) + " ago) to " +
            current_name());
    }
    return c;
}

std::chrono::milliseconds Failover::pause_before_attempt(Clock::time_point lost_at,
                                                         std::chrono::milliseconds pause) const {
    if (!has_list()) return pause;
    const auto due = lost_at + stream_.failover_after;
    const auto now = Clock::now();
    if (now >= due) return pause;
    return std::min(pause, std::chrono::duration_cast<std::chrono::milliseconds>(due - now) + std::chrono::milliseconds(1));
}

GtidState Failover::hold_position(Connection& c, const GtidState& position) {
    if (!has_list() || position.empty()) return position;
    const auto began = Clock::now();
    auto last_line = began - std::chrono::seconds(10);
    for (;;) {
        const bool replica = replicating(c);
        const ServerHistory history =
            parse_server_history(single_value(c, "SELECT @@global.gtid_binlog_state"), replica);
        const PositionCheck check = check_position(position, history);
        switch (check.verdict) {
            case Holding::has_it: return position;
            case Holding::lost: {
                const std::string what = "server " + current_name() +
                                         " lacks transactions this stream already delivered: " +
                                         check.missing_gtids() + " (" + check.lost_reasons() + ")";
                if (stream_.on_lost_transactions == OnLostTransactions::stop) {
                    throw Error(ErrorKind::usage,
                                what + "; they were lost in a failover. Nothing more is delivered; "
                                       "--on-lost-transactions continue goes on from this server's history "
                                       "(downstream must then repair: docs/mariadb-cdc.md, \"Replicas and "
                                       "failover\")");
                }
                const GtidState from = continue_from(check);
                say("warning: " + what + "; continuing from this server's history after " + from.to_string() +
                    " (--on-lost-transactions continue)");
                return from;
            }
            case Holding::behind: break;
        }
        const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - began);
        if (waited >= stream_.reconnect_for) {
            throw Error(ErrorKind::timeout, "server " + current_name() + " is behind the stream (" +
                                                check.behind_summary() + ") and did not catch up within " +
                                                seconds(stream_.reconnect_for));
        }
        if (Clock::now() - last_line >= std::chrono::seconds(1)) {
            last_line = Clock::now();
            say("server " + current_name() + " is behind the stream (" + check.behind_summary() +
                "); waiting for it to catch up (" + seconds(waited) + " of at most " +
                seconds(stream_.reconnect_for) + ")");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

}  // namespace sluice::mariadb::cdc::detail
