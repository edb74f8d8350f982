// The pool against MariaDB: what a return resets and restores, statements
// after a reset, bounded waits, many threads, a connection killed while
// lent, and a server restart.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/pool.hpp"

// Private instances live under the build tree's servers-own/ folder, which
// scripts/test sweeps at the end, so none outlives an interrupted run.
static std::filesystem::path own_servers_dir() {
    std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
    return SLUICE_OWN_SERVERS_DIR;
}

namespace sluice::mariadb {
namespace {

using namespace std::chrono_literals;

PoolOptions pool_options(std::size_t max_size) {
    PoolOptions o;
    o.connect = test::admin_options();
    o.connect.init_commands = {"SET SESSION group_concat_max_len = 12345", "SET @restored = 'yes'"};
    o.max_size = max_size;
    o.borrow_timeout = 2s;
    return o;
}

std::string scalar(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = (*r)[0].is_null() ? "NULL" : r->get<std::string>(0);
    rs.discard();
    return v;
}

TEST(Pool, SessionStateDoesNotSurviveAReturnAndSettingsAreRestored) {
    Pool pool(pool_options(1));
    Connection admin = Connection::connect(test::admin_options());
    std::uint32_t id = 0;
    {
        PooledConnection c = pool.borrow();
        id = c->connection_id();
        EXPECT_EQ(scalar(*c, "SELECT @@group_concat_max_len"), "12345");
        c->execute("SET @user_variable = 42");
        c->execute("SET SESSION wait_timeout = 77, SESSION group_concat_max_len = 5");
        c->execute("CREATE TEMPORARY TABLE speed_pool_temp (x INT)");
        EXPECT_EQ(scalar(*c, "SELECT GET_LOCK('speed_pool_lock', 0)"), "1");
        EXPECT_EQ(scalar(admin, "SELECT IS_USED_LOCK('speed_pool_lock')"), std::to_string(id));
    }
    PooledConnection c = pool.borrow();
    EXPECT_EQ(c->connection_id(), id) << "reset, not reconnected";
    EXPECT_EQ(scalar(*c, "SELECT @user_variable"), "NULL");
    EXPECT_EQ(scalar(*c, "SELECT @@wait_timeout = @@global.wait_timeout"), "1");
    EXPECT_EQ(scalar(*c, "SELECT @@group_concat_max_len"), "12345");  // restored
    EXPECT_EQ(scalar(*c, "SELECT @restored"), "yes");
    EXPECT_EQ(test::kind_of([&] { c->execute("SELECT * FROM speed_pool_temp"); }), ErrorKind::server);
    EXPECT_EQ(scalar(admin, "SELECT IS_USED_LOCK('speed_pool_lock')"), "NULL");
    PoolStats s = pool.stats();
    EXPECT_EQ(s.connects, 1u);
    EXPECT_EQ(s.resets, 1u);
    EXPECT_EQ(s.replaced, 0u);
}

TEST(Pool, PooledStatementsArePreparedAgainLazilyAfterAReset) {
    Pool pool(pool_options(1));
    {
        PooledConnection c = pool.borrow();
        Statement& add = c.prepare("SELECT ? + 1");
        EXPECT_EQ(&add, &c.prepare("SELECT ? + 1"));
        ResultSet rs = add.execute(41);
        EXPECT_EQ(rs.next()->get<int>(0), 42);
        rs.discard();
    }
    EXPECT_EQ(pool.stats().prepares, 1u);
    PooledConnection c = pool.borrow();
    EXPECT_EQ(pool.stats().prepares, 1u) << "re-prepared before use";
    ResultSet rs = c.prepare("SELECT ? + 1").execute(1);
    EXPECT_EQ(rs.next()->get<int>(0), 2);
    rs.discard();
    EXPECT_EQ(pool.stats().prepares, 2u);
}

TEST(Pool, BorrowWaitsBoundedAndGetsAReturnedConnection) {
    Pool pool(pool_options(1));
    PooledConnection held = pool.borrow();
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(test::kind_of([&] { pool.borrow(); }), ErrorKind::timeout);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, 1900ms);

