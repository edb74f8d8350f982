// Prepared statements: binding, reuse, long data, reset, close, errors.
#include <gtest/gtest.h>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"

namespace sluice::mariadb {
namespace {

class Statements : public ::testing::Test {
protected:
    void SetUp() override {
        c.emplace(Connection::connect(test::admin_options()));
        c->execute("CREATE TEMPORARY TABLE st (id INT AUTO_INCREMENT PRIMARY KEY, a BIGINT, b VARCHAR(50), "
                   "c DOUBLE, d LONGTEXT)");
    }
    std::optional<Connection> c;
};

TEST_F(Statements, TypedBindingAndReadingWithNulls) {
    Statement ins = c->prepare("INSERT INTO st (a, b, c) VALUES (?, ?, ?)");
    EXPECT_EQ(ins.param_count(), 3u);
    ResultSet r1 = ins.execute(42, "x", std::nullopt);
    EXPECT_EQ(r1.ok().affected_rows, 1u);
    EXPECT_EQ(r1.ok().last_insert_id, 1u);
    std::optional<std::string> none;
    ins.execute(std::optional<int>{}, none, 2.5);
    ins.execute(-7LL, std::string("yy"), 0.25f);
    Statement sel = c->prepare("SELECT id, a, b, c FROM st WHERE id >= ? ORDER BY id");
    EXPECT_EQ(sel.columns().size(), 4u);
    ResultSet rs = sel.execute(1);
    const Row* r = rs.next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->get<std::int64_t>("a"), 42);
    EXPECT_EQ(r->get<std::string_view>("b"), "x");
    EXPECT_EQ(r->get<std::optional<double>>("c"), std::nullopt);
    r = rs.next();
    EXPECT_EQ(r->get<std::optional<std::int64_t>>("a"), std::nullopt);
    EXPECT_EQ(r->get<std::optional<std::string_view>>("b"), std::nullopt);
    EXPECT_EQ(r->get<double>("c"), 2.5);
    r = rs.next();
    EXPECT_EQ(r->get<std::int64_t>("a"), -7);
    EXPECT_EQ(r->get<std::string>("b"), "yy");
    EXPECT_EQ(r->get<float>("c"), 0.25f);
    EXPECT_EQ(rs.next(), nullptr);
}

TEST_F(Statements, ReexecutionWithDifferentTypesAndUnsignedMax) {
    Statement sel = c->prepare("SELECT ? AS v");
    EXPECT_EQ(sel.execute(std::uint64_t{18446744073709551615ull}).next()->get<std::uint64_t>(0),
              18446744073709551615ull);
    EXPECT_EQ(sel.execute("text").next()->get<std::string>(0), "text");
    EXPECT_EQ(sel.execute(std::nullopt).next()->get<std::optional<int>>(0), std::nullopt);
    EXPECT_EQ(sel.execute(Decimal::from_string("-0.000000000000000000000000000001")).next()->get<Decimal>(0).text(),
              "-0.000000000000000000000000000001");
    EXPECT_EQ(sel.execute(Date{2024, 2, 29}).next()->get<Date>(0), (Date{2024, 2, 29}));
    EXPECT_EQ(sel.execute(true).next()->get<bool>(0), true);
}

TEST_F(Statements, WrongArgumentCountIsAUsageErrorAndTheConnectionStaysUsable) {
    Statement ins = c->prepare("INSERT INTO st (a) VALUES (?)");
    EXPECT_EQ(test::kind_of([&] { ins.execute(); }), ErrorKind::usage);
    EXPECT_EQ(test::kind_of([&] { ins.execute(1, 2); }), ErrorKind::usage);
    ins.execute(1);
    EXPECT_FALSE(c->broken());
}

TEST_F(Statements, PrepareAndExecuteErrorsCarryServerCodes) {
    try {
        c->prepare("SELECT * FROM no_such_table WHERE x = ?");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.server_code(), 1146);
        EXPECT_EQ(e.sqlstate(), "42S02");
    }
    c->execute("CREATE TEMPORARY TABLE uniq (k INT PRIMARY KEY)");
    Statement ins = c->prepare("INSERT INTO uniq VALUES (?)");
    ins.execute(1);
    try {
        ins.execute(1);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.server_code(), 1062);
        EXPECT_EQ(e.sqlstate(), "23000");
    }
    ins.execute(2);
}

