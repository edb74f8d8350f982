// AsioPool against the real server: many coroutines on fewer connections,
// every lease on a clean session with its settings restored, a connection
// the server closed while idle or that broke while lent replaced, a borrow
// past max_size timing out, statements prepared again by the return.
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "asio_run.hpp"
#include "server_env.hpp"
#include "sluice/mariadb/asio_pool.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

using test::run_on_one_thread;

using namespace std::chrono_literals;

PoolOptions pool_options(std::size_t max_size) {
    PoolOptions o;
    o.connect = test::admin_options();
    o.connect.init_commands = {"SET @restored = 7"};
    o.max_size = max_size;
    return o;
}

std::uint32_t connection_id(ResultSet rs) {
    const Row* row = rs.next();
    if (row == nullptr) throw Error(ErrorKind::protocol, "CONNECTION_ID() gave no row");
    return row->get<std::uint32_t>(0);
}

// Lets the pool's background work (a return's reset) run until `done`.
asio::awaitable<void> until(asio::any_io_executor ex, const std::function<bool()>& done) {
    asio::steady_timer t(ex);
    while (!done()) {
        t.expires_after(1ms);
        co_await t.async_wait(asio::use_awaitable);
    }
}

// KILL (the whole connection) from a connection of its own.
asio::awaitable<void> kill_connection(asio::any_io_executor ex, std::uint32_t id) {
    AsioConnection killer = co_await AsioConnection::connect(ex, test::admin_options());
    co_await killer.async_execute("KILL " + std::to_string(id));
    co_await killer.async_close();
}

TEST(AsioPool, ManyCoroutinesShareFewerConnectionsAndEachLeaseStartsClean) {
    constexpr int coroutines = 24;
    constexpr int leases_each = 5;
    asio::io_context io;
    AsioPool pool(io.get_executor(), pool_options(3));
    std::set<std::uint32_t> ids;
    std::vector<std::string> failures;
    int leases = 0;
    for (int c = 0; c < coroutines; ++c) {
        asio::co_spawn(
            io,
            [&, c]() -> asio::awaitable<void> {
                for (int l = 0; l < leases_each; ++l) {
                    AsioPooledConnection lease = co_await pool.async_borrow();
                    ResultSet rs = co_await lease->async_query("SELECT @mine, @restored, CONNECTION_ID()");
                    const Row* row = rs.next();
                    // The previous lease's variable is gone, the setting is back.
                    if (!(*row)[0].is_null()) failures.push_back("a lease saw the previous lease's @mine");
                    if (row->get<int>(1) != 7) failures.push_back("@restored was not restored");
                    ids.insert(row->get<std::uint32_t>(2));
                    co_await lease->async_execute("SET @mine = " + std::to_string(c) + ", @restored = 1");
                    ResultSet mine = co_await lease->async_query("SELECT @mine");
                    if (mine.next()->get<int>(0) != c) failures.push_back("@mine lost within a lease");
                    ++leases;
                }
            },
            [&](std::exception_ptr e) {
                if (!e) return;
                try {
                    std::rethrow_exception(e);
                } catch (const std::exception& ex) {
                    failures.push_back(ex.what());
                }
            });
    }
    io.run();
    ASSERT_TRUE(failures.empty()) << failures.front();
    EXPECT_EQ(leases, coroutines * leases_each);
    EXPECT_LE(ids.size(), 3U);
    const PoolStats s = pool.stats();
    EXPECT_EQ(s.connects, 3U);
    EXPECT_EQ(s.open, 3U);
    EXPECT_EQ(s.idle, 3U);
    EXPECT_EQ(s.replaced, 0U);
    EXPECT_EQ(s.resets, static_cast<std::size_t>(coroutines * leases_each));
    // 24 coroutines on 3 connections: most borrows waited for a return.
    EXPECT_GT(s.waited_borrows, 0U);
    EXPECT_EQ(s.ready_borrows + s.waited_borrows + s.connects, static_cast<std::size_t>(coroutines * leases_each));
}

