// The non-blocking API against the real server: AsyncConnection on a plain
// poll() loop, and AsioConnection's coroutines: 100 connections on one
// thread, cancellation mid-result, a statement deadline, TLS, and a server
// killed with operations pending (a private instance of its own).
#include <gtest/gtest.h>
#include <signal.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include <future>

#include "asio_run.hpp"
#include "async_drive.hpp"
#include "async_resolver.hpp"
#include "server_env.hpp"
#include "sluice/mariadb/asio_connection.hpp"
#include "sluice/mariadb/async_connection.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

using test::drive;
using test::run_on_one_thread;

using namespace std::chrono_literals;

TEST(AsyncConnection, QueriesPreparesAndExecutesOnAPollLoop) {
    AsyncConnection c;
    ConnectOptions o = test::admin_options();
    o.init_commands = {"SET @greeting = 'hello'"};
    c.start_connect(o);
    drive(c);
    c.finish();
    EXPECT_FALSE(c.broken());
    EXPECT_NE(c.connection_id(), 0U);

    c.start_query("SELECT @greeting, 1 + 1; SELECT 'second'");
    drive(c);
    ResultSet rs = c.take_result();
    const Row* row = rs.next();
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->get<std::string>(0), "hello");
    EXPECT_EQ(row->get<int>(1), 2);
    EXPECT_EQ(rs.next(), nullptr);
    ASSERT_TRUE(rs.next_result());
    EXPECT_EQ(rs.next()->get<std::string>(0), "second");

    c.start_prepare("SELECT ? * 2, CONCAT('n', ?)");
    drive(c);
    Statement stmt = c.take_statement();
    EXPECT_EQ(stmt.param_count(), 2U);
    for (int i = 0; i < 3; ++i) {
        const std::string text = std::to_string(i);  // the bound views point into it
        std::array<protocol::ParamValue, 2> values{bind::value(i), bind::value(text)};
        c.start_execute(stmt, values);
        drive(c);
        ResultSet r = c.take_result();
        const Row* got = r.next();
        ASSERT_NE(got, nullptr);
        EXPECT_EQ(got->get<std::int64_t>(0), 2 * i);
        EXPECT_EQ(got->get<std::string>(1), "n" + std::to_string(i));
    }
    // The blocking calls of an AsyncConnection's statement say whose it is.
    EXPECT_EQ(test::kind_of([&] { stmt.execute(1, "x"); }), ErrorKind::usage);

    // A server error leaves the connection usable.
    c.start_query("SELECT * FROM no_such_table_async");
    drive(c);
    try {
        c.take_result();
        FAIL() << "a missing table gave a result";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server) << e.what();
        EXPECT_EQ(e.server_code(), 1146);
    }
    c.start_ping();
    drive(c);
    c.finish();
    EXPECT_FALSE(c.broken());
    c.start_close();
    drive(c);
    c.finish();
    EXPECT_TRUE(c.broken());
}

TEST(AsyncConnection, ALaterOperationInvalidatesTheResultSet) {
    AsyncConnection c;
    c.start_connect(test::admin_options());
    drive(c);
    c.finish();
    c.start_query("SELECT 1");
    drive(c);
    ResultSet first = c.take_result();
    c.start_query("SELECT 2");
    drive(c);
    ResultSet second = c.take_result();
    EXPECT_EQ(test::kind_of([&] { first.next(); }), ErrorKind::usage);
    EXPECT_EQ(second.next()->get<int>(0), 2);
}

