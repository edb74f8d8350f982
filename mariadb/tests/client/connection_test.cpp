// Text protocol, session commands and errors against the real server.
#include <gtest/gtest.h>
#include <poll.h>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/protocol/constants.hpp"
#include "sluice/mariadb/text_batch.hpp"

namespace sluice::mariadb {
namespace {

using test::admin_options;

Connection admin() { return Connection::connect(admin_options()); }

TEST(Connection, ConnectsQueriesAndReportsServerFacts) {
    Connection c = admin();
    EXPECT_FALSE(c.broken());
    EXPECT_NE(c.connection_id(), 0u);
    EXPECT_NE(c.server_version().find("MariaDB"), std::string_view::npos) << c.server_version();
    ResultSet rs = c.query("SELECT 1 AS one, 'two' AS two, NULL AS three, CONNECTION_ID() AS id");
    ASSERT_EQ(rs.columns().size(), 4u);
    EXPECT_EQ(rs.columns()[1].name, "two");
    const Row* row = rs.next();
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->get<int>(0), 1);
    EXPECT_EQ(row->get<std::string_view>("two"), "two");
    EXPECT_EQ(row->get<std::optional<std::string_view>>("three"), std::nullopt);
    EXPECT_EQ(row->get<std::uint32_t>("id"), c.connection_id());
    EXPECT_EQ(rs.next(), nullptr);
    EXPECT_FALSE(rs.next_result());
}

TEST(Connection, UrlFormConnects) {
    Connection c = Connection::connect(test::env().require("SLUICE_MARIADB_URL"));
    OkInfo ok = c.execute("DO 1");
    EXPECT_EQ(ok.affected_rows, 0u);
}

TEST(Connection, UnixSocketUrlConnects) {
    auto o = admin_options();
    std::string url = "mariadb://" + o.user + ":" + o.password + "@localhost/" + o.database +
                      "?socket=" + test::env().require("SLUICE_MARIADB_SOCKET");
    Connection c = Connection::connect(url);
    ResultSet rs = c.query("SELECT @@socket IS NOT NULL");
    ASSERT_NE(rs.next(), nullptr);
    EXPECT_FALSE(c.is_tls());  // prefer over a local socket stays plain
}

TEST(Connection, OkDetailsAffectedRowsInsertIdWarningsInfo) {
    Connection c = admin();
    c.execute("CREATE TEMPORARY TABLE ok_details (id INT AUTO_INCREMENT PRIMARY KEY, v TINYINT)");
    OkInfo ins = c.execute("INSERT INTO ok_details (v) VALUES (1), (2), (3)");
    EXPECT_EQ(ins.affected_rows, 3u);
    EXPECT_EQ(ins.last_insert_id, 1u);  // first id of a multi-row insert
    EXPECT_NE(ins.info.find("Records: 3"), std::string::npos) << ins.info;
    OkInfo upd = c.execute("UPDATE ok_details SET v = v + 1 WHERE id >= 2");
    EXPECT_EQ(upd.affected_rows, 2u);
    EXPECT_NE(upd.info.find("Rows matched: 2"), std::string::npos) << upd.info;
    c.execute("SET sql_mode = ''");
    OkInfo warn = c.execute("INSERT INTO ok_details (v) VALUES (1000)");  // clipped to 127
    EXPECT_EQ(warn.warnings, 1);
    EXPECT_EQ(warn.last_insert_id, 4u);
    EXPECT_TRUE(warn.status_flags & protocol::status::autocommit);
    c.execute("BEGIN");
    OkInfo in_trans = c.execute("DELETE FROM ok_details");
    EXPECT_EQ(in_trans.affected_rows, 4u);
    EXPECT_TRUE(in_trans.status_flags & protocol::status::in_trans);
    c.execute("ROLLBACK");
}

TEST(Connection, MultiStatementsGiveEveryResultInOrder) {
    Connection c = admin();
    ResultSet rs = c.query("SELECT 1; DO 2; SELECT 'a' UNION ALL SELECT 'b'; SET @x = 5");
    ASSERT_TRUE(rs.has_rows());
    EXPECT_EQ(rs.next()->get<int>(0), 1);
    EXPECT_EQ(rs.next(), nullptr);
    ASSERT_TRUE(rs.next_result());
    EXPECT_FALSE(rs.has_rows());
    ASSERT_TRUE(rs.next_result());
    std::vector<std::string> got;
    for (const Row& r : rs) got.push_back(r.get<std::string>(0));
    EXPECT_EQ(got, (std::vector<std::string>{"a", "b"}));
    ASSERT_TRUE(rs.next_result());
    EXPECT_FALSE(rs.has_rows());
    EXPECT_FALSE(rs.next_result());
    // The connection is ready for more.
    EXPECT_EQ(c.query("SELECT @x").next()->get<int>(0), 5);
}

TEST(Connection, ErrorInALaterStatementSurfacesAtItsResult) {
    Connection c = admin();
    ResultSet rs = c.query("SELECT 1; SELECT * FROM no_such_table; SELECT 3");
    EXPECT_EQ(rs.next()->get<int>(0), 1);
    try {
        rs.next_result();
        FAIL() << "expected the second statement to fail";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server);
        EXPECT_EQ(e.server_code(), 1146);
        EXPECT_EQ(e.sqlstate(), "42S02");
    }
    EXPECT_FALSE(c.broken());
    EXPECT_EQ(c.query("SELECT 4").next()->get<int>(0), 4);
}

