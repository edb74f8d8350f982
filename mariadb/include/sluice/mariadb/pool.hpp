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
// settings: ConnectOptions::init_commands run again. The reset, the restore
// commands and the re-prepares (below) go out in one write when the
// connection is returned, and the returning thread does not wait for them:
// their replies are read, in order, by the borrow that next takes the
// connection (usually already arrived by then). So a return costs no round
// trip of its own and a borrow at most one, however many settings and
// statements there are, on compressed connections too (each command then
// travels in compressed frames of its own, numbered from 0). A connection whose
// reset or restore failed is never lent: it is replaced by a new one, as is
// one that broke while lent. Reconnecting happens only then.
//
// Statements from PooledConnection::prepare are kept per connection by their
// SQL. A reset drops them on the server. Those used during the lease are
// prepared again in the return's write (PoolOptions::prepare_on_return), so
// the next borrower finds them ready with no round trip of their own; the
// others (and all of them with prepare_on_return off) are prepared again the
// first time they are used. A re-prepare the server refuses leaves the
// statement to that first use, which reports the error. A Statement& is
// valid until the lease ends.
//
// Ready first. A borrow takes the most recently used idle connection whose
// return's replies have already arrived (or that has none pending), looking
// at the few most recent ones with one zero-timeout poll(2); only when none
// of them is ready does it take the most recent one and wait for its
// replies, as a borrow on a one-connection pool always does. So with two
// connections or more, a tight borrow/return loop alternates between them
// and rarely waits. PoolStats::ready_borrows / waited_borrows count which.
//
// Before lending, a connection whose socket has something to read (every
// reply was read, so the server closed it: KILL, restart, wait_timeout) is
// replaced; that costs one poll(2). An idle connection with no replies
// pending that the ready check finds readable is closed the same way: it is
// dropped there (PoolOptions::min_idle refills). A connection idle for
// longer than ping_after_idle is also pinged, and replaced if the ping fails.
//
// PoolOptions::min_idle connections are opened by the constructor (a connect
// error is thrown from it), and the pool keeps at least that many open: when
// a broken one could not be replaced at once (the server was unreachable) or
// a closed idle one was dropped, the next return connects the missing ones,
// best effort (an error there is swallowed; the next borrow that has to
// connect reports it). No background thread.
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
    // Connections opened by the constructor and kept open (at most max_size).
    std::size_t min_idle = 0;
    // How long borrow() waits for a free connection: Error{timeout} after.
    std::chrono::milliseconds borrow_timeout{5000};
    // Idle longer than this: pinged before being lent. 0 = always.
    std::chrono::milliseconds ping_after_idle{30000};
    // Re-prepare the statements a lease used in its return's pipeline
    // (ready for the next borrower, no round trip); false: each is prepared
    // again only when next used (a round trip then).
    bool prepare_on_return = true;
};

struct PoolStats {
    std::size_t open = 0;        // connections lent or idle
    std::size_t idle = 0;
    std::size_t connects = 0;    // new connections made (first ones and replacements)
    std::size_t resets = 0;      // returns answered by a reset (sent; a failed one also counts in replaced)
    std::size_t replaced = 0;    // connections dropped after a failed reset or ping, a break or a close
    std::size_t pings = 0;
    std::size_t prepares = 0;    // statements prepared (first time, again after a reset, or by a return)
    // Borrows that took an idle connection: with nothing left to wait for
    // (its return's replies had arrived, or none were pending), or with
    // replies still on their way (the borrow waited for them).
    std::size_t ready_borrows = 0;
    std::size_t waited_borrows = 0;
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
    // Returns the connection now (its reset is sent); the lease is empty after.
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

    // A connection: an idle one (ready first, pinged if it idled too long),
    // else a new one while fewer than max_size are open, else waits for a
    // return.
    // Error{timeout} after borrow_timeout; connect errors propagate.
    PooledConnection borrow();
    PoolStats stats() const;
    const PoolOptions& options() const noexcept { return options_; }

private:
    friend class PooledConnection;
    // Returns the slot (give_back_slot), then refills up to min_idle.
    void give_back(std::unique_ptr<detail::PoolSlot> slot) noexcept;
    void give_back_slot(std::unique_ptr<detail::PoolSlot> slot) noexcept;
    // Writes the return's pipeline (reset, restore, re-prepares) without
    // reading; false when the connection is broken or the write failed.
    bool send_reset(detail::PoolSlot& slot) noexcept;
    // Reads the pipeline's replies; false when the reset or a restore
    // command failed or the connection broke.
    bool settle(detail::PoolSlot& slot) noexcept;
    // Drops the slot's connection and connects a new one in its place.
    std::unique_ptr<detail::PoolSlot> replace(std::unique_ptr<detail::PoolSlot> slot);
    std::unique_ptr<detail::PoolSlot> connect_slot();
    // Under the mutex: takes the idle connection to lend (ready first, see
    // the top comment), or null when none is idle; closed idle ones are
    // moved to `closed` and no longer counted as open.
    std::unique_ptr<detail::PoolSlot> take_idle(std::vector<std::unique_ptr<detail::PoolSlot>>& closed);
    // Connects while fewer than min_idle are open; errors are swallowed.
    void top_up() noexcept;
    // Not under the mutex: puts a ready connection in the idle list and
    // wakes one waiting borrower.
    void park(std::unique_ptr<detail::PoolSlot> slot);
    // Not under the mutex: a place reserved in open_ got no connection;
    // frees it for the next borrow.
    void unreserve() noexcept;

    PoolOptions options_;
    mutable std::mutex mutex_;
    std::condition_variable returned_;
    std::vector<std::unique_ptr<detail::PoolSlot>> idle_;
    std::size_t open_ = 0;
    PoolStats stats_;
};

}  // namespace sluice::mariadb