TEST(AsyncConnection, SpeaksTheCompressedProtocol) {
    AsyncConnection c;
    ConnectOptions o = test::admin_options();
    o.compress = true;
    o.init_commands = {"SET @greeting = 'hello'"};
    c.start_connect(o);
    drive(c);
    c.finish();
    ASSERT_TRUE(c.is_compressed());
    c.start_query("SHOW SESSION STATUS LIKE 'Compression'");  // the server's word
    drive(c);
    ResultSet status = c.take_result();
    EXPECT_EQ(status.next()->get<std::string>(1), "ON");

    // A result of many packets in deflated frames, read in whatever pieces
    // the socket gives.
    c.start_query("SELECT seq, REPEAT('x', seq % 300) FROM seq_1_to_5000");
    drive(c);
    ResultSet rs = c.take_result();
    std::int64_t rows = 0;
    std::int64_t sum = 0;
    std::size_t bytes = 0;
    while (const Row* row = rs.next()) {
        ++rows;
        sum += row->get<std::int64_t>(0);
        bytes += row->get<std::string_view>(1).size();
    }
    EXPECT_EQ(rows, 5000);
    EXPECT_EQ(sum, 5000 * 5001 / 2);
    std::size_t expected_bytes = 0;
    for (int i = 1; i <= 5000; ++i) expected_bytes += static_cast<std::size_t>(i % 300);
    EXPECT_EQ(bytes, expected_bytes);

    // A large value both ways, through a prepared statement.
    c.start_prepare("SELECT ?, LENGTH(?), @greeting");
    drive(c);
    std::optional<Statement> stmt(c.take_statement());
    const std::string big(300000, 'q');
    std::array<protocol::ParamValue, 2> values{bind::value(big), bind::value(big)};
    c.start_execute(*stmt, values);
    drive(c);
    ResultSet echoed = c.take_result();
    const Row* row = echoed.next();
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->get<std::string_view>(0), big);
    EXPECT_EQ(row->get<std::int64_t>(1), 300000);
    EXPECT_EQ(row->get<std::string>(2), "hello");

    // A closed statement's COM_STMT_CLOSE goes out in the same write as the
    // next query: two commands, each in frames of its own numbered from 0.
    stmt.reset();
    c.start_query("SELECT 'after the close'");
    drive(c);
    ResultSet after = c.take_result();
    EXPECT_EQ(after.next()->get<std::string>(0), "after the close");
    c.start_ping();
    drive(c);
    c.finish();
    EXPECT_FALSE(c.broken());
}

// A host name is looked up on a thread of its own: with the lookup held
// (a stand-in for a slow DNS server, answering 127.0.0.1), start_connect
// returns and the connection waits on the lookup's eventfd, while the loop
// is free; let go, it connects to the real server and queries.
TEST(AsyncConnection, AHostNameIsLookedUpWithoutBlockingTheLoop) {
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    detail::connection_lookup() = [released](const char*, const char* service, const addrinfo* hints,
                                             addrinfo** found) {
        released.wait();
        addrinfo numeric = *hints;
        numeric.ai_flags |= AI_NUMERICHOST;
        return ::getaddrinfo("127.0.0.1", service, &numeric, found);
    };
    struct Restore {
        ~Restore() { detail::connection_lookup() = nullptr; }
    } restore;
    ConnectOptions o = test::admin_options();
    o.host = "db.example.test";
    AsyncConnection c;
    c.start_connect(o);
    ASSERT_TRUE(c.busy());
    EXPECT_EQ(c.wants(), AsyncConnection::readable);
    struct stat st {};
    ASSERT_EQ(::fstat(c.fd(), &st), 0);
    EXPECT_FALSE(S_ISSOCK(st.st_mode));  // the lookup's eventfd, not a socket yet
    pollfd p{c.fd(), POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 0), 0);
    c.on_ready();  // a spurious wake-up changes nothing
    EXPECT_TRUE(c.busy());

    release.set_value();
    drive(c);
    c.finish();
    c.start_query("SELECT 6 * 7");
    drive(c);
    ResultSet rs = c.take_result();
    EXPECT_EQ(rs.next()->get<int>(0), 42);
}

// The real lookup of a name (localhost, from /etc/hosts: no DNS server) on
// both APIs; its deadline is the connect timeout's.
TEST(AsioConnection, ConnectsByHostName) {
    ConnectOptions o = test::admin_options();
    o.host = "localhost";
    AsyncConnection plain;
    plain.start_connect(o);
    drive(plain);
    plain.finish();
    EXPECT_FALSE(plain.broken());
    test::run_on_one_thread([&](asio::any_io_executor ex) -> asio::awaitable<void> {
        AsioConnection conn = co_await AsioConnection::connect(ex, o);
        ResultSet rs = co_await conn.async_query("SELECT 1");
        EXPECT_EQ(rs.next()->get<int>(0), 1);
    });
}