TEST(Connection, ServerErrorsCarryCodeSqlstateMessageAndKeepTheConnection) {
    Connection c = admin();
    try {
        c.query("SELEC 1");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server);
        EXPECT_EQ(e.server_code(), 1064);
        EXPECT_EQ(e.sqlstate(), "42000");
        EXPECT_NE(std::string(e.what()).find("SQL syntax"), std::string::npos) << e.what();
    }
    try {
        c.execute("SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'custom failure', MYSQL_ERRNO = 3999");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.server_code(), 3999);
        EXPECT_EQ(e.sqlstate(), "45000");
        EXPECT_STREQ(e.what(), "custom failure");
    }
    EXPECT_FALSE(c.broken());
    c.ping();
}

TEST(Connection, UnreadRowsAreDiscardedByTheNextCommandAndTheOldResultIsInvalid) {
    Connection c = admin();
    ResultSet first = c.query("SELECT seq FROM seq_1_to_1000");
    ASSERT_NE(first.next(), nullptr);
    ResultSet second = c.query("SELECT 42");
    EXPECT_EQ(second.next()->get<int>(0), 42);
    EXPECT_EQ(test::kind_of([&] { first.next(); }), ErrorKind::usage);
}

TEST(Connection, SessionCommandsPingInitDbReset) {
    Connection c = admin();
    c.ping();
    c.select_database("mysql");
    EXPECT_EQ(c.query("SELECT DATABASE()").next()->get<std::string>(0), "mysql");
    EXPECT_THROW(c.select_database("no_such_db"), Error);
    c.execute("SET @v = 7");
    c.reset_session();
    EXPECT_EQ(c.query("SELECT @v").next()->get<std::optional<int>>(0), std::nullopt);
}

TEST(Connection, InitCommandsRunAfterLoginAndCharsetIsUtf8mb4) {
    auto o = admin_options();
    o.init_commands = {"SET @init = 'yes'", "SET SESSION sql_mode = 'ANSI'"};
    Connection c = Connection::connect(o);
    const Row* r = c.query("SELECT @init, @@sql_mode, @@character_set_client, @@collation_connection, "
                           "'\xF0\x9F\x90\x9F' AS fish, CHAR_LENGTH('\xF0\x9F\x90\x9F')")
                       .next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->get<std::string>(0), "yes");
    EXPECT_NE(r->get<std::string>(1).find("ANSI"), std::string::npos);
    EXPECT_EQ(r->get<std::string>(2), "utf8mb4");
    EXPECT_EQ(r->get<std::string>(3), "utf8mb4_general_ci");
    EXPECT_EQ(r->get<std::string>("fish"), "\xF0\x9F\x90\x9F");
    EXPECT_EQ(r->get<int>(5), 1);
}

TEST(Connection, FailingInitCommandFailsTheConnect) {
    auto o = admin_options();
    o.init_commands = {"SET no_such_variable = 1"};
    try {
        Connection::connect(o);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::server);
        EXPECT_EQ(e.server_code(), 1193);
    }
}