TEST(AsioPool, AConnectionTheServerClosedWhileIdleIsReplacedBeforeLending) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        AsioPool pool(ex, pool_options(1));
        std::uint32_t first = 0;
        {
            AsioPooledConnection lease = co_await pool.async_borrow();
            first = connection_id(co_await lease->async_query("SELECT CONNECTION_ID()"));
        }
        co_await until(ex, [&] { return pool.stats().idle == 1; });
        co_await kill_connection(ex, first);
        AsioPooledConnection lease = co_await pool.async_borrow();
        const std::uint32_t second = connection_id(co_await lease->async_query("SELECT CONNECTION_ID()"));
        EXPECT_NE(second, first);
        const PoolStats s = pool.stats();
        EXPECT_EQ(s.replaced, 1U);
        EXPECT_EQ(s.connects, 2U);
        EXPECT_EQ(s.open, 1U);
    });
}

TEST(AsioPool, AConnectionThatBrokeWhileLentIsNeverLentAgain) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        AsioPool pool(ex, pool_options(1));
        std::uint32_t first = 0;
        {
            AsioPooledConnection lease = co_await pool.async_borrow();
            first = connection_id(co_await lease->async_query("SELECT CONNECTION_ID()"));
            co_await kill_connection(ex, first);
            bool failed = false;
            try {
                co_await lease->async_query("SELECT 1");
            } catch (const Error& e) {
                failed = e.kind() != ErrorKind::server;
            }
            EXPECT_TRUE(failed) << "a query on the killed connection did not fail as a broken connection";
            EXPECT_TRUE(lease->broken());
        }
        AsioPooledConnection lease = co_await pool.async_borrow();
        const std::uint32_t second = connection_id(co_await lease->async_query("SELECT CONNECTION_ID()"));
        EXPECT_NE(second, first);
        EXPECT_EQ(pool.stats().replaced, 1U);
        EXPECT_EQ(pool.stats().connects, 2U);
    });
}

TEST(AsioPool, ABorrowPastMaxSizeTimesOutAndTheNextReturnServesTheNextBorrow) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        PoolOptions o = pool_options(1);
        o.borrow_timeout = 50ms;
        AsioPool pool(ex, o);
        AsioPooledConnection held = co_await pool.async_borrow();
        bool timed_out = false;
        try {
            AsioPooledConnection second = co_await pool.async_borrow();
        } catch (const Error& e) {
            timed_out = e.kind() == ErrorKind::timeout;
            EXPECT_NE(std::string(e.what()).find("no pooled connection became free within 50 ms (max_size 1)"),
                      std::string::npos)
                << e.what();
        }
        EXPECT_TRUE(timed_out);
        held.release();
        AsioPooledConnection next = co_await pool.async_borrow();
        ResultSet one = co_await next->async_query("SELECT 1");
        EXPECT_EQ(one.next()->get<int>(0), 1);
        EXPECT_EQ(pool.stats().connects, 1U);
        EXPECT_EQ(pool.stats().waited_borrows, 1U);
    });
}

TEST(AsioPool, StatementsThatALeaseUsedArePreparedAgainByTheReturn) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        AsioPool pool(ex, pool_options(1));
        {
            AsioPooledConnection lease = co_await pool.async_borrow();
            Statement& add = co_await lease.async_prepare("SELECT ? + 1");
            ResultSet rs = co_await lease->async_execute(add, 41);
            EXPECT_EQ(rs.next()->get<int>(0), 42);
        }
        EXPECT_EQ(pool.stats().prepares, 1U);
        AsioPooledConnection lease = co_await pool.async_borrow();  // waits for the return's reset
        EXPECT_EQ(pool.stats().prepares, 2U);                        // prepared again by the return
        Statement& add = co_await lease.async_prepare("SELECT ? + 1");
        ResultSet rs = co_await lease->async_execute(add, 1);
        EXPECT_EQ(rs.next()->get<int>(0), 2);
        EXPECT_EQ(pool.stats().prepares, 2U);  // ready: no prepare at its use
    });
}

TEST(AsioPool, OpenConnectsMinIdleAndRefusesBadSizes) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        PoolOptions o = pool_options(3);
        o.min_idle = 2;
        AsioPool pool(ex, o);
        co_await pool.async_open();
        EXPECT_EQ(pool.stats().open, 2U);
        EXPECT_EQ(pool.stats().idle, 2U);
        EXPECT_EQ(pool.stats().connects, 2U);
        PoolOptions bad = pool_options(1);
        bad.min_idle = 2;
        EXPECT_THROW(AsioPool(ex, bad), Error);
        co_return;
    });
}

}  // namespace
}  // namespace sluice::mariadb
