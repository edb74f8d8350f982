#pragma once
// A thread-safe pool of connections to one server.
//
//   Pool pool(PoolOptions{options});
//   {
//       PooledConnection c = pool.borrow();          // waits at most borrow_timeout
//       Statement& find = c.prepare("SELECT name FROM t WHERE id = ?");
//       ResultSet rs = find.execute(42);
//       ...
//   }                                                // returned: reset, settings restored
//
// Returning a connection resets its session with COM_RESET_CONNECTION
// (rollback; temporary tables, user variables, user locks, prepared
// statements and session variables gone), then restores the session
// settings: ConnectOptions::init_commands run again. The reset and the
// restore commands are written in one flush and their replies read after,
// so a return costs one round trip however many settings there are (on a
// compressed connection they go one by one). Only when that fails (or the
// connection broke while lent) is the connection replaced by a new one.
//
// Statements from PooledConnection::prepare are kept per connection by their
// SQL. A reset drops them on the server; they are prepared again the first
// time they are used after it. A Statement& is valid until the lease ends.
//
// A connection idle for longer than ping_after_idle is pinged before it is
// lent, and replaced if the ping fails (e.g. the server restarted).
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

struct PoolOptions {
    ConnectOptions connect;
    std::size_t max_size = 8;
    // How long borrow() waits for a free connection: Error{timeout} after.
    std::chrono::milliseconds borrow_timeout{5000};
    // Idle longer than this: pinged before being lent. 0 = always.
    std::chrono::milliseconds ping_after_idle{30000};
};

struct PoolStats {
    std::size_t open = 0;        // connections lent or idle
    std::size_t idle = 0;
    std::size_t connects = 0;    // new connections made (first ones and replacements)
    std::size_t resets = 0;      // successful returns by reset
    std::size_t replaced = 0;    // connections replaced after a failed reset or ping, or a break
    std::size_t pings = 0;
    std::size_t prepares = 0;    // statements prepared (first time or again after a reset)
};

class Pool;

namespace detail {
struct PoolSlot;
}

// A lent connection; returned to its pool when destroyed (or by release()).
class PooledConnection {
public:
    PooledConnection(PooledConnection&& other) noexcept;
    PooledConnection& operator=(PooledConnection&& other) noexcept;
    PooledConnection(const PooledConnection&) = delete;
    PooledConnection& operator=(const PooledConnection&) = delete;
    ~PooledConnection();

    Connection& connection();
    Connection& operator*() { return connection(); }
    Connection* operator->() { return &connection(); }
    // The statement for `sql` on this connection, prepared now if it is new
    // here or was dropped by a reset.
    Statement& prepare(std::string_view sql);
    // Returns the connection now (reset and restore); the lease is empty after.
    void release() noexcept;

private:
    friend class Pool;
    PooledConnection(Pool* pool, std::unique_ptr<detail::PoolSlot> slot) noexcept;
    Pool* pool_;
    std::unique_ptr<detail::PoolSlot> slot_;
};

class Pool {
public:
    explicit Pool(PoolOptions options);
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    // Closes the idle connections. Every lease must have ended.
    ~Pool();

    // A connection: an idle one (pinged if it idled too long), else a new
    // one while fewer than max_size are open, else waits for a return.
    // Error{timeout} after borrow_timeout; connect errors propagate.
    PooledConnection borrow();
    PoolStats stats() const;
    const PoolOptions& options() const noexcept { return options_; }

private:
    friend class PooledConnection;
    void give_back(std::unique_ptr<detail::PoolSlot> slot) noexcept;
    // Reset + restore, pipelined; false when it failed.
    bool reset(detail::PoolSlot& slot) noexcept;
    void discard(std::unique_ptr<detail::PoolSlot> slot) noexcept;
    std::unique_ptr<detail::PoolSlot> connect_slot();

    PoolOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable returned_;
    std::vector<std::unique_ptr<detail::PoolSlot>> idle_;
    std::size_t open_ = 0;
    PoolStats stats_;
};

}  // namespace sluice::mariadb