TEST_F(Statements, LongDataIsStreamedInChunks) {
    auto o = test::admin_options();
    o.long_data_threshold = 1000;  // force SEND_LONG_DATA with many chunks
    Connection small = Connection::connect(o);
    small.execute("CREATE TEMPORARY TABLE ld (v LONGTEXT, w LONGBLOB)");
    std::string text(123457, 'q');
    text[5000] = 'Z';
    std::vector<std::uint8_t> bytes(54321);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i);
    small.prepare("INSERT INTO ld VALUES (?, ?)").execute(text, bytes);
    ResultSet rs = small.query("SELECT v, w, LENGTH(v), LENGTH(w) FROM ld");
    const Row* r = rs.next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->get<std::string_view>(0), text);
    auto w = r->get<std::span<const std::uint8_t>>(1);
    EXPECT_TRUE(std::equal(w.begin(), w.end(), bytes.begin(), bytes.end()));
    EXPECT_EQ(r->get<std::size_t>(2), text.size());
    EXPECT_EQ(r->get<std::size_t>(3), bytes.size());
}

// The server's own count of a session's commands of one kind.
std::uint64_t session_counter(Connection& c, const std::string& name) {
    ResultSet rs = c.query("SHOW SESSION STATUS LIKE '" + name + "'");
    // SHOW STATUS values are VARCHAR: strings never convert to numbers implicitly.
    std::uint64_t v = std::stoull(rs.next()->get<std::string>(1));
    rs.discard();
    return v;
}

TEST_F(Statements, ResetAndCloseReachTheServerAndUseAfterCloseIsAUsageError) {
    Statement sel = c->prepare("SELECT ?");
    std::uint64_t resets = session_counter(*c, "Com_stmt_reset");
    std::uint64_t closes = session_counter(*c, "Com_stmt_close");
    sel.reset();
    EXPECT_EQ(session_counter(*c, "Com_stmt_reset"), resets + 1);
    EXPECT_EQ(sel.execute(3).next()->get<int>(0), 3);
    sel.close();
    EXPECT_TRUE(sel.closed());
    EXPECT_EQ(session_counter(*c, "Com_stmt_close"), closes + 1);
    EXPECT_EQ(test::kind_of([&] { sel.execute(1); }), ErrorKind::usage);
    sel.close();  // idempotent
    EXPECT_EQ(session_counter(*c, "Com_stmt_close"), closes + 1);
}

TEST_F(Statements, DestroyingAStatementWhileItsRowsAreUnreadDefersTheClose) {
    std::uint64_t closes = session_counter(*c, "Com_stmt_close");
    {
        Statement sel = c->prepare("SELECT seq FROM seq_1_to_10000");
        ResultSet rs = sel.execute();
        ASSERT_NE(rs.next(), nullptr);
    }  // closed before the next command, not in the middle of the rows
    EXPECT_EQ(c->query("SELECT 9").next()->get<int>(0), 9);
    EXPECT_EQ(session_counter(*c, "Com_stmt_close"), closes + 1);
    EXPECT_FALSE(c->broken());
}

TEST_F(Statements, StoredProcedureResultsThroughTheBinaryProtocol) {
    c->execute("DROP PROCEDURE IF EXISTS two_results");
    c->execute("CREATE PROCEDURE two_results() BEGIN SELECT 1 AS a; SELECT 'b' AS b, 2 AS c; END");
    Statement call = c->prepare("CALL two_results()");
    ResultSet rs = call.execute();
    EXPECT_EQ(rs.next()->get<int>("a"), 1);
    EXPECT_EQ(rs.next(), nullptr);
    ASSERT_TRUE(rs.next_result());
    const Row* r = rs.next();
    EXPECT_EQ(r->get<std::string_view>("b"), "b");
    EXPECT_EQ(r->get<int>("c"), 2);
    EXPECT_EQ(rs.next(), nullptr);
    ASSERT_TRUE(rs.next_result());  // the CALL's own status
    EXPECT_FALSE(rs.has_rows());
    EXPECT_FALSE(rs.next_result());
    c->execute("DROP PROCEDURE two_results");
}

}  // namespace
}  // namespace sluice::mariadb
