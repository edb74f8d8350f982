#pragma once
// Deadlines for statements: when one passes, the statement is cancelled on
// the server with KILL QUERY sent through a side connection, so the
// connection running it stays usable (the statement fails with the server's
// ER_QUERY_INTERRUPTED, 1317; with_deadline turns that into
// Error{timeout}). A read timeout, by contrast, gives up on the stream and
// leaves the connection broken.
//
//   OkInfo ok = with_deadline(conn, options, 500ms, [&] { return conn.execute("CALL slow()"); });
//
// The side connection is opened only when a deadline fires, with the given
// options (the same account may kill its own queries). KILL QUERY affects
// the statement running at that moment; the deadline is disarmed before
// with_deadline returns, and the server clears a KILL QUERY that arrives
// between statements at the start of the next one.
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/connection.hpp"

namespace sluice::mariadb {

class QueryDeadline {
public:
    QueryDeadline(const Connection& conn, ConnectOptions side, std::chrono::milliseconds after);
    QueryDeadline(const QueryDeadline&) = delete;
    QueryDeadline& operator=(const QueryDeadline&) = delete;
    // Disarms; waits for a KILL in flight.
    ~QueryDeadline();

    void disarm() noexcept;
    bool fired() const;
    // Why the KILL could not be sent, if it could not (empty otherwise).
    std::string kill_error() const;

private:
    void watch(std::chrono::steady_clock::time_point deadline);

    std::uint32_t connection_id_;
    ConnectOptions side_;
    mutable std::mutex mutex_;
    std::condition_variable disarmed_cv_;
    bool disarmed_ = false;
    bool fired_ = false;
    std::string kill_error_;
    std::thread watcher_;
};

// Runs f() under a deadline; a statement cancelled by it throws
// Error{timeout} naming the deadline.
template <class F>
decltype(auto) with_deadline(Connection& conn, const ConnectOptions& side, std::chrono::milliseconds after, F&& f) {
    QueryDeadline deadline(conn, side, after);
    try {
        return f();
    } catch (const Error& e) {
        deadline.disarm();
        if (e.kind() == ErrorKind::server && e.server_code() == 1317 && deadline.fired()) {
            throw Error(ErrorKind::timeout, "statement passed its deadline of " + std::to_string(after.count()) +
                                                " ms and was cancelled with KILL QUERY (connection still usable)");
        }
        throw;
    }
}

}  // namespace sluice::mariadb
