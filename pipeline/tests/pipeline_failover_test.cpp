// sluice-pipeline across a failover (issue 26), against a private primary,
// replica and PostgreSQL of the test's own (it SIGKILLs and promotes the
// MariaDB servers): read from the replica, the sink equals the one read
// from the primary; with both servers in --source, a planned switchover
// under writes is followed by itself, every transaction applied once, and
// the sink equals the sessions of the new primary's table.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "../../mariadb/tests/cdc/replica_pair.hpp"
#include "pipeline_support.hpp"

namespace sluice::pipeline::test {
namespace {

using namespace std::chrono_literals;
using mariadb::test::ReplicaPair;

// Rows of sluice.ev: two keys, event times in steps of 10 (the gap of 50
// keeps them in long sessions that the switchover cuts through).
void insert_events(mariadb::Connection& c, int from, int to) {
    for (int i = from; i <= to; ++i) {
        c.execute("INSERT INTO sluice.ev VALUES (" + std::to_string(i) + ", '" + (i % 2 ? "a" : "b") + "', " +
                  std::to_string(i * 10) + ", " + std::to_string(i) + ".5)");
    }
}

std::vector<std::string> run_args(const std::string& source, const std::string& pg, const std::string& sink,
                                  std::vector<std::string> extra) {
    std::vector<std::string> a = {"run",  "--source", source, "--table", "sluice.ev", "--id",  "id",   "--key",
                                  "k",    "--ts",     "t",    "--value", "v",         "--sink", pg,    "--sink-table",
                                  sink,   "--gap",    "50",   "--quiet"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

std::string stored_gtid(postgres::Connection& pg, const std::string& sink) {
    for (postgres::Row r : pg.query("select gtid from sluice_pipeline_state where name = $1", {sink}))
        return r.get<std::string>(0);
    return "";
}

TEST(PipelineFailover, FromTheReplicaAndThroughAPlannedSwitchoverTheSinkHoldsEveryTransactionOnce) {
    ReplicaPair pair("pipeline-failover", "postgres");
    ASSERT_TRUE(pair.started()) << pair.log();
    const std::string pg_url = pair.env().require("SLUICE_PG_URL");
    postgres::Connection pg = postgres::Connection::open(pg_url);
    pg.set_notice_handler({});
    const std::string log = std::string(SLUICE_OWN_SERVERS_DIR) + "/pipeline-failover-" + std::to_string(::getpid());
    mariadb::Connection primary = pair.connect("mariadb");
    primary.execute("CREATE TABLE sluice.ev (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    insert_events(primary, 1, 20);
    mariadb::Connection replica = pair.connect("mariadb-replica");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, mariadb::test::binlog_pos(primary)));

    // The replica's binlog gives the same sink as the primary's.
    const Outcome a = run_pipeline(run_args(pair.url("mariadb"), pg_url, "from_primary", {"--from-start", "--until-end"}),
                                   log + "-a.log");
    ASSERT_EQ(a.status, 0) << a.log;
    const Outcome b = run_pipeline(
        run_args(pair.url("mariadb-replica"), pg_url, "from_replica", {"--from-start", "--until-end"}), log + "-b.log");
    ASSERT_EQ(b.status, 0) << b.log;
    EXPECT_FALSE(sink_sessions(pg, "from_primary").empty());
    EXPECT_EQ(sink_sessions(pg, "from_replica"), sink_sessions(pg, "from_primary"));

    // Both servers in --source; the run follows, then the switchover.
    const std::string across_log = log + "-across.log";
    std::remove(across_log.c_str());
    Child run(run_args(pair.list_url(), pg_url, "across", {"--from-start", "--failover-after", "1"}), across_log);
    insert_events(primary, 21, 40);
    const std::string on_primary = mariadb::test::binlog_pos(primary);
    ASSERT_TRUE(test_support::wait_until([&] { return stored_gtid(pg, "across") == on_primary; }, 90s, 100ms))
        << read_file(across_log);
    primary.execute("SET GLOBAL read_only = ON");
    ASSERT_TRUE(ReplicaPair::caught_up(replica, on_primary));
    ASSERT_TRUE(pair.kill("mariadb"));
    ReplicaPair::promote(replica);
    insert_events(replica, 41, 60);
    const std::string on_new_primary = mariadb::test::binlog_pos(replica);
    ASSERT_TRUE(test_support::wait_until([&] { return stored_gtid(pg, "across") == on_new_primary; }, 90s, 100ms))
        << read_file(across_log);
    ASSERT_TRUE(run.running()) << read_file(across_log);
    run.kill();
    EXPECT_NE(read_file(across_log).find("failing over from 127.0.0.1:" + pair.port("mariadb")), std::string::npos)
        << read_file(across_log);

    // The new primary's table, read from its start in one go: the same
    // sessions (a transaction applied twice or not at all would change a
    // count or a sum).
    const Outcome check = run_pipeline(
        run_args(pair.url("mariadb-replica"), pg_url, "check", {"--from-start", "--until-end"}), log + "-check.log");
    ASSERT_EQ(check.status, 0) << check.log;
    const Sessions expected = sink_sessions(pg, "check");
    std::int64_t events = 0;
    for (const auto& [key, s] : expected) events += s.count;
    EXPECT_EQ(events, 60);
    EXPECT_EQ(sink_sessions(pg, "across"), expected);
    for (const char* suffix : {"-a.log", "-b.log", "-across.log", "-check.log"}) std::remove((log + suffix).c_str());
}

}  // namespace
}  // namespace sluice::pipeline::test
