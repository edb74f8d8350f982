// Streaming: a million rows in constant memory with no allocation per row,
// and a connection killed mid-stream. This binary counts every allocation
// (global operator new), so it is its own executable.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>

#include <sys/types.h>
#include <unistd.h>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"

// Private instances live under the build tree's servers-own/ folder, which
// scripts/test sweeps at the end, so none outlives an interrupted run.
static std::filesystem::path own_servers_dir() {
    std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
    return SLUICE_OWN_SERVERS_DIR;
}

namespace {
std::atomic<std::size_t> allocations{0};
}

void* operator new(std::size_t n) {
    allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace sluice::mariadb {
namespace {

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

TEST(Streaming, MillionRowsInConstantMemoryWithoutAllocationPerRow) {
    for (bool binary : {false, true}) {
        SCOPED_TRACE(binary ? "binary" : "text");
        Connection c = Connection::connect(test::admin_options());
        const std::string sql = "SELECT seq, REPEAT('x', 100) AS pad, seq * 0.5 AS half FROM seq_1_to_1000000";
        std::optional<Statement> stmt;
        ResultSet rs = binary ? (stmt.emplace(c.prepare(sql)), stmt->execute()) : c.query(sql);
        // Warm up: the first rows size the receive buffer.
        std::uint64_t sum = 0;
        std::size_t rows = 0;
        for (; rows < 1000; ++rows) sum += rs.next()->get<std::uint64_t>(0);
        std::size_t rss_before = resident_bytes();
        std::size_t allocations_before = allocations.load();
        std::size_t pad_bytes = 0;
        while (const Row* r = rs.next()) {
            sum += r->get<std::uint64_t>(0);
            pad_bytes += r->get<std::string_view>("pad").size();
            (void)r->get<Decimal>("half");
            ++rows;
        }
        std::size_t allocations_during = allocations.load() - allocations_before;
        std::size_t rss_growth = resident_bytes() - std::min(resident_bytes(), rss_before);
        std::cout << (binary ? "binary" : "text") << ": 1000000 rows, RSS growth " << rss_growth
                  << " bytes, " << allocations_during << " allocations after the first 1000 rows\n";
        EXPECT_EQ(rows, 1000000u);
        EXPECT_EQ(sum, 1000000ull * 1000001ull / 2);
        EXPECT_EQ(pad_bytes, 999000u * 100u);
        // The result is > 110 MB on the wire; a client that buffered it
        // would grow by at least that. Streaming stays flat.
        EXPECT_LT(rss_growth, 16u << 20) << "RSS grew by " << rss_growth << " bytes";
        // The end-of-result OK (its info string) may allocate; rows must not.
        EXPECT_LT(allocations_during, 10u) << allocations_during << " allocations for 999000 rows";
    }
}

TEST(Streaming, ConnectionKilledMidStreamErrorsPromptlyAndIsBroken) {
    auto o = test::admin_options();
    o.timeouts.read = std::chrono::seconds(30);
    Connection victim = Connection::connect(o);
    Connection admin = Connection::connect(test::admin_options());
    ResultSet rs = victim.query("SELECT seq, REPEAT('y', 200) FROM seq_1_to_1000000000");
    for (int i = 0; i < 1000; ++i) ASSERT_NE(rs.next(), nullptr);
    admin.execute("KILL CONNECTION " + std::to_string(victim.connection_id()));
    std::size_t more = 0;
    try {
        // Rows already in flight are still delivered; then the error.
        while (rs.next()) ++more;
        FAIL() << "the stream ended normally after a KILL";
    } catch (const Error& e) {
        std::cout << "after KILL: " << more << " more rows, then " << to_string(e.kind()) << " error: " << e.what()
                  << "\n";
        EXPECT_NE(e.kind(), ErrorKind::timeout) << "not prompt: " << e.what();
        if (e.kind() == ErrorKind::server) {
            EXPECT_EQ(e.server_code(), 1927) << e.what();
        }
    }
    EXPECT_LT(more, 1000000000u);
    EXPECT_TRUE(victim.broken());
    try {
        victim.query("SELECT 1");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::broken);
        EXPECT_NE(std::string(e.what()).find("broken"), std::string::npos);
    }
    // The server is fine.
    admin.ping();
}

TEST(Streaming, KillQueryMidStreamEndsTheResultButKeepsTheConnection) {
    Connection victim = Connection::connect(test::admin_options());
    Connection admin = Connection::connect(test::admin_options());
    ResultSet rs = victim.query("SELECT seq, REPEAT('y', 200) FROM seq_1_to_1000000000");
    ASSERT_NE(rs.next(), nullptr);
    admin.execute("KILL QUERY " + std::to_string(victim.connection_id()));
    try {
        while (rs.next()) {
        }
        FAIL() << "the stream ended normally after KILL QUERY";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server) << e.what();
        EXPECT_EQ(e.server_code(), 1317) << e.what();  // ER_QUERY_INTERRUPTED
    }
    EXPECT_FALSE(victim.broken());
    EXPECT_EQ(victim.query("SELECT 5").next()->get<int>(0), 5);
}

// A private server, SIGKILLed while it streams a result to us.
TEST(Streaming, ServerKilledMidStreamErrorsPromptlyAndIsBroken) {
    std::string dir = (own_servers_dir() / ("sluice-killed-" + std::to_string(::getpid()))).string();
    std::string start = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/start --dir " + dir +
                        " --only mariadb > " + dir + ".log 2>&1";
    ASSERT_EQ(std::system(start.c_str()), 0) << "could not start a private server: see " << dir << ".log";
    EnvFile private_env = EnvFile::load(dir + "/env");
    Connection victim = Connection::connect(private_env.require("SLUICE_MARIADB_URL") + "?read-timeout=30");
    ResultSet rs = victim.query("SELECT seq, REPEAT('y', 200) FROM seq_1_to_1000000000");
    for (int i = 0; i < 1000; ++i) ASSERT_NE(rs.next(), nullptr);
    std::ifstream pid_file(dir + "/mariadb.pid");
    long pid = 0;
    pid_file >> pid;
    ASSERT_GT(pid, 1);
    ASSERT_EQ(::kill(static_cast<pid_t>(pid), SIGKILL), 0);
    std::size_t more = 0;
    try {
        while (rs.next()) ++more;
        FAIL() << "the stream ended normally after the server died";
    } catch (const Error& e) {
        std::cout << "after SIGKILL of the server: " << more << " more rows, then " << to_string(e.kind())
                  << " error: " << e.what() << "\n";
        EXPECT_TRUE(e.kind() == ErrorKind::closed || e.kind() == ErrorKind::io) << e.what();
    }
    EXPECT_TRUE(victim.broken());
    EXPECT_EQ(test::kind_of([&] { victim.ping(); }), ErrorKind::broken);
    std::string stop = std::string(SLUICE_SOURCE_DIR) + "/scripts/servers/stop --dir " + dir + " > /dev/null 2>&1";
    EXPECT_EQ(std::system(stop.c_str()), 0);
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    std::filesystem::remove(dir + ".log", ignored);
}

TEST(Streaming, ReadTimeoutMarksTheConnectionBroken) {
    auto o = test::admin_options();
    o.timeouts.read = std::chrono::milliseconds(300);
    Connection c = Connection::connect(o);
    EXPECT_EQ(test::kind_of([&] { c.query("SELECT SLEEP(5)"); }), ErrorKind::timeout);
    EXPECT_TRUE(c.broken());
    EXPECT_EQ(test::kind_of([&] { c.ping(); }), ErrorKind::broken);
}

}  // namespace
}  // namespace sluice::mariadb