TEST(AsyncConnection, ALookupPastTheConnectTimeoutFailsNamingTheHost) {
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    detail::connection_lookup() = [released](const char*, const char*, const addrinfo*, addrinfo**) {
        released.wait();
        return EAI_AGAIN;
    };
    struct Restore {
        std::promise<void>& release;
        ~Restore() {
            release.set_value();
            detail::connection_lookup() = nullptr;
        }
    } restore{release};
    ConnectOptions o = test::admin_options();
    o.host = "slow.example.test";
    o.timeouts.connect = std::chrono::milliseconds(50);
    AsyncConnection c;
    c.start_connect(o);
    drive(c);  // poll() times out at the deadline: on_deadline()
    try {
        c.finish();
        FAIL() << "a lookup that never ended connected";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::timeout);
        EXPECT_NE(std::string(e.what()).find("slow.example.test:" + std::to_string(o.port)), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("looking up the host name"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(c.broken());
}

TEST(AsioConnection, HundredConnectionsOnOneThreadRunTenThousandQueries) {
    constexpr int connections = 100;
    constexpr int queries_each = 100;  // 10,000 in all
    asio::io_context io;
    const std::thread::id test_thread = std::this_thread::get_id();
    std::atomic<int> done{0};
    std::atomic<std::int64_t> sum{0};
    std::vector<std::string> failures;
    for (int c = 0; c < connections; ++c) {
        asio::co_spawn(
            io,
            [&, c]() -> asio::awaitable<void> {
                AsioConnection conn = co_await AsioConnection::connect(io.get_executor(), test::admin_options());
                Statement stmt = co_await conn.async_prepare("SELECT ? + 1");
                for (int q = 0; q < queries_each; ++q) {
                    const std::int64_t n = c * queries_each + q;
                    std::int64_t got = 0;
                    if (q % 2 == 0) {
                        ResultSet rs = co_await conn.async_execute(stmt, n);
                        got = rs.next()->get<std::int64_t>(0);
                    } else {
                        ResultSet rs = co_await conn.async_query("SELECT " + std::to_string(n) + " + 1");
                        got = rs.next()->get<std::int64_t>(0);
                    }
                    if (got != n + 1) failures.push_back("query " + std::to_string(n) + " gave " + std::to_string(got));
                    if (std::this_thread::get_id() != test_thread) failures.push_back("ran on another thread");
                    sum += got;
                    ++done;
                }
                co_await conn.async_close();
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
    EXPECT_TRUE(failures.empty()) << failures.front();
    EXPECT_EQ(done.load(), connections * queries_each);
    const std::int64_t n = connections * queries_each;
    EXPECT_EQ(sum.load(), n * (n + 1) / 2);
}

// Waits (on the loop) until `victim` runs a statement starting with `sql`.
asio::awaitable<bool> running(AsioConnection& watcher, std::uint32_t victim, const std::string& sql) {
    asio::steady_timer pause(co_await asio::this_coro::executor);
    for (int i = 0; i < 1000; ++i) {
        ResultSet rs = co_await watcher.async_query(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(victim) +
            " AND INFO LIKE '" + sql + "%'");
        if (rs.next()->get<int>(0) > 0) co_return true;
        pause.expires_after(10ms);
        co_await pause.async_wait(asio::use_awaitable);
    }
    co_return false;
}

TEST(AsioConnection, CancelMidResultKillsTheQueryAndKeepsTheConnection) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        AsioConnection conn = co_await AsioConnection::connect(ex, test::admin_options());
        AsioConnection watcher = co_await AsioConnection::connect(ex, test::admin_options());
        bool seen_running = false;
        asio::co_spawn(
            ex,
            [&]() -> asio::awaitable<void> {
                seen_running = co_await running(watcher, conn.connection_id(), "SELECT SLEEP(30)");
                conn.cancel();
            },
            asio::detached);
        // The server sends the column definitions, then the kill's ERR where
        // the row would be.
        try {
            co_await conn.async_query("SELECT SLEEP(30), 'victim'");
            ADD_FAILURE() << "the query was not cancelled";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::server) << e.what();
            EXPECT_EQ(e.server_code(), 1317) << e.what();
        }
        EXPECT_TRUE(seen_running);
        EXPECT_FALSE(conn.broken());
        EXPECT_EQ(conn.kill_error(), "");
        ResultSet after = co_await conn.async_query("SELECT 5");
        EXPECT_EQ(after.next()->get<int>(0), 5);
    });
}

TEST(AsioConnection, AStatementPastItsDeadlineIsKilledAndTheConnectionStaysUsable) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        AsioConnection conn = co_await AsioConnection::connect(ex, test::admin_options());
        Statement stmt = co_await conn.async_prepare("SELECT SLEEP(?), 'victim'");
        try {
            co_await conn.with_deadline(300ms).async_execute(stmt, 30);
            ADD_FAILURE() << "the statement finished";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::timeout) << e.what();
            EXPECT_NE(std::string(e.what()).find("deadline of 300 ms"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(conn.broken());
        OkInfo ok = co_await conn.with_deadline(10s).async_execute("DO 1");
        EXPECT_EQ(ok.affected_rows, 0U);
        ResultSet rs = co_await conn.async_execute(stmt, 0);
        EXPECT_EQ(rs.next()->get<std::string>(1), "victim");
    });
}