    std::uint32_t id = held->connection_id();
    std::thread returner([&] {
        std::this_thread::sleep_for(200ms);
        held.release();
    });
    PooledConnection next = pool.borrow();
    returner.join();
    EXPECT_EQ(next->connection_id(), id);
}

TEST(Pool, ManyThreadsShareAFewConnections) {
    PoolOptions o = pool_options(3);
    o.borrow_timeout = 30s;
    Pool pool(o);
    std::atomic<int> failures{0};
    std::atomic<long> sum{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 25; ++i) {
                try {
                    PooledConnection c = pool.borrow();
                    c->execute("SET @mine = " + std::to_string(t * 1000 + i));
                    ResultSet rs = c.prepare("SELECT ? + @mine").execute(1);
                    long v = rs.next()->get<long>(0);
                    rs.discard();
                    if (v != t * 1000 + i + 1) ++failures;
                    sum += v;
                } catch (const Error&) {
                    ++failures;
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
    long expected = 0;
    for (int t = 0; t < 8; ++t)
        for (int i = 0; i < 25; ++i) expected += t * 1000 + i + 1;
    EXPECT_EQ(sum.load(), expected);
    PoolStats s = pool.stats();
    EXPECT_LE(s.connects, 3u);
    EXPECT_EQ(s.resets, 200u);
}

TEST(Pool, AConnectionKilledWhileLentIsReplacedOnReturn) {
    Pool pool(pool_options(1));
    Connection admin = Connection::connect(test::admin_options());
    std::uint32_t id = 0;
    {
        PooledConnection c = pool.borrow();
        id = c->connection_id();
        admin.execute("KILL CONNECTION " + std::to_string(id));
    }
    PoolStats s = pool.stats();
    EXPECT_EQ(s.replaced, 1u);
    PooledConnection c = pool.borrow();
    EXPECT_NE(c->connection_id(), id);
    EXPECT_EQ(scalar(*c, "SELECT @@group_concat_max_len"), "12345");
}

// A private server, killed and started again on the same port and data.
TEST(Pool, SurvivesAServerRestart) {
    namespace fs = std::filesystem;
    const std::string dir = (own_servers_dir() / ("sluice-pool-" + std::to_string(::getpid()))).string();
    const std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir +
                              " --only mariadb > " + dir + ".log 2>&1";
    ASSERT_EQ(std::system(start.c_str()), 0) << "could not start a private server: see " << dir << ".log";
    EnvFile private_env = EnvFile::load(dir + "/env");
    PoolOptions o;
    o.connect = parse_url(private_env.require("SLUICE_MARIADB_URL"));
    o.connect.timeouts.connect = 5s;
    o.connect.timeouts.read = 10s;
    o.max_size = 2;
    o.ping_after_idle = 0ms;
    Pool pool(o);
    {
        PooledConnection c = pool.borrow();
        EXPECT_EQ(scalar(*c, "SELECT 1"), "1");
    }
    long pid = 0;
    std::ifstream(dir + "/mariadb.pid") >> pid;
    ASSERT_GT(pid, 1);
    ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    while (::kill(static_cast<pid_t>(pid), 0) == 0) std::this_thread::sleep_for(50ms);
    // Same config file, so the same port and data directory.
    const std::string restart = "cd " + dir + " && (setsid /usr/sbin/mariadbd --defaults-file=" + dir +
                                "/my.cnf </dev/null >>" + dir + ".log 2>&1 & echo $! > " + dir + "/mariadb.pid)";
    ASSERT_EQ(std::system(restart.c_str()), 0);
    std::string answer;
    for (int attempt = 0; attempt < 120 && answer.empty(); ++attempt) {
        try {
            PooledConnection c = pool.borrow();  // pinged: the old connection is dead, a new one is made
            answer = scalar(*c, "SELECT 'back'");
        } catch (const Error&) {
            std::this_thread::sleep_for(500ms);
        }
    }
    EXPECT_EQ(answer, "back");
    EXPECT_GE(pool.stats().replaced + pool.stats().connects, 2u);
    {
        PooledConnection c = pool.borrow();
        EXPECT_NE(c->connection_id(), 0u);
        EXPECT_EQ(scalar(*c, "SELECT @@group_concat_max_len > 0"), "1");
    }
    const std::string stop = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir + " > /dev/null 2>&1";
    EXPECT_EQ(std::system(stop.c_str()), 0);
    std::error_code ignored;
    fs::remove_all(dir, ignored);
    fs::remove(dir + ".log", ignored);
}

}  // namespace
}  // namespace sluice::mariadb