TEST(Connection, CompressedProtocolCarriesQueriesAndLargeRows) {
    auto o = admin_options();
    o.compress = true;
    Connection c = Connection::connect(o);
    EXPECT_TRUE(c.is_compressed());
    const Row* r = c.query("SELECT REPEAT('z', 100000), 7").next();
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->get<std::string_view>(0), std::string(100000, 'z'));
    EXPECT_EQ(r->get<int>(1), 7);
}

TEST(Connection, KilledWhileIdleFailsAtTheNextCommandAndIsBroken) {
    Connection victim = admin();
    Connection killer = admin();
    killer.execute("KILL CONNECTION " + std::to_string(victim.connection_id()));
    ErrorKind first = test::kind_of([&] { victim.query("SELECT 1"); });
    EXPECT_TRUE(first == ErrorKind::closed || first == ErrorKind::io || first == ErrorKind::server)
        << to_string(first);
    EXPECT_TRUE(victim.broken());
    EXPECT_EQ(test::kind_of([&] { victim.ping(); }), ErrorKind::broken);
}

TEST(Connection, ClosedConnectionThrowsBroken) {
    Connection c = admin();
    c.close();
    EXPECT_TRUE(c.broken());
    EXPECT_EQ(test::kind_of([&] { c.query("SELECT 1"); }), ErrorKind::broken);
}

// A first field of 16 MiB or more has a 0xFE-prefixed 8-byte length, so its
// row packet starts like an EOF: the result reader's inline row check sends
// it to the full end-of-rows test, which must call it a row (it also spans
// two wire frames).
TEST(Connection, ATextRowStartingWithAnEightByteLengthIsARowNotTheEnd) {
    Connection c = admin();
    const std::size_t n = (std::size_t{1} << 24) + 5;
    ResultSet rs = c.query("SELECT REPEAT('x', " + std::to_string(n) + ") AS big, 7 AS seven");
    const Row* row = rs.next();
    ASSERT_NE(row, nullptr);
    const auto big = row->get<std::string_view>(0);
    EXPECT_EQ(big.size(), n);
    EXPECT_EQ(big.find_first_not_of('x'), std::string_view::npos);
    EXPECT_EQ(row->get<int>(1), 7);
    EXPECT_EQ(rs.next(), nullptr);
    EXPECT_EQ(c.query("SELECT 1").next()->get<int>(0), 1);  // the stream is still in step
}

TEST(Connection, ServerStatusFollowsTheLastReply) {
    namespace st = protocol::status;
    Connection c = admin();
    EXPECT_TRUE(c.server_status() & st::autocommit);
    EXPECT_FALSE(c.server_status() & st::in_trans);
    c.execute("START TRANSACTION");
    EXPECT_TRUE(c.server_status() & st::in_trans);
    c.execute("ROLLBACK");
    EXPECT_FALSE(c.server_status() & st::in_trans);
    c.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')");
    EXPECT_TRUE(c.server_status() & st::no_backslash_escapes);
    EXPECT_TRUE(no_backslash_escapes(c));  // text_batch.hpp reads the same flag
    c.execute("SET SESSION sql_mode = ''");
    EXPECT_FALSE(c.server_status() & st::no_backslash_escapes);
}

TEST(Connection, NativeHandleIsTheSocketReadableOnlyOnceTheServerClosesIt) {
    Connection victim = admin();
    const int fd = victim.native_handle();
    ASSERT_GE(fd, 0);
    victim.execute("DO 1");
    pollfd idle{fd, POLLIN, 0};
    EXPECT_EQ(::poll(&idle, 1, 0), 0) << "every reply was read: nothing to read while idle";
    Connection killer = admin();
    killer.execute("KILL CONNECTION " + std::to_string(victim.connection_id()));
    pollfd closed{fd, POLLIN, 0};
    EXPECT_EQ(::poll(&closed, 1, 5000), 1) << "the server's close makes the idle socket readable";
    victim.close();
    EXPECT_EQ(victim.native_handle(), -1);
}

}  // namespace
}  // namespace sluice::mariadb