// One timer per connection, kept armed from one operation to the next
// (each one's deadline is later than the last's): it still ends an
// operation whose read takes too long, though an earlier operation armed it.
TEST(AsioConnection, TheReadTimeoutEndsALaterOperationThanTheOneThatArmedTheTimer) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        ConnectOptions o = test::admin_options();
        o.timeouts.read = 400ms;
        AsioConnection conn = co_await AsioConnection::connect(ex, o);
        for (int i = 0; i < 3; ++i) {
            ResultSet rs = co_await conn.async_query("SELECT " + std::to_string(i));
            EXPECT_EQ(rs.next()->get<int>(0), i);
        }
        try {
            co_await conn.async_query("SELECT SLEEP(5)");
            ADD_FAILURE() << "the read outlived its timeout";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::timeout) << e.what();
            EXPECT_NE(std::string(e.what()).find("read from"), std::string::npos) << e.what();
        }
        EXPECT_TRUE(conn.broken());  // the transport's timeout breaks it, as the blocking one does
    });
}

// A connection left idle leaves no work behind: the context runs out of
// work as soon as the last operation ends (an armed timer would keep it
// running until the first deadline it was armed for, an hour here).
TEST(AsioConnection, AnIdleConnectionLeavesTheContextWithNoWork) {
    asio::io_context io;
    ConnectOptions o = test::admin_options();
    o.timeouts = {std::chrono::hours(1), std::chrono::hours(1), std::chrono::hours(1)};  // connect, read, write
    std::optional<AsioConnection> kept;  // alive after the coroutine ends
    std::exception_ptr failure;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            kept.emplace(co_await AsioConnection::connect(io.get_executor(), o));
            for (int i = 0; i < 3; ++i) {
                ResultSet rs = co_await kept->async_query("SELECT 1");
                EXPECT_EQ(rs.next()->get<int>(0), 1);
            }
        },
        [&](std::exception_ptr e) { failure = e; });
    io.run_for(std::chrono::seconds(30));
    if (failure) std::rethrow_exception(failure);
    ASSERT_TRUE(kept.has_value());
    EXPECT_TRUE(io.stopped());  // out of work, not out of time
    EXPECT_FALSE(kept->broken());
}

TEST(AsioConnection, TlsVerifiedAgainstTheTestCa) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        ConnectOptions o = test::admin_options();
        o.ssl_ca = test::env().require("SLUICE_CA");  // verify-full by default with a CA
        AsioConnection conn = co_await AsioConnection::connect(ex, o);
        EXPECT_TRUE(conn.is_tls());
        // A response larger than one TLS record and the framer's buffer.
        ResultSet rs = co_await conn.async_query("SELECT seq, REPEAT('x', 1000) FROM seq_1_to_500");
        int rows = 0;
        for (const Row& row : rs) {
            ++rows;
            EXPECT_EQ(row.get<int>(0), rows);
            EXPECT_EQ(row.get<std::string_view>(1).size(), 1000U);
        }
        EXPECT_EQ(rows, 500);
        Statement stmt = co_await conn.async_prepare("SELECT LENGTH(?)");
        const std::string big(100000, 'y');
        ResultSet len = co_await conn.async_execute(stmt, big);
        EXPECT_EQ(len.next()->get<int>(0), 100000);
    });
}

TEST(AsioConnection, CompressedOverTlsWithADeadlineThatKillsAndKeepsTheConnection) {
    run_on_one_thread([](asio::any_io_executor ex) -> asio::awaitable<void> {
        ConnectOptions o = test::admin_options();
        o.ssl_ca = test::env().require("SLUICE_CA");
        o.compress = true;
        AsioConnection conn = co_await AsioConnection::connect(ex, o);
        EXPECT_TRUE(conn.is_tls());
        EXPECT_TRUE(conn.is_compressed());
        ResultSet rs = co_await conn.async_query("SELECT seq, REPEAT('x', 1000) FROM seq_1_to_500");
        int rows = 0;
        for (const Row& row : rs) {
            ++rows;
            EXPECT_EQ(row.get<std::string_view>(1).size(), 1000U);
        }
        EXPECT_EQ(rows, 500);
        // KILL QUERY comes from a side connection with the same options
        // (compressed too); this one reads the ERR and stays usable.
        bool timed_out = false;
        try {
            co_await conn.with_deadline(200ms).async_query("SELECT SLEEP(30)");
        } catch (const Error& e) {
            timed_out = e.kind() == ErrorKind::timeout;
        }
        EXPECT_TRUE(timed_out);
        EXPECT_EQ(conn.kill_error(), "");
        Statement stmt = co_await conn.async_prepare("SELECT LENGTH(?)");
        const std::string big(100000, 'y');
        ResultSet len = co_await conn.async_execute(stmt, big);
        EXPECT_EQ(len.next()->get<int>(0), 100000);
        co_await conn.async_close();
    });
}

