// CDC from replicas and across failover (issue 26), against a private
// primary and replica of each test's own (replica_pair.hpp): reading the
// replica equals reading the primary; a planned switchover and a second one
// back, under writes, deliver every transaction once; an unplanned failover
// that lost delivered transactions stops naming them and writes nothing
// (and --on-lost-transactions continue goes on); a replica that is behind
// is waited for.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "cdc_support.hpp"
#include "cli_child.hpp"
#include "json_scan.hpp"
#include "replica_pair.hpp"

namespace sluice::mariadb::test {
namespace {

using namespace std::chrono_literals;

// The transaction lines of an NDJSON file (DDL lines left out).
std::vector<std::string> transactions_in(const std::string& path) {
    std::vector<std::string> out;
    for (const std::string& line : lines_of(read_file(path)))
        if (line.find("\"changes\":") != std::string::npos) out.push_back(line);
    return out;
}

// The id each transaction line inserted into sluice.f (one row each).
std::vector<long> inserted_ids(const std::vector<std::string>& lines) {
    std::vector<long> ids;
    for (const std::string& line : lines) {
        const std::string after = member(elements(member(line, "changes"))[0], "after");
        ids.push_back(std::stol(member(after, "id")));
    }
    return ids;
}

std::vector<long> table_ids(Connection& c) {
    std::vector<long> ids;
    ResultSet rs = c.query("SELECT id FROM sluice.f ORDER BY id");
    while (const Row* r = rs.next()) ids.push_back(r->get<long>(0));
    return ids;
}

void insert_rows(Connection& c, long from, long to) {
    for (long i = from; i <= to; ++i) c.execute("INSERT INTO sluice.f VALUES (" + std::to_string(i) + ", 0)");
}

// A line's "gtid" member, without its quotes.
std::string gtid_of(const std::string& line) {
    const std::string quoted = member(line, "gtid");
    return quoted.size() >= 2 ? quoted.substr(1, quoted.size() - 2) : quoted;
}

// Every GTID once (a transaction delivered twice would repeat its GTID).
bool gtids_unique(const std::vector<std::string>& lines) {
    std::set<std::string> seen;
    for (const std::string& line : lines)
        if (!seen.insert(member(line, "gtid")).second) return false;
    return true;
}

bool has_transactions(const std::string& path, std::size_t n) {
    return test_support::wait_until([&] { return transactions_in(path).size() >= n; }, 90s, 100ms);
}

bool log_says(const std::string& log, const std::string& text) {
    return test_support::wait_until([&] { return read_file(log).find(text) != std::string::npos; }, 90s, 100ms);
}

class CdcFailover : public ::testing::Test {
protected:
    std::string file(const std::string& name) const {
        return std::string(SLUICE_OWN_SERVERS_DIR) + "/cdc-failover-" + name + "-" + std::to_string(::getpid());
    }
    void TearDown() override {
        for (const std::string& f : made_) std::remove(f.c_str());
    }
    std::string made(const std::string& name) {
        made_.push_back(file(name));
        std::remove(made_.back().c_str());
        return made_.back();
    }
    std::vector<std::string> made_;
};

TEST_F(CdcFailover, TheReplicaReadsLikeThePrimaryAndSwitchoversThereAndBackDeliverEveryTransactionOnce) {
    ReplicaPair pair("cdc-switchover");
    ASSERT_TRUE(pair.started()) << pair.log();
    Connection primary = pair.connect("mariadb");
    primary.execute("CREATE TABLE sluice.f (id BIGINT PRIMARY KEY, v INT)");
    insert_rows(primary, 1, 20);
    Connection replica = pair.connect("mariadb-replica");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, binlog_pos(primary)));

    // The replica's binlog (log_slave_updates) holds the same transactions,
    // GTIDs and timestamps: the same lines.
    const Outcome from_primary = run_cli("cdc " + quote_arg(pair.url("mariadb")) + " --from-start --until-end");
    const Outcome from_replica = run_cli("cdc " + quote_arg(pair.url("mariadb-replica")) + " --from-start --until-end");
    ASSERT_EQ(from_primary.status, 0);
    ASSERT_EQ(from_replica.status, 0);
    EXPECT_EQ(lines_of(from_primary.out).size(), 21U);  // the DDL and 20 inserts
    EXPECT_EQ(from_replica.out, from_primary.out);

