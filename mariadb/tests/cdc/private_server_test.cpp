// CDC against a private MariaDB of the test's own (scripts/servers/start):
// a server restart in the middle of the stream, and servers configured in
// ways CDC must refuse.
#include <gtest/gtest.h>

#include <thread>

#include "cdc_support.hpp"
#include "json_scan.hpp"
#include "sluice/mariadb/cdc/change_stream.hpp"

namespace sluice::mariadb::test {
namespace {

using namespace std::chrono_literals;

std::vector<int> ids_of(const cdc::Transaction& t) {
    std::vector<int> ids;
    t.for_each_change([&](const cdc::Change& c) { ids.push_back(static_cast<int>(std::get<std::int64_t>(c.after[0].value))); });
    return ids;
}

TEST(CdcPrivateServer, AServerRestartMidStreamLosesAndRepeatsNothing) {
    PrivateServer server("cdc-restart");
    ASSERT_TRUE(server.started()) << server.log();
    {
        Connection c = Connection::connect(server.options());
        c.execute("CREATE TABLE r (id INT PRIMARY KEY)");
        c.execute("INSERT INTO r VALUES (1)");
    }
    cdc::StreamOptions o;
    o.start = cdc::StartAt::oldest;
    o.heartbeat = 1s;
    o.reconnect_for = 60s;
    cdc::ChangeStream s = cdc::ChangeStream::open(server.options(), o);
    std::vector<int> seen;
    auto next_transaction = [&] {
        while (const cdc::ChangeEvent* e = s.next()) {
            if (const auto* t = std::get_if<cdc::Transaction>(e)) {
                auto ids = ids_of(*t);
                seen.insert(seen.end(), ids.begin(), ids.end());
                return;
            }
        }
        FAIL() << "stream ended";
    };
    next_transaction();
    ASSERT_EQ(seen, std::vector<int>{1});
    ASSERT_TRUE(server.restart()) << server.log();
    {
        Connection c = Connection::connect(server.options());
        c.execute("INSERT INTO r VALUES (2)");
        c.execute("INSERT INTO r VALUES (3), (4)");
    }
    next_transaction();
    next_transaction();
    EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4}));
    EXPECT_GE(s.connects(), 2U);
    EXPECT_EQ(s.position().domain(0)->seq_no, 4U);  // CREATE, 1, 2, (3, 4)
}

TEST(CdcPrivateServer, RefusesStatementBinlogsAndPurgedPositionsNamingTheCause) {
    PrivateServer server("cdc-refuse");
    ASSERT_TRUE(server.started()) << server.log();
    const std::string url = quote_arg(server.url());
    Connection c = Connection::connect(server.options());
    c.execute("CREATE TABLE p (id INT PRIMARY KEY)");
    c.execute("INSERT INTO p VALUES (1)");
    c.execute("FLUSH BINARY LOGS");
    c.execute("INSERT INTO p VALUES (2)");
    std::string current = scalar(c, "SELECT @@global.gtid_binlog_pos");
    // The server keeps a binlog until its binlog checkpoint (InnoDB's log
    // flush, once a second here) says crash recovery no longer needs it:
    // purge until the first file is gone.
    auto logs = [&] {
        std::vector<std::string> names;
        ResultSet rs = c.query("SHOW BINARY LOGS");
        while (const Row* r = rs.next()) names.push_back(r->get<std::string>(0));
        return names;
    };
    const std::string first = logs().front();
    for (int i = 0; i < 100 && logs().front() == first; ++i) {
        c.execute("PURGE BINARY LOGS TO '" + logs().back() + "'");
        if (logs().front() == first) std::this_thread::sleep_for(100ms);
    }
    ASSERT_NE(logs().front(), first);

    Outcome purged = run_cli("cdc " + url + " --from-gtid 0-1-1 --until-end", true);
    EXPECT_NE(purged.status, 0);
    EXPECT_NE(purged.out.find("cannot serve this position"), std::string::npos) << purged.out;
    EXPECT_NE(purged.out.find("1236"), std::string::npos) << purged.out;
    // After the purge the current position still works.
    Outcome fine = run_cli("cdc " + url + " --from-gtid " + quote_arg(current) + " --until-end", true);
    EXPECT_EQ(fine.status, 0) << fine.out;

    c.execute("SET GLOBAL binlog_format = 'STATEMENT'");
    Outcome statement = run_cli("cdc " + url + " --from-now --until-end", true);
    EXPECT_EQ(statement.status, 1);
    EXPECT_NE(statement.out.find("binlog_format=STATEMENT: CDC needs binlog_format=ROW"), std::string::npos)
        << statement.out;
}

// binlog_row_metadata=MINIMAL: the binlog has no column names, so they (and
// the UUID / INET6 / JSON types) come from information_schema.
TEST(CdcPrivateServer, MinimalMetadataTakesNamesAndTypesFromTheSchema) {
    PrivateServer server("cdc-minimal");
    ASSERT_TRUE(server.started()) << server.log();
    Connection c = Connection::connect(server.options());
    c.execute("SET GLOBAL binlog_row_metadata = MINIMAL");
    c.execute("CREATE TABLE m (id INT PRIMARY KEY, u UUID, ip INET6, j JSON, name VARCHAR(10))");
    c.execute("INSERT INTO m VALUES (1, '123e4567-e89b-12d3-a456-426614174000', '::ffff:1.2.3.4', '{\"a\":1}', 'x')");
    Outcome r = run_cli("cdc " + quote_arg(server.url()) + " --from-start --until-end --tables sluice.m", true);
    ASSERT_EQ(r.status, 0) << r.out;
    auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2U) << r.out;
    Outcome select = run_cli("--format ndjson " + quote_arg(server.url()) + " 'SELECT * FROM m'", true);
    auto selected = lines_of(select.out);
    ASSERT_EQ(selected.size(), 1U) << select.out;
    EXPECT_EQ(member(elements(member(lines[1], "changes"))[0], "after"), selected[0]);
    EXPECT_EQ(selected[0],
              "{\"id\":1,\"u\":\"123e4567-e89b-12d3-a456-426614174000\",\"ip\":\"::ffff:1.2.3.4\",\"j\":\"{\\\"a\\\":1}\",\"name\":\"x\"}");
}

}  // namespace
}  // namespace sluice::mariadb::test