TEST(AsioConnection, TlsWithTheWrongHostFailsAsTheBlockingConnectDoes) {
    ConnectOptions o = test::admin_options();
    o.ssl_ca = test::env().require("SLUICE_CA");
    o.host = "127.1";  // reaches 127.0.0.1, but is not a name the certificate holds
    std::string blocking;
    try {
        Connection::connect(o);
    } catch (const Error& e) {
        blocking = e.what();
    }
    ASSERT_FALSE(blocking.empty());
    std::string async;
    try {
        run_on_one_thread([&](asio::any_io_executor ex) -> asio::awaitable<void> {
            co_await AsioConnection::connect(ex, o);
        });
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::tls) << e.what();
        async = e.what();
    }
    EXPECT_EQ(async, blocking);
}

// Private instances live under the build tree's servers-own/ folder, which
// scripts/test sweeps at the end, so none outlives an interrupted run.
class PrivateServer {
public:
    explicit PrivateServer(const std::string& name) {
        std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
        dir_ = std::string(SLUICE_OWN_SERVERS_DIR) + "/" + name + "-" + std::to_string(::getpid());
        const std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir_ +
                                  " --only mariadb > " + dir_ + ".log 2>&1";
        started_ = std::system(start.c_str()) == 0;
    }
    PrivateServer(const PrivateServer&) = delete;
    PrivateServer& operator=(const PrivateServer&) = delete;
    ~PrivateServer() {
        const std::string stop =
            std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir_ + " > /dev/null 2>&1";
        [[maybe_unused]] const int ignored_status = std::system(stop.c_str());
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
        std::filesystem::remove(dir_ + ".log", ignored);
    }
    bool started() const { return started_; }
    std::string log() const { return dir_ + ".log"; }
    ConnectOptions options() const { return parse_url(EnvFile::load(dir_ + "/env").require("SLUICE_MARIADB_URL")); }
    pid_t pid() const {
        long pid = 0;
        std::ifstream(dir_ + "/mariadb.pid") >> pid;
        return static_cast<pid_t>(pid);
    }

private:
    std::string dir_;
    bool started_ = false;
};

TEST(AsioConnection, AServerKilledMidQueryFailsEveryPendingOperation) {
    PrivateServer server("sluice-async-killed");
    ASSERT_TRUE(server.started()) << "could not start a private server: see " << server.log();
    ConnectOptions o = server.options();
    // Backstop only: a hang would end as Error{timeout}, which the test
    // rejects below; the kill must end every operation as closed or io.
    o.timeouts.read = 60s;
    constexpr int pending = 10;
    std::vector<std::string> outcomes;
    bool killed = false;
    run_on_one_thread([&](asio::any_io_executor ex) -> asio::awaitable<void> {
        std::vector<AsioConnection> victims;
        for (int i = 0; i < pending; ++i) victims.push_back(co_await AsioConnection::connect(ex, o));
        AsioConnection watcher = co_await AsioConnection::connect(ex, o);
        int finished = 0;
        for (AsioConnection& v : victims) {
            asio::co_spawn(
                ex,
                [&]() -> asio::awaitable<void> {
                    try {
                        co_await v.async_query("SELECT SLEEP(30), 'pending'");
                        outcomes.push_back("finished");
                    } catch (const Error& e) {
                        outcomes.push_back(std::string(to_string(e.kind())));
                        if (!v.broken()) outcomes.push_back("not broken");
                    }
                    ++finished;
                },
                asio::detached);
        }
        asio::steady_timer pause(ex);
        for (int i = 0; i < 1000; ++i) {
            ResultSet rs = co_await watcher.async_query(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT SLEEP(30), ''pending''%'");
            if (rs.next()->get<int>(0) == pending) break;
            pause.expires_after(10ms);
            co_await pause.async_wait(asio::use_awaitable);
        }
        killed = ::kill(server.pid(), SIGKILL) == 0;
        while (finished < pending) {
            pause.expires_after(10ms);
            co_await pause.async_wait(asio::use_awaitable);
        }
    });
    EXPECT_TRUE(killed);
    ASSERT_EQ(outcomes.size(), static_cast<std::size_t>(pending)) << ::testing::PrintToString(outcomes);
    for (const std::string& outcome : outcomes) {
        EXPECT_TRUE(outcome == "closed" || outcome == "io") << outcome;
    }
}

}  // namespace
}  // namespace sluice::mariadb