    const std::string out = made("switchover.ndjson"), log = made("switchover.log");
    const pid_t cdc = spawn_cli({"cdc", pair.list_url(), "--from-start", "--out", out, "--failover-after", "1"}, log);
    insert_rows(primary, 21, 60);  // while it reads
    ASSERT_TRUE(has_transactions(out, 60)) << read_file(log);

    // Planned switchover: stop the writes, wait for the replica, SIGKILL
    // the primary, promote the replica, the writes go on there.
    primary.execute("SET GLOBAL read_only = ON");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, binlog_pos(primary)));
    ASSERT_TRUE(pair.kill("mariadb"));
    ReplicaPair::promote(replica);
    insert_rows(replica, 61, 100);
    ASSERT_TRUE(has_transactions(out, 100)) << read_file(log);
    EXPECT_NE(read_file(log).find("failing over from 127.0.0.1:" + pair.port("mariadb") + " "), std::string::npos)
        << read_file(log);
    std::vector<std::string> lines = transactions_in(out);
    EXPECT_TRUE(gtids_unique(lines));
    EXPECT_EQ(inserted_ids(lines), table_ids(replica));
    EXPECT_EQ(gtid_of(lines.back()), binlog_pos(replica));  // 0-2-N: the new primary's own

    // And back: the old primary rebuilt as a replica of the new one, then
    // a second switchover to it.
    ASSERT_TRUE(pair.rebuild_as_replica("mariadb", "mariadb-replica")) << pair.log();
    Connection old_primary = pair.connect("mariadb");
    ASSERT_TRUE(ReplicaPair::caught_up(old_primary, binlog_pos(replica)));
    insert_rows(replica, 101, 120);
    replica.execute("SET GLOBAL read_only = ON");
    ASSERT_TRUE(ReplicaPair::caught_up(old_primary, binlog_pos(replica)));
    ASSERT_TRUE(pair.kill("mariadb-replica"));
    ReplicaPair::promote(old_primary);
    insert_rows(old_primary, 121, 150);
    ASSERT_TRUE(has_transactions(out, 150)) << read_file(log);
    EXPECT_NE(read_file(log).find("failing over from 127.0.0.1:" + pair.port("mariadb-replica") + " "),
              std::string::npos)
        << read_file(log);
    lines = transactions_in(out);
    EXPECT_TRUE(gtids_unique(lines));
    EXPECT_EQ(inserted_ids(lines), table_ids(old_primary));

    ::kill(cdc, SIGTERM);
    EXPECT_EQ(wait_exit(cdc), 0) << read_file(log);
}

