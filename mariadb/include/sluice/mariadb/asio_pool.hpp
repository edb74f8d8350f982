#pragma once
// A pool of AsioConnections handing connections out to coroutines: the
// blocking Pool's options and behaviour where they apply, on an asio
// executor instead of threads.
//
//   AsioPool pool(executor, PoolOptions{options});
//   asio::awaitable<void> request(AsioPool& pool) {
//       AsioPooledConnection c = co_await pool.async_borrow();   // waits at most borrow_timeout
//       Statement& find = co_await c.async_prepare("SELECT name FROM t WHERE id = ?");
//       ResultSet rs = co_await c->async_execute(find, 42);
//       ...
//   }                                     // returned: reset, settings restored
//
// Returning a connection (the lease's destructor or release()) resets its
// session with COM_RESET_CONNECTION and runs ConnectOptions::init_commands
// again, in a coroutine of its own on the pool's executor: the returning
// coroutine does not wait. Only then is the connection lent again (to the
// longest-waiting borrower first), so a borrower never sees the previous
// lease's session. One whose reset or restore failed, or that broke while
// lent, is closed and never lent; the next borrow connects a new one in its
// place. Statements from async_prepare are kept per connection by their
// SQL; the reset drops them on the server, and those the lease used are
// prepared again by the return (PoolOptions::prepare_on_return), the others
// on their next use.
//
// Before lending, an idle connection whose socket has something to read
// (every reply was read, so the server closed it: KILL, restart,
// wait_timeout) is replaced (one poll(2)), and one idle for longer than
// ping_after_idle is pinged and replaced if the ping fails. At most
// max_size connections are open (lent, idle or being returned); a borrow
// past that waits for a return, Error{timeout} after borrow_timeout.
// async_open() opens min_idle connections (a connect error is thrown from
// it); after a connection is lost, returns connect the missing ones, best
// effort, as the blocking pool does.
//
// Single-threaded: use a pool and its leases from coroutines on one executor
// run by one thread (or a strand). The pool must outlive its leases; when it
// is destroyed its idle connections close (returns still under way finish
// on their own and close theirs).
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <functional>
#include <memory>
#include <string>

#include "sluice/mariadb/asio_connection.hpp"
#include "sluice/mariadb/pool.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

namespace detail {
struct AsioPoolState;
struct AsioPoolSlot;
}  // namespace detail

// A lent connection; returned to its pool when destroyed (or by release()).
class AsioPooledConnection {
public:
    AsioPooledConnection(AsioPooledConnection&& other) noexcept;
    AsioPooledConnection& operator=(AsioPooledConnection&& other) noexcept;
    AsioPooledConnection(const AsioPooledConnection&) = delete;
    AsioPooledConnection& operator=(const AsioPooledConnection&) = delete;
    ~AsioPooledConnection();

    AsioConnection& connection();
    AsioConnection& operator*() { return connection(); }
    AsioConnection* operator->() { return &connection(); }
    // The statement for `sql` on this connection, prepared now if it is new
    // here or was dropped by a reset. Valid until the lease ends.
    asio::awaitable<std::reference_wrapper<Statement>> async_prepare(std::string sql);
    // Returns the connection now (its reset starts); the lease is empty after.
    void release() noexcept;

private:
    friend class AsioPool;
    AsioPooledConnection(std::shared_ptr<detail::AsioPoolState> pool,
                         std::unique_ptr<detail::AsioPoolSlot> slot) noexcept;
    std::shared_ptr<detail::AsioPoolState> pool_;
    std::unique_ptr<detail::AsioPoolSlot> slot_;
};

class AsioPool {
public:
    AsioPool(asio::any_io_executor executor, PoolOptions options);
    AsioPool(const AsioPool&) = delete;
    AsioPool& operator=(const AsioPool&) = delete;
    ~AsioPool();

    // Opens connections until min_idle are open; connect errors propagate.
    asio::awaitable<void> async_open();
    // A connection: an idle one (the most recently returned, checked as the
    // top comment says), else a new one while fewer than max_size are open,
    // else the next one returned. Error{timeout} after borrow_timeout;
    // connect errors propagate.
    asio::awaitable<AsioPooledConnection> async_borrow();
    // ready_borrows counts borrows that took an idle connection,
    // waited_borrows those that waited for a return.
    PoolStats stats() const;
    const PoolOptions& options() const noexcept;

private:
    std::shared_ptr<detail::AsioPoolState> state_;
};

}  // namespace sluice::mariadb
