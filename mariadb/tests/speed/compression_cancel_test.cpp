// The zlib compressed protocol through Connection (thresholds, packets over
// 16 MiB both ways, bulk and statements), and deadlines enforced with KILL
// QUERY from a side connection.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <random>
#include <string>

#include "server_env.hpp"
#include "sluice/mariadb/bulk.hpp"
#include "sluice/mariadb/cancel.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

using namespace std::chrono_literals;

class Compression : public ::testing::TestWithParam<std::size_t> {};

TEST_P(Compression, LargePacketsBothWaysAndStatements) {
    ConnectOptions o = test::admin_options();
    o.compress = true;
    o.compress_threshold = GetParam();
    Connection conn = Connection::connect(o);
    ASSERT_TRUE(conn.is_compressed());
    EXPECT_EQ(conn.query("SELECT 1").next()->get<int>(0), 1);

    // Down: a 17 MiB value, compressible and not.
    const std::size_t big = 17u << 20;
    {
        ResultSet rs = conn.query("SELECT REPEAT('a', " + std::to_string(big) + "), MD5(REPEAT('a', " +
                                  std::to_string(big) + "))");
        const Row* r = rs.next();
        EXPECT_EQ(r->get<std::string_view>(0).size(), big);
        rs.discard();
    }
    // Up: one COM_QUERY packet over 16 MiB of random letters.
    std::mt19937 rng(42);
    std::string text(big, ' ');
    for (char& c : text) c = static_cast<char>('a' + rng() % 26);
    {
        ResultSet rs = conn.query("SELECT LENGTH('" + text + "'), SUBSTRING('" + text + "', 1000000, 10)");
        const Row* r = rs.next();
        EXPECT_EQ(r->get<std::uint64_t>(0), big);
        EXPECT_EQ(r->get<std::string>(1), text.substr(999999, 10));
        rs.discard();
    }
    // Statements and native bulk over compression.
    conn.execute("DROP TABLE IF EXISTS speed_z_" + std::to_string(GetParam()));
    conn.execute("CREATE TABLE speed_z_" + std::to_string(GetParam()) + " (n INT, s VARCHAR(100))");
    Statement ins = conn.prepare("INSERT INTO speed_z_" + std::to_string(GetParam()) + " VALUES (?, ?)");
    std::vector<std::tuple<int, std::string>> rows;
    for (int i = 0; i < 5000; ++i) rows.emplace_back(i, "compressed row " + std::to_string(i));
    EXPECT_EQ(execute_bulk(ins, rows).affected_rows, 5000u);
    Statement sum = conn.prepare("SELECT SUM(n), COUNT(*) FROM speed_z_" + std::to_string(GetParam()) + " WHERE n >= ?");
    ResultSet rs = sum.execute(0);
    const Row* r = rs.next();
    EXPECT_EQ(r->get<std::uint64_t>(0), 4999u * 5000u / 2);
    EXPECT_EQ(r->get<std::uint64_t>(1), 5000u);
    rs.discard();
    conn.execute("DROP TABLE speed_z_" + std::to_string(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(Threshold, Compression, ::testing::Values(0u, 50u, 1u << 20),
                         [](const auto& param_info) { return "below_" + std::to_string(param_info.param); });

TEST(Cancel, AStatementPastItsDeadlineIsKilledAndTheConnectionStaysUsable) {
    Connection conn = Connection::connect(test::admin_options());
    auto t0 = std::chrono::steady_clock::now();
    try {
        with_deadline(conn, test::admin_options(), 300ms,
                      [&] { return conn.execute("SELECT SUM(a.seq * b.seq) FROM seq_1_to_100000 a, seq_1_to_100000 b"); });
        FAIL() << "the statement finished";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::timeout) << e.what();
    }
    auto elapsed = std::chrono::steady_clock::now() - t0;
    EXPECT_GE(elapsed, 300ms);
    EXPECT_LT(elapsed, 10s);
    EXPECT_FALSE(conn.broken());
    EXPECT_EQ(conn.query("SELECT 11").next()->get<int>(0), 11);
}

TEST(Cancel, AFastStatementIsNotTouched) {
    Connection conn = Connection::connect(test::admin_options());
    for (int i = 0; i < 5; ++i) {
        OkInfo ok = with_deadline(conn, test::admin_options(), 5s, [&] { return conn.execute("DO SLEEP(0.01)"); });
        EXPECT_EQ(ok.affected_rows, 0u);
    }
    QueryDeadline d(conn, test::admin_options(), 10s);
    conn.execute("DO 1");
    d.disarm();
    EXPECT_FALSE(d.fired());
    EXPECT_EQ(conn.query("SELECT 12").next()->get<int>(0), 12);
}

}  // namespace
}  // namespace sluice::mariadb
