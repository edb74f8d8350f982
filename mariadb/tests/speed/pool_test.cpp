// The pool against MariaDB: what a return resets and restores, statements
// after a reset, bounded waits, many threads, a connection killed while
// lent, a server restart, the ready-first borrow and min_idle.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
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

// A private MariaDB (scripts/servers/start --only mariadb), stopped and
// removed when the test ends, for tests that kill or pause the server.
class PrivateServer {
public:
    explicit PrivateServer(const std::string& name)
        : dir_((own_servers_dir() / (name + "-" + std::to_string(::getpid()))).string()) {
        const std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir_ +
                                  " --only mariadb > " + dir_ + ".log 2>&1";
        started_ = std::system(start.c_str()) == 0;
    }
    PrivateServer(const PrivateServer&) = delete;
    PrivateServer& operator=(const PrivateServer&) = delete;
    ~PrivateServer() { stop(); }

    bool started() const { return started_; }
    const std::string& dir() const { return dir_; }
    std::string log() const { return dir_ + ".log"; }
    ConnectOptions options() const {
        return parse_url(EnvFile::load(dir_ + "/env").require("SLUICE_MARIADB_URL"));
    }
    pid_t pid() const {
        long pid = 0;
        std::ifstream(dir_ + "/mariadb.pid") >> pid;
        return static_cast<pid_t>(pid);
    }
    // Stops the server and removes its files; true when the stop succeeded.
    bool stop() {
        if (stopped_) return true;
        stopped_ = true;
        const std::string stop =
            std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir_ + " > /dev/null 2>&1";
        const bool ok = std::system(stop.c_str()) == 0;
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
        std::filesystem::remove(dir_ + ".log", ignored);
        return ok;
    }

private:
    std::string dir_;
    bool started_ = false;
    bool stopped_ = false;
};

// SIGSTOP to a server until the end of the scope: once every thread shows
// state T, nothing the client writes is answered before SIGCONT.
class Paused {
public:
    explicit Paused(pid_t pid) : pid_(pid) {
        if (pid_ <= 1 || ::kill(pid_, SIGSTOP) != 0) return;
        for (int i = 0; i < 1000 && !all_stopped(); ++i) std::this_thread::sleep_for(1ms);
        stopped_ = all_stopped();
    }
    Paused(const Paused&) = delete;
    Paused& operator=(const Paused&) = delete;
    ~Paused() {
        if (pid_ > 1) ::kill(pid_, SIGCONT);
    }
    bool stopped() const { return stopped_; }

private:
    bool all_stopped() const {
        const std::filesystem::path tasks = "/proc/" + std::to_string(pid_) + "/task";
        std::error_code ec;
        for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
            std::ifstream in(task.path() / "stat");
            std::string stat;  // one line; getline because GCC 12 -O2 warns falsely in istreambuf_iterator
            std::getline(in, stat);
            // pid (comm) STATE ...: the comm may hold spaces, the state follows its last ')'.
            const std::size_t close = stat.rfind(')');
            if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'T') return false;
        }
        return !ec;
    }
    pid_t pid_;
    bool stopped_ = false;
};

PoolOptions pool_options(std::size_t max_size) {
    PoolOptions o;
    o.connect = test::admin_options();
    o.connect.init_commands = {"SET SESSION group_concat_max_len = 12345", "SET @restored = 'yes'"};
    o.max_size = max_size;
    o.borrow_timeout = 2s;
    return o;
}

// The return's pipeline on a plain and on a compressed connection: under
// compression each command goes in frames of its own, numbered from 0, and
// each reply's frame numbers restart; the same guarantees hold.
class PoolReturn : public testing::TestWithParam<bool> {
protected:
    PoolOptions options(std::size_t max_size) const {
        PoolOptions o = pool_options(max_size);
        o.connect.compress = GetParam();
        return o;
    }
};

INSTANTIATE_TEST_SUITE_P(Pool, PoolReturn, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& param) {
                             return param.param ? "Compressed" : "Plain";
                         });

std::string scalar(Connection& c, const std::string& sql) {
    ResultSet rs = c.query(sql);
    const Row* r = rs.next();
    std::string v = (*r)[0].is_null() ? "NULL" : r->get<std::string>(0);
    rs.discard();
    return v;
}