TEST_F(CdcFailover, AnUnplannedFailoverThatLostDeliveredTransactionsStopsNamingThemAndWritesNothing) {
    ReplicaPair pair("cdc-lost");
    ASSERT_TRUE(pair.started()) << pair.log();
    Connection primary = pair.connect("mariadb");
    primary.execute("CREATE TABLE sluice.f (id BIGINT PRIMARY KEY, v INT)");  // 0-1-1
    insert_rows(primary, 1, 5);                                                 // 0-1-2..0-1-6
    Connection replica = pair.connect("mariadb-replica");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, binlog_pos(primary)));
    replica.execute("STOP SLAVE");  // the last transactions never reach it
    insert_rows(primary, 6, 8);     // 0-1-7..0-1-9

    const std::string out = made("lost.ndjson"), log = made("lost.log");
    const pid_t cdc = spawn_cli({"cdc", pair.list_url(), "--from-start", "--out", out, "--failover-after", "1"}, log);
    ASSERT_TRUE(has_transactions(out, 8)) << read_file(log);
    const std::string before = read_file(out);

    ASSERT_TRUE(pair.kill("mariadb"));
    ReplicaPair::promote(replica);
    insert_rows(replica, 100, 101);  // 0-2-7, 0-2-8: other transactions under the same numbers
    EXPECT_EQ(wait_exit(cdc), 1) << read_file(log);
    const std::string error = read_file(log);
    EXPECT_NE(error.find("sluice-mariadb cdc: error: server 127.0.0.1:" + pair.port("mariadb-replica") +
                         " lacks transactions this stream already delivered: 0-1-7..0-1-9"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("--on-lost-transactions continue"), std::string::npos) << error;
    EXPECT_EQ(read_file(out), before);  // nothing more written

    // The caller's explicit choice: go on from the new primary's history
    // (after 0-1-6, where the two forked).
    const Outcome go_on = run_cli("cdc " + quote_arg(pair.list_url()) + " --out " + quote_arg(out) +
                                      " --on-lost-transactions continue --until-end",
                                  true);
    EXPECT_EQ(go_on.status, 0) << go_on.out;
    EXPECT_NE(go_on.out.find("warning: server 127.0.0.1:" + pair.port("mariadb-replica") +
                             " lacks transactions this stream already delivered: 0-1-7..0-1-9"),
              std::string::npos)
        << go_on.out;
    EXPECT_NE(go_on.out.find("continuing from this server's history after 0-1-6"), std::string::npos) << go_on.out;
    const std::vector<std::string> lines = transactions_in(out);
    ASSERT_EQ(lines.size(), 10U);
    EXPECT_EQ(inserted_ids(lines), (std::vector<long>{1, 2, 3, 4, 5, 6, 7, 8, 100, 101}));
    EXPECT_EQ(gtid_of(lines.back()), "0-2-8");
}

TEST_F(CdcFailover, AReplicaThatIsBehindIsWaitedForAndThenReadOn) {
    ReplicaPair pair("cdc-behind");
    ASSERT_TRUE(pair.started()) << pair.log();
    Connection primary = pair.connect("mariadb");
    primary.execute("CREATE TABLE sluice.f (id BIGINT PRIMARY KEY, v INT)");
    insert_rows(primary, 1, 3);
    Connection replica = pair.connect("mariadb-replica");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, binlog_pos(primary)));
    // The replica receives but does not apply: its relay log holds what its
    // binlog does not yet.
    replica.execute("STOP SLAVE SQL_THREAD");
    insert_rows(primary, 4, 8);
    const std::string primary_pos = binlog_pos(primary);
    ASSERT_TRUE(test_support::wait_until(
        [&] {
            ResultSet rs = replica.query("SHOW SLAVE STATUS");
            const Row* r = rs.next();
            const std::string io = r ? r->get<std::string>("Gtid_IO_Pos") : "";
            while (rs.next()) {
            }
            return io == primary_pos;
        },
        60s));

    const std::string out = made("behind.ndjson"), log = made("behind.log");
    const pid_t cdc = spawn_cli({"cdc", pair.list_url(), "--from-start", "--out", out, "--failover-after", "1"}, log);
    ASSERT_TRUE(has_transactions(out, 8)) << read_file(log);
    ASSERT_TRUE(pair.kill("mariadb"));
    ASSERT_TRUE(log_says(log, "is behind the stream (domain 0 at 0-1-4 of 0-1-9); waiting for it to catch up"))
        << read_file(log);
    EXPECT_EQ(transactions_in(out).size(), 8U);

    replica.execute("START SLAVE SQL_THREAD");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, primary_pos));
    ReplicaPair::promote(replica);
    insert_rows(replica, 9, 12);
    ASSERT_TRUE(has_transactions(out, 12)) << read_file(log);
    const std::vector<std::string> lines = transactions_in(out);
    EXPECT_TRUE(gtids_unique(lines));
    EXPECT_EQ(inserted_ids(lines), table_ids(replica));
    ::kill(cdc, SIGTERM);
    EXPECT_EQ(wait_exit(cdc), 0) << read_file(log);
}

}  // namespace
}  // namespace sluice::mariadb::test
