// The pipeline's failures that are not retried, and one that is, against
// real servers: a binlog purged past the sink's GTID state, a source user
// without REPLICATION SLAVE, and a PostgreSQL server restarted mid-run.
// The purge and the restart happen on servers of the test's own (a private
// MariaDB, a private PostgreSQL), never on the shared fixture's.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../../mariadb/tests/cdc/cdc_support.hpp"
#include "pipeline_support.hpp"
#include "private_postgres.hpp"

namespace sluice::pipeline::test {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> pipeline_args(const std::string& source, const std::string& table, const std::string& sink,
                                       const std::string& name, std::vector<std::string> extra = {}) {
    std::vector<std::string> a = {"run",  "--source", source,  "--table", "pipeline_test." + table,
                                  "--id", "id",       "--key", "k",       "--ts",
                                  "t",    "--value",  "v",     "--sink",  sink,
                                  "--sink-table", name};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

std::string log_path(const std::string& name) {
    return "/tmp/pipeline-failure-" + name + "-" + std::to_string(::getpid()) + ".log";
}

// Transaction `n` of a small workload over (id INT PRIMARY KEY, k, t, v):
// three inserts, an update that moves an earlier row in key and time, and
// now and then a delete; every fifth transaction also a row behind the
// horizon (late) and one with a NULL ts (rejected).
std::vector<std::string> workload_tx(const std::string& table, int n) {
    const std::string t = "pipeline_test." + table;
    std::vector<std::string> sql;
    const int base = n * 10;
    std::string ins = "INSERT INTO " + t + " VALUES ";
    for (int i = 0; i < 3; ++i)
        ins += (i ? ",(" : "(") + std::to_string(base + i) + ",'k" + std::to_string((base + i) % 4) + "'," +
               std::to_string(n * 3 + i) + "," + std::to_string(i + 1) + ".5)";
    sql.push_back(ins);
    if (n > 0)
        sql.push_back("UPDATE " + t + " SET k = 'k9', t = t + 2, v = v + 1 WHERE id = " + std::to_string(base - 10));
    if (n > 1 && n % 3 == 0) sql.push_back("DELETE FROM " + t + " WHERE id = " + std::to_string(base - 19));
    if (n % 5 == 4) {
        sql.push_back("INSERT INTO " + t + " VALUES (" + std::to_string(base + 5) + ",'k1'," + std::to_string(n * 3 - 60) +
                      ",1)");
        sql.push_back("INSERT INTO " + t + " VALUES (" + std::to_string(base + 6) + ",'k1',NULL,1)");
    }
    return sql;
}

void commit(mariadb::Connection& c, const std::vector<std::string>& sql) {
    c.execute("START TRANSACTION");
    for (const auto& s : sql) c.execute(s);
    c.execute("COMMIT");
}

// What the sink holds for NAME, as text: its three tables in order, and
// (with_state) the state row (GTID state, checkpoint digest, settings).
std::string sink_dump(postgres::Connection& pg, const std::string& name, bool with_state = true) {
    std::vector<std::string> queries = {
        "select key, start, \"end\", count, sum, min, max, final from \"" + name + "\" order by key, start",
        "select id, key, ts, gtid, seq, op, value from \"" + name + "_late\" order by gtid, seq",
        "select gtid, seq, image, id, key, ts, value, reason from \"" + name + "_rejected\" order by gtid, seq"};
    if (with_state)
        queries.push_back("select gtid, md5(checkpoint), settings from sluice_pipeline_state where name = '" + name + "'");
    std::string out;
    for (const std::string& q : queries) {
        for (postgres::Row r : pg.query(q)) {
            for (int c = 0; c < r.size(); ++c) out += r.get<std::optional<std::string>>(c).value_or("NULL") + "|";
            out += "\n";
        }
        out += "--\n";
    }
    return out;
}

// The domain-0 sequence number in a GTID state "D-S-N,D-S-N" (0: none).
std::uint64_t domain0_seq(const std::string& gtids) {
    for (std::size_t p = 0; p < gtids.size();) {
        const std::size_t end = std::min(gtids.find(',', p), gtids.size());
        const std::string one = gtids.substr(p, end - p);
        if (one.rfind("0-", 0) == 0) return std::stoull(one.substr(one.rfind('-') + 1));
        p = end + 1;
    }
    return 0;
}

TEST(PipelineFailures, APurgedBinlogIsAClearErrorAndNothingIsWritten) {
    mariadb::test::PrivateServer source("pipeline-purge");
    ASSERT_TRUE(source.started()) << source.log();
    auto my = mariadb::Connection::connect(source.url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
    my.execute("CREATE TABLE pipeline_test.purge (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(my, "SELECT @@global.gtid_binlog_pos");
    for (int n = 0; n < 10; ++n) commit(my, workload_tx("purge", n));
    auto pg = postgres::Connection::open(pg_url());
    pg.set_notice_handler({});
    drop_sink(pg, "purged");
    const auto args = pipeline_args(source.url(), "purge", pg_url(), "purged", {"--from-gtid", start, "--until-end"});
    Outcome first = run_pipeline(args, log_path("purge"));
    ASSERT_EQ(first.status, 0) << first.log;
    const std::string before = sink_dump(pg, "purged");
    ASSERT_NE(before.find("|f|"), std::string::npos) << before;  // it holds sessions

    // The transactions after the sink's state go to binlogs that are then
    // purged: the server no longer has where the pipeline must resume.
    for (int n = 10; n < 20; ++n) commit(my, workload_tx("purge", n));
    my.execute("FLUSH BINARY LOGS");
    for (int n = 20; n < 25; ++n) commit(my, workload_tx("purge", n));
    my.execute("FLUSH BINARY LOGS");
    // PURGE keeps a binlog until the binlog checkpoint passed it (InnoDB
    // has its commits on disk), silently: repeat until it is gone.
    auto binlogs = [&] {
        std::vector<std::string> files;
        mariadb::ResultSet rs = my.query("SHOW BINARY LOGS");
        while (const mariadb::Row* r = rs.next()) files.push_back(r->get<std::string>(0));
        return files;
    };
    for (int i = 0; i < 600 && binlogs().size() > 1; ++i) {
        my.execute("PURGE BINARY LOGS TO '" + binlogs().back() + "'");
        std::this_thread::sleep_for(100ms);
    }
    ASSERT_EQ(binlogs().size(), 1U);
    Outcome again = run_pipeline(args, log_path("purge"));
    EXPECT_EQ(again.status, 1) << again.log;
    EXPECT_NE(again.log.find("sluice-pipeline: error: source:"), std::string::npos) << again.log;
    EXPECT_NE(again.log.find("1236"), std::string::npos) << again.log;  // ER_MASTER_FATAL_ERROR_READING_BINLOG
    EXPECT_NE(again.log.find("purged"), std::string::npos) << again.log;
    EXPECT_EQ(again.log.find("retrying"), std::string::npos) << again.log;
    EXPECT_EQ(sink_dump(pg, "purged"), before);
    drop_sink(pg, "purged");
    std::remove(log_path("purge").c_str());
}

TEST(PipelineFailures, ASourceUserWithoutReplicationSlaveIsAClearError) {
    auto my = mariadb::Connection::connect(mariadb_url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
    my.execute("DROP TABLE IF EXISTS pipeline_test.norepl");
    my.execute("CREATE TABLE pipeline_test.norepl (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(my, "SELECT @@global.gtid_binlog_pos");
    commit(my, workload_tx("norepl", 0));
    // SELECT on the table, and nothing else.
    my.execute("CREATE USER IF NOT EXISTS 'pipeline_norepl'@'%' IDENTIFIED BY 'norepl-pw'");
    my.execute("GRANT SELECT ON pipeline_test.norepl TO 'pipeline_norepl'@'%'");
    const std::string url = "mariadb://pipeline_norepl:norepl-pw@127.0.0.1:" + env().require("SLUICE_MARIADB_PORT") + "/";
    auto pg = postgres::Connection::open(pg_url());
    pg.set_notice_handler({});
    drop_sink(pg, "norepl");
    Outcome r = run_pipeline(pipeline_args(url, "norepl", pg_url(), "norepl", {"--from-gtid", start, "--until-end"}),
                             log_path("norepl"));
    EXPECT_EQ(r.status, 1) << r.log;
    EXPECT_NE(r.log.find("sluice-pipeline: error: source:"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("REPLICATION SLAVE"), std::string::npos) << r.log;
    EXPECT_EQ(r.log.find("retrying"), std::string::npos) << r.log;
    EXPECT_EQ(pg.query("select count(*) from sluice_pipeline_state where name = 'norepl'").row(0).get<std::string>(0), "0");
    // The source is opened before the sink's tables are created: none is left behind.
    EXPECT_EQ(pg.query("select count(*) from pg_class where relname in ('norepl', 'norepl_late', 'norepl_rejected')")
                  .row(0)
                  .get<std::string>(0),
              "0");
    my.execute("DROP USER IF EXISTS 'pipeline_norepl'@'%'");
    drop_sink(pg, "norepl");
    std::remove(log_path("norepl").c_str());
}

TEST(PipelineFailures, APostgresRestartMidRunIsRetriedAndTheSinkEqualsAnUninterruptedRun) {
    PrivatePostgres sink("pipeline-pg-restart");
    ASSERT_TRUE(sink.started()) << sink.log();
    auto my = mariadb::Connection::connect(mariadb_url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
    my.execute("DROP TABLE IF EXISTS pipeline_test.pgrestart");
    my.execute("CREATE TABLE pipeline_test.pgrestart (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(my, "SELECT @@global.gtid_binlog_pos");
    const std::string log = log_path("pgrestart");
    std::remove(log.c_str());
    Child follower(pipeline_args(mariadb_url(), "pgrestart", sink.url(), "followed", {"--from-gtid", start}), log);

    auto pg = [&] {
        auto c = postgres::Connection::open(sink.url());
        c.set_notice_handler({});
        return c;
    };
    // The domain-0 sequence number of the sink's GTID state (0: no state yet).
    auto sink_seq = [&]() -> std::uint64_t {
        try {
            auto c = pg();
            auto r = c.query("select gtid from sluice_pipeline_state where name = 'followed'");
            if (r.empty()) return 0;
            const std::string g = r.row(0).get<std::string>(0);
            for (std::size_t p = 0; p < g.size();) {  // "D-S-N,D-S-N"
                const std::size_t end = std::min(g.find(',', p), g.size());
                const std::string one = g.substr(p, end - p);
                if (one.rfind("0-", 0) == 0) return std::stoull(one.substr(one.rfind('-') + 1));
                p = end + 1;
            }
        } catch (const std::exception&) {
        }
        return 0;
    };
    // Waits (up to two minutes, for a loaded machine) until the sink holds
    // the writer's last transaction.
    auto caught_up = [&](std::uint64_t seq) {
        for (int i = 0; i < 1200 && sink_seq() < seq; ++i) std::this_thread::sleep_for(100ms);
        return sink_seq() >= seq;
    };
    auto last_seq = [&] {
        const std::string g = scalar(my, "SELECT @@session.last_gtid");
        return static_cast<std::uint64_t>(std::stoull(g.substr(g.rfind('-') + 1)));
    };
    int n = 0;
    auto write = [&](int count) {
        for (int i = 0; i < count; ++i, ++n) {
            commit(my, workload_tx("pgrestart", n));
            std::this_thread::sleep_for(2ms);
        }
    };
    write(60);
    ASSERT_TRUE(caught_up(last_seq())) << read_file(log);
    ASSERT_TRUE(sink.restart()) << sink.log();  // cuts the pipeline's connection; comes back on the same port
    write(60);
    ASSERT_TRUE(caught_up(last_seq())) << read_file(log);
    follower.kill();
    const std::string progress = read_file(log);
    EXPECT_NE(progress.find("sink: "), std::string::npos) << progress;
    EXPECT_NE(progress.find("retrying in"), std::string::npos) << progress;

    // The same transactions, uninterrupted, into another NAME of the same server.
    Outcome whole = run_pipeline(
        pipeline_args(mariadb_url(), "pgrestart", sink.url(), "whole", {"--from-gtid", start, "--until-end"}), log);
    ASSERT_EQ(whole.status, 0) << whole.log;
    auto c = pg();
    const std::string want = sink_dump(c, "whole", false);
    EXPECT_NE(want.find("|t|"), std::string::npos) << want;  // final rows
    EXPECT_NE(want.find("|f|"), std::string::npos) << want;  // open rows
    EXPECT_EQ(sink_dump(c, "followed", false), want);
    std::remove(log.c_str());
}

// The window behind the scaled-out kill test's rare failure: a process
// restarted at once after a SIGKILL loads the state while its killed
// predecessor's last commit is still in flight; that commit then lands, and
// the new process's first commit must see the state moved (a retry from the
// new state), not fail on the rows the predecessor inserted (a duplicate
// key, not retried: the process exited). Made deterministic with two
// processes on one NAME: A follows and is held still (SIGSTOP) while B
// commits past A's state with rows of a session new to the sink.
TEST(PipelineFailures, ACommitOvertakenByAnotherWriterIsRetriedNotADuplicateKeyFailure) {
    auto my = mariadb::Connection::connect(mariadb_url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
    my.execute("DROP TABLE IF EXISTS pipeline_test.overtaken");
    my.execute("CREATE TABLE pipeline_test.overtaken (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(my, "SELECT @@global.gtid_binlog_pos");
    auto pg = postgres::Connection::open(pg_url());
    pg.set_notice_handler({});
    for (const char* name : {"overtaken", "overtaken_whole"}) drop_sink(pg, name);
    // The domain-0 sequence number of the sink's state (0: none yet), and of
    // this session's last commit (the shared server has other writers).
    auto sink_seq = [&]() -> std::uint64_t {
        auto r = pg.query("select gtid from sluice_pipeline_state where name = 'overtaken'");
        return r.empty() ? 0 : domain0_seq(r.row(0).get<std::string>(0));
    };
    auto last_seq = [&] { return domain0_seq(scalar(my, "SELECT @@session.last_gtid")); };
    // Waits (up to two minutes, for a loaded machine) for the sink's state,
    // or until `a` exits.
    auto reaches = [&](std::uint64_t seq, Child& a) {
        for (int i = 0; i < 1200 && sink_seq() < seq && a.running(); ++i) std::this_thread::sleep_for(100ms);
        return sink_seq() >= seq;
    };
    for (int n = 0; n < 10; ++n) commit(my, workload_tx("overtaken", n));
    const std::string log_a = log_path("overtaken-a");
    std::remove(log_a.c_str());
    Child a(pipeline_args(mariadb_url(), "overtaken", pg_url(), "overtaken", {"--from-gtid", start}), log_a);
    ASSERT_TRUE(reaches(last_seq(), a)) << read_file(log_a);

    a.signal(SIGSTOP);
    // Sessions of a key A has never seen: B COPYs them in, and so would A.
    for (int n = 0; n < 5; ++n)
        commit(my, {"INSERT INTO pipeline_test.overtaken VALUES (" + std::to_string(1000 + n) + ", 'fresh" +
                        std::to_string(n) + "', 100, 1)"});
    Outcome b = run_pipeline(
        pipeline_args(mariadb_url(), "overtaken", pg_url(), "overtaken", {"--from-gtid", start, "--until-end"}),
        log_path("overtaken-b"));
    ASSERT_EQ(b.status, 0) << b.log;
    ASSERT_GE(sink_seq(), last_seq());
    a.signal(SIGCONT);

    // A's next commit finds the state moved: it restores from B's and goes on.
    for (int n = 10; n < 15; ++n) commit(my, workload_tx("overtaken", n));
    const bool caught_up = reaches(last_seq(), a);
    const bool still_running = a.running();
    a.kill();
    const std::string followed = read_file(log_a);
    ASSERT_TRUE(still_running) << "A exited by itself:\n" << followed;
    ASSERT_TRUE(caught_up) << followed;
    EXPECT_NE(followed.find("changed by another writer"), std::string::npos) << followed;
    EXPECT_NE(followed.find("retrying in"), std::string::npos) << followed;

    Outcome whole = run_pipeline(pipeline_args(mariadb_url(), "overtaken", pg_url(), "overtaken_whole",
                                               {"--from-gtid", start, "--until-end"}),
                                 log_path("overtaken-b"));
    ASSERT_EQ(whole.status, 0) << whole.log;
    const std::string want = sink_dump(pg, "overtaken_whole", false);
    EXPECT_NE(want.find("fresh4|100|"), std::string::npos) << want;
    EXPECT_EQ(sink_dump(pg, "overtaken", false), want);
    for (const char* name : {"overtaken", "overtaken_whole"}) drop_sink(pg, name);
    std::remove(log_a.c_str());
    std::remove(log_path("overtaken-b").c_str());
}

// Not a failure, but the other side of OpenSinkRows' trust: rows in NAME
// that no state row explains are merged into by upserts, not COPYed over
// (a COPY would fail on the primary key).
// The stream's bytes of other tables' transactions make input_pending()
// true; the pipeline then holds its batch for more input, and the stream
// consumed them and blocked: this table's last rows waited for its next
// transaction, however long that took (seen as a stall of the overtaken
// test above while other tests wrote to the server). With Idle events the
// batch is committed once the stream goes quiet.
TEST(PipelineFailures, AQuietTablesLastRowsReachTheSinkWhileOtherTablesAreBusy) {
    auto my = mariadb::Connection::connect(mariadb_url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
    my.execute("DROP TABLE IF EXISTS pipeline_test.quiet");
    my.execute("DROP TABLE IF EXISTS pipeline_test.busy");
    my.execute("CREATE TABLE pipeline_test.quiet (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    my.execute("CREATE TABLE pipeline_test.busy (id INT PRIMARY KEY AUTO_INCREMENT, x INT)");
    const std::string start = scalar(my, "SELECT @@global.gtid_binlog_pos");
    auto pg = postgres::Connection::open(pg_url());
    pg.set_notice_handler({});
    drop_sink(pg, "quiet");
    auto sink_seq = [&]() -> std::uint64_t {
        auto r = pg.query("select gtid from sluice_pipeline_state where name = 'quiet'");
        return r.empty() ? 0 : domain0_seq(r.row(0).get<std::string>(0));
    };
    auto last_seq = [&] { return domain0_seq(scalar(my, "SELECT @@session.last_gtid")); };
    auto reaches = [&](std::uint64_t seq, Child& a) {
        for (int i = 0; i < 600 && sink_seq() < seq && a.running(); ++i) std::this_thread::sleep_for(100ms);
        return sink_seq() >= seq;
    };
    commit(my, workload_tx("quiet", 0));
    const std::string log = log_path("quiet");
    std::remove(log.c_str());
    Child a(pipeline_args(mariadb_url(), "quiet", pg_url(), "quiet", {"--from-gtid", start}), log);
    ASSERT_TRUE(reaches(last_seq(), a)) << read_file(log);

    // While the pipeline is stopped: this table's transaction, then many of
    // another table's, so that all their bytes are pending when it reads it.
    a.signal(SIGSTOP);
    commit(my, workload_tx("quiet", 1));
    const std::uint64_t quiet_seq = last_seq();
    for (int n = 0; n < 300; ++n) commit(my, {"INSERT INTO pipeline_test.busy (x) VALUES (" + std::to_string(n) + ")"});
    a.signal(SIGCONT);
    const bool caught_up = reaches(quiet_seq, a);
    const bool still_running = a.running();
    a.kill();
    const std::string followed = read_file(log);
    ASSERT_TRUE(still_running) << followed;
    EXPECT_TRUE(caught_up) << "the sink's state stayed at sequence " << sink_seq() << ", before " << quiet_seq << ":\n"
                           << followed;
    Outcome whole = run_pipeline(
        pipeline_args(mariadb_url(), "quiet", pg_url(), "quiet_whole", {"--from-gtid", start, "--until-end"}),
        log_path("quiet-whole"));
    ASSERT_EQ(whole.status, 0) << whole.log;
    EXPECT_EQ(sink_dump(pg, "quiet", false), sink_dump(pg, "quiet_whole", false));
    for (const char* name : {"quiet", "quiet_whole"}) drop_sink(pg, name);
    my.execute("DROP TABLE pipeline_test.busy");
    std::remove(log.c_str());
    std::remove(log_path("quiet-whole").c_str());
}

TEST(PipelineFailures, ASinkTableWithRowsButNoStateIsMergedIntoByUpserts) {
    auto my = mariadb::Connection::connect(mariadb_url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
    my.execute("DROP TABLE IF EXISTS pipeline_test.leftover");
    my.execute("CREATE TABLE pipeline_test.leftover (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(my, "SELECT @@global.gtid_binlog_pos");
    commit(my, {"INSERT INTO pipeline_test.leftover VALUES (1,'a',0,1),(2,'a',5,2),(3,'b',7,4)"});
    auto pg = postgres::Connection::open(pg_url());
    pg.set_notice_handler({});
    drop_sink(pg, "leftover");
    pg.run_script("create table leftover (key text, start bigint, \"end\" bigint, count bigint, sum double precision, "
                  "min double precision, max double precision, final boolean, primary key (key, start));"
                  "insert into leftover values ('a', 0, 99, 9, 9, 9, 9, true), ('z', 1, 11, 1, 1, 1, 1, false)");
    const auto args = pipeline_args(mariadb_url(), "leftover", pg_url(), "leftover", {"--from-gtid", start, "--until-end"});
    Outcome r = run_pipeline(args, log_path("leftover"));
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_EQ(sink_sessions(pg, "leftover"), (Sessions{{{"a", 0}, {15, 2, 3, 1, 2, false}},
                                                       {{"b", 7}, {17, 1, 4, 4, 4, false}},
                                                       {{"z", 1}, {11, 1, 1, 1, 1, false}}}));
    // With the state now stored, the next run trusts it: new rows by COPY.
    commit(my, {"INSERT INTO pipeline_test.leftover VALUES (4,'c',9,8)", "DELETE FROM pipeline_test.leftover WHERE id = 3"});
    r = run_pipeline(args, log_path("leftover"));
    ASSERT_EQ(r.status, 0) << r.log;
    EXPECT_EQ(sink_sessions(pg, "leftover"), (Sessions{{{"a", 0}, {15, 2, 3, 1, 2, false}},
                                                       {{"c", 9}, {19, 1, 8, 8, 8, false}},
                                                       {{"z", 1}, {11, 1, 1, 1, 1, false}}}));
    drop_sink(pg, "leftover");
    std::remove(log_path("leftover").c_str());
}

}  // namespace
}  // namespace sluice::pipeline::test