TEST_P(PoolReturn, SessionStateDoesNotSurviveAReturnAndSettingsAreRestored) {
    Pool pool(options(1));
    Connection admin = Connection::connect(test::admin_options());
    std::uint32_t id = 0;
    {
        PooledConnection c = pool.borrow();
        ASSERT_EQ(c->is_compressed(), GetParam());
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
    PoolOptions o = pool_options(1);
    o.prepare_on_return = false;
    Pool pool(o);
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

TEST_P(PoolReturn, StatementsUsedInALeaseArePreparedAgainByTheReturnAndWork) {
    Pool pool(options(1));
    {
        PooledConnection c = pool.borrow();
        ASSERT_EQ(c->is_compressed(), GetParam());
        ResultSet rs = c.prepare("SELECT ? + 1").execute(41);
        EXPECT_EQ(rs.next()->get<int>(0), 42);
        rs.discard();
        ResultSet rs2 = c.prepare("SELECT CONCAT(?, @restored)").execute("restored: ");
        EXPECT_EQ(rs2.next()->get<std::string>(0), "restored: yes");
        rs2.discard();
    }
    EXPECT_EQ(pool.stats().prepares, 2u);
    {
        PooledConnection c = pool.borrow();
        EXPECT_EQ(pool.stats().prepares, 4u) << "both came back prepared with the reset's replies";
        ResultSet rs = c.prepare("SELECT ? + 1").execute(1);
        EXPECT_EQ(rs.next()->get<int>(0), 2);
        rs.discard();
        EXPECT_EQ(pool.stats().prepares, 4u) << "no prepare on use";
        // Only this one is used in this lease.
    }
    PooledConnection c = pool.borrow();
    EXPECT_EQ(pool.stats().prepares, 5u) << "the unused one waits for its next use";
    ResultSet rs = c.prepare("SELECT CONCAT(?, @restored)").execute("again ");
    EXPECT_EQ(rs.next()->get<std::string>(0), "again yes");
    rs.discard();
    EXPECT_EQ(pool.stats().prepares, 6u);
    EXPECT_EQ(pool.stats().connects, 1u);
    EXPECT_EQ(pool.stats().replaced, 0u);
}

TEST_P(PoolReturn, ARePrepareTheServerRefusesIsLeftToItsUseAndTheOtherRepliesStayInOrder) {
    Connection admin = Connection::connect(test::admin_options());
    admin.execute("CREATE OR REPLACE TABLE speed_pool_reprepare (v INT)");
    admin.execute("INSERT INTO speed_pool_reprepare VALUES (7)");
    Pool pool(options(1));
    std::uint32_t id = 0;
    {
        PooledConnection c = pool.borrow();
        ASSERT_EQ(c->is_compressed(), GetParam());
        id = c->connection_id();
        ResultSet rs = c.prepare("SELECT 0 + v FROM speed_pool_reprepare").execute();
        EXPECT_EQ(rs.next()->get<int>(0), 7);
        rs.discard();
        ResultSet rs2 = c.prepare("SELECT ? * 2").execute(21);
        EXPECT_EQ(rs2.next()->get<int>(0), 42);
        rs2.discard();
        admin.execute("DROP TABLE speed_pool_reprepare");
    }
    {
        PooledConnection c = pool.borrow();
        EXPECT_EQ(c->connection_id(), id) << "a refused re-prepare is no reason to reconnect";
        // The refused re-prepare went first (statements go in SQL order):
        // the reply after it still belongs to its own statement.
        ResultSet rs = c.prepare("SELECT ? * 2").execute(50);
        EXPECT_EQ(rs.next()->get<int>(0), 100);
        rs.discard();
        try {
            c.prepare("SELECT 0 + v FROM speed_pool_reprepare");
            FAIL() << "expected the server's error at use";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::server) << e.what();
            EXPECT_NE(std::string(e.what()).find("speed_pool_reprepare"), std::string::npos) << e.what();
        }
        EXPECT_EQ(scalar(*c, "SELECT @restored"), "yes");
    }
    admin.execute("CREATE OR REPLACE TABLE speed_pool_reprepare (v INT)");
    admin.execute("INSERT INTO speed_pool_reprepare VALUES (8)");
    PooledConnection c = pool.borrow();
    ResultSet rs = c.prepare("SELECT 0 + v FROM speed_pool_reprepare").execute();
    EXPECT_EQ(rs.next()->get<int>(0), 8);
    rs.discard();
    EXPECT_EQ(c->connection_id(), id);
    admin.execute("DROP TABLE speed_pool_reprepare");
}

TEST_P(PoolReturn, AFailedRestoreReplacesTheConnectionAndIsNeverLent) {
    Connection admin = Connection::connect(test::admin_options());
    admin.execute("CREATE OR REPLACE TABLE speed_pool_restore (v INT)");
    admin.execute("INSERT INTO speed_pool_restore VALUES (5)");
    PoolOptions o = options(1);
    // A restore command that fails once the table is gone.
    o.connect.init_commands = {"SET @from_table = (SELECT v FROM speed_pool_restore)", "SET @restored = 'yes'"};
    Pool pool(o);
    std::uint32_t id = 0;
    {
        PooledConnection c = pool.borrow();
        ASSERT_EQ(c->is_compressed(), GetParam());
        id = c->connection_id();
        EXPECT_EQ(scalar(*c, "SELECT @from_table"), "5");
        c->execute("SET @left_behind = 1");
        admin.execute("DROP TABLE speed_pool_restore");  // before the return runs the restore
    }
    // The return's restore failed: the connection is replaced, and the new
    // connection's own init command fails too, which the borrower sees.
    EXPECT_EQ(test::kind_of([&] { pool.borrow(); }), ErrorKind::server);
    EXPECT_EQ(pool.stats().replaced, 1u);
    EXPECT_EQ(pool.stats().open, 0u);

    admin.execute("CREATE OR REPLACE TABLE speed_pool_restore (v INT)");
    admin.execute("INSERT INTO speed_pool_restore VALUES (6)");
    PooledConnection c = pool.borrow();
    EXPECT_NE(c->connection_id(), id);
    EXPECT_EQ(scalar(*c, "SELECT @from_table"), "6");
    EXPECT_EQ(scalar(*c, "SELECT @left_behind"), "NULL");
    admin.execute("DROP TABLE speed_pool_restore");
}

TEST(Pool, AConnectionKilledWhileIdleIsNotLentEvenBeforeThePingIsDue) {
    PoolOptions o = pool_options(1);
    o.connect.init_commands.clear();  // the return's pipeline is the reset alone
    o.ping_after_idle = std::chrono::hours(1);
    Pool pool(o);
    Connection admin = Connection::connect(test::admin_options());
    std::uint32_t id = 0;
    std::string query_id;
    {
        PooledConnection c = pool.borrow();
        id = c->connection_id();
        query_id = scalar(*c, "SELECT QUERY_ID FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()");
    }
    // The reset is answered (its replies are good) before the kill: the
    // server ran a later query id and sleeps again.
    const std::string answered = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " +
                                 std::to_string(id) + " AND QUERY_ID > " + query_id + " AND COMMAND = 'Sleep'";
    for (int i = 0; i < 500 && scalar(admin, answered) != "1"; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(scalar(admin, answered), "1");
    admin.execute("KILL CONNECTION " + std::to_string(id));
    const std::string gone = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(id);
    for (int i = 0; i < 500 && scalar(admin, gone) != "0"; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(scalar(admin, gone), "0");

    PooledConnection c = pool.borrow();
    EXPECT_NE(c->connection_id(), id) << "a closed connection was lent";
    EXPECT_EQ(scalar(*c, "SELECT 'alive'"), "alive");
    EXPECT_EQ(pool.stats().pings, 0u);
    EXPECT_EQ(pool.stats().replaced, 1u);
}

TEST(Pool, DestroyingAPoolWithRepliesInFlightEndsItsConnectionsCleanly) {
    // Closing a socket with unread replies resets the connection: the server
    // logs "Aborted connection <id>" instead of seeing a QUIT.
    const std::string log = test::env().require("SLUICE_SERVERS_DIR") + "/logs/mariadb.log";
    ASSERT_TRUE(std::filesystem::exists(log)) << log;
    Connection admin = Connection::connect(test::admin_options());
    std::vector<std::uint32_t> ids;
    for (int i = 0; i < 5; ++i) {
        Pool pool(pool_options(1));
        PooledConnection c = pool.borrow();
        ids.push_back(c->connection_id());
        c.prepare("SELECT ? + 1");
        c.release();  // the reset, restore and re-prepare go out; the pool ends at once
    }
    for (std::uint32_t id : ids) {
        const std::string gone =
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + std::to_string(id);
        for (int i = 0; i < 500 && scalar(admin, gone) != "0"; ++i) std::this_thread::sleep_for(10ms);
        ASSERT_EQ(scalar(admin, gone), "0");
    }
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        for (std::uint32_t id : ids) {
            EXPECT_EQ(line.find("Aborted connection " + std::to_string(id) + " "), std::string::npos) << line;
        }
    }
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

TEST(Pool, AConnectionKilledWhileLentIsReplacedBeforeTheNextLease) {
    Pool pool(pool_options(1));
    Connection admin = Connection::connect(test::admin_options());
    std::uint32_t id = 0;
    {
        PooledConnection c = pool.borrow();
        id = c->connection_id();
        c->execute("SET @left_behind = 1");
        // The return writes its reset into a killed connection (or fails to):
        // either way its replies never come.
        admin.execute("KILL CONNECTION " + std::to_string(id));
    }
    PooledConnection c = pool.borrow();
    EXPECT_NE(c->connection_id(), id);
    EXPECT_FALSE(c->broken());
    EXPECT_EQ(scalar(*c, "SELECT @@group_concat_max_len"), "12345");
    EXPECT_EQ(scalar(*c, "SELECT @left_behind"), "NULL");
    EXPECT_EQ(pool.stats().replaced, 1u);
}

// A private server, killed and started again on the same port and data.
TEST(Pool, SurvivesAServerRestart) {
    PrivateServer server("sluice-pool");
    ASSERT_TRUE(server.started()) << "could not start a private server: see " << server.log();
    const std::string& dir = server.dir();
    PoolOptions o;
    o.connect = server.options();
    o.connect.timeouts.connect = 5s;
    o.connect.timeouts.read = 10s;
    o.max_size = 2;
    o.ping_after_idle = 0ms;
    Pool pool(o);
    {
        PooledConnection c = pool.borrow();
        EXPECT_EQ(scalar(*c, "SELECT 1"), "1");
    }
    const pid_t pid = server.pid();
    ASSERT_GT(pid, 1);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    while (::kill(pid, 0) == 0) std::this_thread::sleep_for(50ms);
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
    EXPECT_TRUE(server.stop());
}

// ---- ready first, min_idle ----

TEST(Pool, MinIdleLargerThanMaxSizeIsRefused) {
    PoolOptions o = pool_options(2);
    o.min_idle = 3;
    try {
        Pool pool(o);
        FAIL() << "expected Error{usage}";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
        EXPECT_NE(std::string(e.what()).find("min_idle (3)"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("max_size (2)"), std::string::npos) << e.what();
    }
    o.min_idle = 2;
    Pool pool(o);  // equal is fine
    EXPECT_EQ(pool.stats().open, 2u);
}

TEST(Pool, MinIdleConnectionsAreOpenedByTheConstructorAndLentWithoutWaiting) {
    PoolOptions o = pool_options(3);
    o.min_idle = 2;
    Pool pool(o);
    PoolStats s = pool.stats();
    EXPECT_EQ(s.open, 2u);
    EXPECT_EQ(s.idle, 2u);
    EXPECT_EQ(s.connects, 2u);
    // Nothing pending on either: both borrows are ready, no new connection.
    PooledConnection a = pool.borrow();
    PooledConnection b = pool.borrow();
    EXPECT_NE(a->connection_id(), b->connection_id());
    EXPECT_EQ(scalar(*a, "SELECT @restored"), "yes");
    EXPECT_EQ(scalar(*b, "SELECT @@group_concat_max_len"), "12345");
    s = pool.stats();
    EXPECT_EQ(s.connects, 2u);
    EXPECT_EQ(s.ready_borrows, 2u);
    EXPECT_EQ(s.waited_borrows, 0u);
    PooledConnection c = pool.borrow();  // none idle: a third one
    EXPECT_EQ(pool.stats().connects, 3u);
    EXPECT_EQ(pool.stats().ready_borrows + pool.stats().waited_borrows, 2u) << "a new connection is neither";
}

// Whichever connection the ready check picks, it was reset: over a tight
// single-thread loop on two connections, every lease starts clean, on a
// plain, a compressed and a TLS connection (whose replies may only be in
// the socket, never in OpenSSL's buffer, when the check polls it).
class PoolReadyFirst : public testing::TestWithParam<std::string> {
protected:
    PoolOptions options() const {
        PoolOptions o = pool_options(2);
        o.min_idle = 2;
        o.connect.compress = GetParam() == "Compressed";
        if (GetParam() == "Tls") {
            o.connect.ssl_ca = test::env().require("SLUICE_CA");  // verify_full
        } else {
            o.connect.ssl_mode = SslMode::disable;
        }
        return o;
    }
};

INSTANTIATE_TEST_SUITE_P(Pool, PoolReadyFirst, testing::Values("Plain", "Compressed", "Tls"),
                         [](const testing::TestParamInfo<std::string>& param) { return param.param; });

TEST_P(PoolReadyFirst, EveryLeaseStartsResetWhicheverConnectionIsReady) {
    Pool pool(options());
    constexpr int leases = 40;
    for (int i = 0; i < leases; ++i) {
        PooledConnection c = pool.borrow();
        ASSERT_EQ(c->is_tls(), GetParam() == "Tls");
        ASSERT_EQ(c->is_compressed(), GetParam() == "Compressed");
        EXPECT_EQ(scalar(*c, "SELECT CONCAT(COALESCE(@lease, 'none'), ' ', @restored, ' ', @@group_concat_max_len)"),
                  "none yes 12345")
            << "lease " << i << " on connection " << c->connection_id();
        c->execute("SET @lease = " + std::to_string(i));
        ResultSet rs = c.prepare("SELECT ? + 1").execute(i);  // re-prepared by each return
        EXPECT_EQ(rs.next()->get<int>(0), i + 1);
        rs.discard();
    }
    // One returned, then two borrowed without returning: both connections,
    // both reset (each had a @lease set in an earlier lease).
    PooledConnection a = pool.borrow();
    PooledConnection b = pool.borrow();
    EXPECT_NE(a->connection_id(), b->connection_id());
    EXPECT_EQ(scalar(*a, "SELECT COALESCE(@lease, 'none')"), "none");
    EXPECT_EQ(scalar(*b, "SELECT COALESCE(@lease, 'none')"), "none");
    PoolStats s = pool.stats();
    EXPECT_EQ(s.connects, 2u) << "only the two min_idle connections are ever lent";
    EXPECT_EQ(s.replaced, 0u);
    EXPECT_EQ(s.resets, static_cast<std::size_t>(leases));
    EXPECT_EQ(s.ready_borrows + s.waited_borrows, static_cast<std::size_t>(leases + 2));
    // The first two borrows find a connection with nothing pending (both
    // fresh, then the one not lent yet): ready whatever the timing.
    EXPECT_GE(s.ready_borrows, 2u);
}

// The server is paused while a connection is returned, so that connection's
// replies cannot have arrived: the borrow right after must take the other
// idle connection (nothing pending) instead of waiting for the most recent
// one, which the borrow before the ready check did (and here it would have
// waited for a paused server until its read timeout).
TEST(Pool, ABorrowTakesAReadyConnectionOverTheMostRecentOneStillAwaitingItsReplies) {
    PrivateServer server("sluice-pool-ready");
    ASSERT_TRUE(server.started()) << "could not start a private server: see " << server.log();
    PoolOptions o;
    o.connect = server.options();
    o.connect.init_commands = {"SET SESSION group_concat_max_len = 12345"};
    o.connect.timeouts.connect = 5s;
    o.connect.timeouts.read = 5s;
    o.max_size = 2;
    o.min_idle = 2;
    o.ping_after_idle = 1h;  // no round trip in the borrow below
    Pool pool(o);
    PooledConnection a = pool.borrow();
    const std::uint32_t a_id = a->connection_id();
    a->execute("SET @left_behind = 1");
    std::optional<PooledConnection> b;
    {
        Paused paused(server.pid());
        ASSERT_TRUE(paused.stopped());
        a.release();  // its reset is written; no reply can come while paused
        b.emplace(pool.borrow());
    }
    EXPECT_NE((*b)->connection_id(), a_id) << "took the connection whose replies had not arrived";
    PoolStats s = pool.stats();
    EXPECT_EQ(s.ready_borrows, 2u);
    EXPECT_EQ(s.waited_borrows, 0u);
    EXPECT_EQ(scalar(**b, "SELECT @@group_concat_max_len"), "12345");
    // The returned one is lent next, reset (read from its replies).
    PooledConnection again = pool.borrow();
    EXPECT_EQ(again->connection_id(), a_id);
    EXPECT_EQ(scalar(*again, "SELECT COALESCE(@left_behind, 'none')"), "none");
    EXPECT_EQ(scalar(*again, "SELECT @@group_concat_max_len"), "12345");
    s = pool.stats();
    EXPECT_EQ(s.ready_borrows + s.waited_borrows, 3u);
    EXPECT_EQ(s.connects, 2u);
    EXPECT_EQ(s.replaced, 0u);
}

// Three idle connections opened by min_idle; the server closes one (KILL).
// The ready check sees it readable with nothing pending, drops it and lends
// another; the next return connects a replacement, back to min_idle.
TEST(Pool, AClosedIdleConnectionAmongSeveralIsDroppedAndReplacedUpToMinIdle) {
    Connection admin = Connection::connect(test::admin_options());
    const std::string db = "sluice_pool_min_idle";  // tells this pool's connections apart
    admin.execute("CREATE DATABASE IF NOT EXISTS " + db);
    PoolOptions o = pool_options(3);
    o.connect.database = db;
    o.min_idle = 3;
    o.ping_after_idle = 1h;
    std::set<std::string> before;
    {
        Pool pool(o);
        ResultSet rs = admin.query("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '" + db + "'");
        while (const Row* r = rs.next()) before.insert(r->get<std::string>(0));
        ASSERT_EQ(before.size(), 3u);
        const std::string killed = *before.begin();
        admin.execute("KILL CONNECTION " + killed);
        const std::string gone = "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + killed;
        for (int i = 0; i < 500 && scalar(admin, gone) != "0"; ++i) std::this_thread::sleep_for(10ms);
        ASSERT_EQ(scalar(admin, gone), "0");

        {
            PooledConnection c = pool.borrow();
            EXPECT_NE(std::to_string(c->connection_id()), killed);
            EXPECT_EQ(scalar(*c, "SELECT 'alive'"), "alive");
            PoolStats s = pool.stats();
            EXPECT_EQ(s.replaced, 1u);
            EXPECT_EQ(s.open, 2u) << "dropped, not yet replaced";
            EXPECT_EQ(s.ready_borrows, 1u);
        }
        PoolStats s = pool.stats();
        EXPECT_EQ(s.open, 3u) << "the return refilled min_idle";
        EXPECT_EQ(s.connects, 4u);
        std::set<std::uint32_t> ids;
        std::vector<PooledConnection> held;
        for (int i = 0; i < 3; ++i) {
            held.push_back(pool.borrow());
            EXPECT_EQ(scalar(*held.back(), "SELECT 'alive'"), "alive");
            ids.insert(held.back()->connection_id());
        }
        EXPECT_EQ(ids.size(), 3u);
        EXPECT_EQ(ids.count(static_cast<std::uint32_t>(std::stoul(killed))), 0u);
        EXPECT_EQ(pool.stats().connects, 4u);
    }
    admin.execute("DROP DATABASE " + db);
}

}  // namespace
}  // namespace sluice::mariadb
