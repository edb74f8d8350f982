// Text batches: multi-row INSERT literals escaped for the server's
// NO_BACKSLASH_ESCAPES status, read back byte for byte; multi-statement
// batches.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/text_batch.hpp"

namespace sluice::mariadb {
namespace {

using namespace std::string_literals;

const std::vector<std::string>& hostile_strings() {
    static const std::vector<std::string> v{
        "it's",
        "back\\slash",
        "\\'",
        "\\",
        "ends with a backslash\\",
        "double \"quoted\"",
        "nul\0inside"s,
        "\0"s,
        "line\nbreak\r\n",
        "ctrl-z \x1a",
        "'; DROP TABLE speed_text; --",
        "''",
        "multibyte: \xC3\xBC \xE2\x9C\x93 \xF0\x9F\x98\x80 \xE5\xBC\xBA",
        "\xF0\x9F\x98\x80'\\\xF0\x9F\x98\x80",
        "%_ like wildcards",
        "",
    };
    return v;
}

class TextBatch : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override {
        conn.emplace(Connection::connect(test::admin_options()));
        conn->execute("DROP TABLE IF EXISTS speed_text");
        conn->execute("CREATE TABLE speed_text (id INT PRIMARY KEY, s VARCHAR(200), b VARBINARY(200), "
                      "d DOUBLE, dt DATETIME(6), t TIME(6), x DECIMAL(30,10))");
        conn->execute(GetParam() ? "SET sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')"
                                 : "SET sql_mode = REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')");
    }
    void TearDown() override {
        if (conn && !conn->broken()) conn->execute("DROP TABLE IF EXISTS speed_text");
    }
    std::optional<Connection> conn;
};

TEST_P(TextBatch, HostileStringsRoundTripUnderTheServersEscapingMode) {
    EXPECT_EQ(no_backslash_escapes(*conn), GetParam());
    const auto& strings = hostile_strings();
    InsertBatch batch(*conn, "INSERT INTO speed_text (id, s, b, d, dt, t, x) VALUES");
    for (std::size_t i = 0; i < strings.size(); ++i) {
        std::vector<std::uint8_t> bytes(strings[i].begin(), strings[i].end());
        batch.add(static_cast<int>(i), strings[i], bytes, 1.0 / 3 + static_cast<double>(i),
                  DateTime{2024, 2, 29, 23, 59, 58, 123456}, Time{true, 100, 2, 3, 4}, Decimal::from_string("-12.5"));
    }
    const OkInfo& total = batch.finish();
    EXPECT_EQ(total.affected_rows, strings.size());
    EXPECT_EQ(batch.statements_sent(), 1u);

    Statement sel = conn->prepare("SELECT s, b, d, dt, t, x FROM speed_text WHERE id = ?");
    for (std::size_t i = 0; i < strings.size(); ++i) {
        SCOPED_TRACE(i);
        ResultSet rs = sel.execute(static_cast<int>(i));
        const Row* r = rs.next();
        ASSERT_NE(r, nullptr);
        EXPECT_EQ(r->get<std::string>(0), strings[i]);
        auto b = r->get<std::span<const std::uint8_t>>(1);
        EXPECT_EQ(std::string(b.begin(), b.end()), strings[i]);
        EXPECT_EQ(r->get<double>(2), 1.0 / 3 + static_cast<double>(i));
        EXPECT_EQ(r->get<DateTime>(3), (DateTime{2024, 2, 29, 23, 59, 58, 123456}));
        EXPECT_EQ(r->get<Time>(4), (Time{true, 100, 2, 3, 4}));
        EXPECT_EQ(r->get<Decimal>(5).text(), "-12.5000000000");
        rs.discard();
    }
    ResultSet count = conn->query("SELECT COUNT(*) FROM speed_text");
    EXPECT_EQ(count.next()->get<std::uint64_t>(0), strings.size());
    count.discard();
}

TEST_P(TextBatch, RowsEscapedBeforeAModeChangeAreNeverSent) {
    InsertBatch batch(*conn, "INSERT INTO speed_text (id, s) VALUES");
    batch.add(1, "a\\'b");
    conn->execute(GetParam() ? "SET sql_mode = REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')"
                             : "SET sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
    EXPECT_EQ(no_backslash_escapes(*conn), !GetParam());
    // Row 1 was escaped for the old mode: refused, not sent.
    EXPECT_EQ(test::kind_of([&] { batch.add(2, "c\\'d"); }), ErrorKind::usage);
    // Rows added from now on are escaped for the new mode.
    batch.add(3, "e\\'f");
    batch.finish();
    EXPECT_EQ(batch.statements_sent(), 1u);
    ResultSet rs = conn->query("SELECT GROUP_CONCAT(id, '=', s) FROM speed_text");
    EXPECT_EQ(rs.next()->get<std::string>(0), "3=e\\'f");
    rs.discard();

    InsertBatch pending(*conn, "INSERT INTO speed_text (id, s) VALUES");
    pending.add(4, "g");
    conn->execute(GetParam() ? "SET sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')"
                             : "SET sql_mode = REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')");
    EXPECT_EQ(test::kind_of([&] { pending.finish(); }), ErrorKind::usage);
}

INSTANTIATE_TEST_SUITE_P(SqlMode, TextBatch, ::testing::Bool(),
                         [](const auto& param_info) { return param_info.param ? "NoBackslashEscapes" : "Default"; });

TEST(TextBatchSplit, LongBatchesAreSplitUnderTheStatementLimit) {
    Connection conn = Connection::connect(test::admin_options());
    conn.execute("DROP TABLE IF EXISTS speed_text_split");
    conn.execute("CREATE TABLE speed_text_split (id INT PRIMARY KEY, s VARCHAR(100))");
    InsertBatch batch(conn, "INSERT INTO speed_text_split VALUES", 10000);
    for (int i = 0; i < 5000; ++i) batch.add(i, std::string(50, 'q'));
    EXPECT_EQ(batch.finish().affected_rows, 5000u);
    EXPECT_GE(batch.statements_sent(), 5000u * 57u / 10000u);
    ResultSet rs = conn.query("SELECT COUNT(*), SUM(id) FROM speed_text_split");
    const Row* r = rs.next();
    EXPECT_EQ(r->get<std::uint64_t>(0), 5000u);
    EXPECT_EQ(r->get<std::uint64_t>(1), 4999u * 5000u / 2);
    rs.discard();
    conn.execute("DROP TABLE speed_text_split");
}

TEST(TextBatchSplit, MultiStatementBatchSumsResultsAndStopsAtTheFirstError) {
    Connection conn = Connection::connect(test::admin_options());
    conn.execute("DROP TABLE IF EXISTS speed_multi");
    conn.execute("CREATE TABLE speed_multi (id INT AUTO_INCREMENT PRIMARY KEY, v INT)");
    std::vector<std::string> statements{"INSERT INTO speed_multi (v) VALUES (1), (2)",
                                        "INSERT INTO speed_multi (v) VALUES (3)",
                                        "UPDATE speed_multi SET v = v + 10 WHERE v >= 2"};
    OkInfo ok = execute_batch(conn, statements);
    EXPECT_EQ(ok.affected_rows, 5u);
    EXPECT_EQ(ok.last_insert_id, 1u);

    std::vector<std::string> failing{"INSERT INTO speed_multi (v) VALUES (4)", "INSERT INTO no_such_table VALUES (1)",
                                     "INSERT INTO speed_multi (v) VALUES (5)"};
    try {
        execute_batch(conn, failing);
        FAIL() << "missing table accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.server_code(), 1146);
    }
    ResultSet rs = conn.query("SELECT GROUP_CONCAT(v ORDER BY id) FROM speed_multi");
    EXPECT_EQ(rs.next()->get<std::string>(0), "1,12,13,4");
    rs.discard();
    conn.execute("DROP TABLE speed_multi");
}

}  // namespace
}  // namespace sluice::mariadb
