// `sluice-pipeline run --metrics` against real servers (issue 27): scraped
// during a run, the counters never go down and end equal to the row
// changes written; the lag returns to 0 when the source is quiet; /healthz
// turns 503 while the private MariaDB, then the private PostgreSQL, is
// stopped and 200 once it is back, and the sink then equals an
// uninterrupted run; SIGTERM during a catch-up exits 0 and a restart is
// exact; no password shows anywhere.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "../../mariadb/tests/cdc/cdc_support.hpp"
#include "../../tests/support/metrics_scrape.hpp"
#include "pipeline_support.hpp"
#include "private_postgres.hpp"

namespace sluice::pipeline::test {
namespace {

using namespace std::chrono_literals;
using test_support::http_get;
using test_support::every_endpoint;
using test_support::metric_value;
using test_support::scrape;
using test_support::Scraper;
using test_support::wait_until;

constexpr const char* my_secret = "Pipe-Watch-Pw-0815";
constexpr const char* pg_secret = "Pg-Sink-Pw-4242";

std::vector<std::string> args_for(const std::string& source, const std::string& table, const std::string& sink,
                                  const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> a = {"run", "--source", source, "--table", "pipeline_service." + table, "--id", "id",
                                  "--key", "k", "--ts", "t", "--value", "v", "--sink", sink, "--sink-table", name};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
}

std::string scratch(const std::string& name) {
    const std::string p = "/tmp/pipeline-service-" + name + "-" + std::to_string(::getpid()) + ".log";
    std::remove(p.c_str());
    return p;
}

// A user with a password for the source: "no password anywhere" is checked
// against one that exists.
std::string watcher_url(mariadb::Connection& admin, const mariadb::ConnectOptions& server) {
    admin.execute(std::string("CREATE USER IF NOT EXISTS 'pipewatch'@'%' IDENTIFIED BY '") + my_secret + "'");
    admin.execute("GRANT REPLICATION SLAVE, REPLICATION CLIENT, BINLOG MONITOR, SELECT ON *.* TO 'pipewatch'@'%'");
    return "mariadb://pipewatch:" + std::string(my_secret) + "@" + server.host + ":" + std::to_string(server.port) + "/";
}

// The sink's URL with a password in it (the private servers trust local
// connections, so it is never asked for, but it is in every URL shown).
std::string with_password(const std::string& pg) {
    const auto at = pg.find('@');
    return pg.substr(0, at) + ":" + pg_secret + pg.substr(at);
}

// Transaction n: 1 + n % 3 inserts in time order; every 4th also a row far
// behind the watermark (late) and every 7th one with a NULL ts (rejected).
struct Workload {
    std::string table;
    std::uint64_t rows = 0, transactions = 0;
    void write(mariadb::Connection& c, int first, int count) {
        for (int n = first; n < first + count; ++n) {
            c.execute("START TRANSACTION");
            std::string q = "INSERT INTO " + table + " VALUES ";
            const int k = 1 + n % 3;
            for (int i = 0; i < k; ++i)
                q += (i ? "," : "") + ("(" + std::to_string(n * 10 + i) + ",'k" + std::to_string(n % 5) + "'," +
                                       std::to_string(n * 4 + i) + "," + std::to_string(i + 1) + ")");
            c.execute(q);
            rows += static_cast<std::uint64_t>(k);
            if (n % 4 == 3) {
                c.execute("INSERT INTO " + table + " VALUES (" + std::to_string(n * 10 + 7) + ",'k1'," +
                          std::to_string(n * 4 - 500) + ",1)");
                ++rows;
            }
            if (n % 7 == 6) {
                c.execute("INSERT INTO " + table + " VALUES (" + std::to_string(n * 10 + 8) + ",'k2',NULL,1)");
                ++rows;
            }
            c.execute("COMMIT");
            ++transactions;
        }
    }
};

// NAME's three tables as text, in order.
std::string sink_text(postgres::Connection& pg, const std::string& name) {
    std::string out;
    for (const std::string& q :
         {"select key, start, \"end\", count, sum, min, max, final from \"" + name + "\" order by key, start",
          "select id, key, ts, gtid, seq, op, value from \"" + name + "_late\" order by gtid, seq",
          "select gtid, seq, id, key, ts, value, reason from \"" + name + "_rejected\" order by gtid, seq"}) {
        for (postgres::Row r : pg.query(q)) {
            for (int c = 0; c < r.size(); ++c) out += r.get<std::optional<std::string>>(c).value_or("NULL") + "|";
            out += "\n";
        }
        out += "--\n";
    }
    return out;
}

std::uint64_t count_rows(postgres::Connection& pg, const std::string& table) {
    return std::stoull(pg.query("select count(*) from \"" + table + "\"").row(0).get<std::string>(0));
}

template <class Server>
Server& started(Server& server) {
    if (!server.started()) throw std::runtime_error("a private server did not start:\n" + server.log());
    return server;
}

// Creates pipeline_service.TABLE and says where the binlog is.
std::string create_source_table(mariadb::Connection& my, const std::string& table) {
    my.execute("CREATE DATABASE pipeline_service");
    my.execute("CREATE TABLE pipeline_service." + table + " (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    return mariadb::test::binlog_pos(my);
}

// `sluice-pipeline run --metrics` following pipeline_service.TABLE (into
// sink NAME TABLE) from now, on a MariaDB and a PostgreSQL of its own,
// which the tests stop and start again.
struct PrivateFollower {
    PrivateFollower(const std::string& name, const std::string& table_name)
        : source("pipeline-" + name + "-my"),
          sink("pipeline-" + name + "-pg"),
          my(mariadb::Connection::connect(started(source).options())),
          table(table_name),
          source_url(watcher_url(my, source.options())),
          sink_url(with_password(started(sink).url())),
          start(create_source_table(my, table)),
          log(scratch(table)),
          follower(args_for(source_url, table, sink_url, table, {"--from-gtid", start, "--metrics", "127.0.0.1:0"}),
                   log),
          port(test_support::metrics_port(log)),
          w{"pipeline_service." + table} {}

    // Everything written is read and committed (the lag counts what is not).
    bool caught_up() const {
        return scrape(port, "sluice_pipeline_source_row_changes_total") == static_cast<double>(w.rows) &&
               scrape(port, "sluice_pipeline_source_transactions_total") == static_cast<double>(w.transactions) &&
               scrape(port, "sluice_pipeline_lag_seconds") == 0;
    }
    test_support::HttpReply healthz() const { return http_get(port, "/healthz").value_or(test_support::HttpReply{}); }

    mariadb::test::PrivateServer source;
    PrivatePostgres sink;
    mariadb::Connection my;
    std::string table, source_url, sink_url, start, log;
    Child follower;
    int port;
    Workload w;
};

std::pair<int, double> terminate(Child& child) {
    const auto t0 = std::chrono::steady_clock::now();
    child.signal(SIGTERM);
    const int status = child.wait();
    return {status, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

TEST(PipelineService, ScrapedRunCountsWhatTheSinkCommittedFollowsBothServersHealthAndStopsOnSigterm) {
    PrivateFollower f("metrics", "svc");
    ASSERT_GT(f.port, 0) << read_file(f.log);
    Scraper scraper(f.port, {"sluice_pipeline_source_transactions_total", "sluice_pipeline_source_row_changes_total",
                             "sluice_pipeline_sink_commits_total", "sluice_pipeline_late_total",
                             "sluice_pipeline_rejected_total"});
    auto caught_up = [&] { return f.caught_up(); };
    auto healthz = [&] { return f.healthz(); };
    f.w.write(f.my, 0, 30);
    ASSERT_TRUE(wait_until(caught_up, 120s)) << http_get(f.port, "/metrics")->body << read_file(f.log);
    EXPECT_EQ(healthz().status, 200);
    EXPECT_EQ(healthz().body, "ok\n");
    {
        auto pg = postgres::Connection::open(f.sink.url());
        const std::string m = http_get(f.port, "/metrics")->body;
        EXPECT_EQ(metric_value(m, "sluice_pipeline_late_total"), static_cast<double>(count_rows(pg, "svc_late")));
        EXPECT_EQ(metric_value(m, "sluice_pipeline_rejected_total"), static_cast<double>(count_rows(pg, "svc_rejected")));
        EXPECT_GT(metric_value(m, "sluice_pipeline_late_total").value_or(0), 0);
        EXPECT_GT(metric_value(m, "sluice_pipeline_rejected_total").value_or(0), 0);
        EXPECT_GT(metric_value(m, "sluice_pipeline_sink_commit_seconds_count").value_or(0), 0);
        EXPECT_EQ(metric_value(m, "sluice_pipeline_sink_commit_seconds_count"),
                  metric_value(m, "sluice_pipeline_sink_commits_total"));
        EXPECT_GT(metric_value(m, "sluice_pipeline_engine_sessions").value_or(0), 0);
        EXPECT_NE(m.find("sluice_pipeline_position_info{gtid=\"" + mariadb::test::binlog_pos(f.my) + "\"} 1"),
                  std::string::npos)
            << m;
    }

    // The source goes away, then comes back.
    ASSERT_TRUE(f.source.stop());
    ASSERT_TRUE(wait_until([&] { return healthz().status == 503; }, 60s)) << read_file(f.log);
    EXPECT_EQ(healthz().body.rfind("source: ", 0), 0U) << healthz().body;
    EXPECT_GT(scrape(f.port, "sluice_pipeline_retries_total{what=\"source\"}"), 0);
    ASSERT_TRUE(f.source.start_again()) << f.source.log();
    ASSERT_TRUE(wait_until([&] { return healthz().status == 200; }, 60s)) << healthz().body << read_file(f.log);
    f.my = mariadb::Connection::connect(f.source.options());
    f.w.write(f.my, 30, 20);
    ASSERT_TRUE(wait_until(caught_up, 120s)) << http_get(f.port, "/metrics")->body << read_file(f.log);

    // The sink goes away while the source writes, then comes back.
    ASSERT_TRUE(f.sink.stop());
    f.w.write(f.my, 50, 10);
    ASSERT_TRUE(wait_until([&] { return healthz().status == 503; }, 60s)) << read_file(f.log);
    EXPECT_EQ(healthz().body.rfind("sink: ", 0), 0U) << healthz().body;
    ASSERT_TRUE(f.sink.start_again()) << f.sink.log();
    ASSERT_TRUE(wait_until([&] { return healthz().status == 200; }, 120s)) << healthz().body << read_file(f.log);
    ASSERT_TRUE(wait_until(caught_up, 120s)) << http_get(f.port, "/metrics")->body << read_file(f.log);
    EXPECT_GT(scrape(f.port, "sluice_pipeline_retries_total{what=\"sink\"}"), 0);

    const std::string endpoints = every_endpoint(f.port);
    scraper.stop();
    EXPECT_EQ(scraper.went_down(), "");
    EXPECT_GT(scraper.scrapes(), 0);
    const auto [status, seconds] = terminate(f.follower);
    EXPECT_EQ(status, 0) << read_file(f.log);
    std::cout << "SIGTERM while following: exit " << status << " after " << seconds << " s\n";

    // Nothing lost: the sink equals an uninterrupted run of the same binlog.
    const std::string whole_log = scratch("whole");
    Outcome whole = run_pipeline(args_for(f.source_url, "svc", f.sink_url, "whole", {"--from-gtid", f.start, "--until-end"}),
                                 whole_log);
    ASSERT_EQ(whole.status, 0) << whole.log;
    auto pg = postgres::Connection::open(f.sink.url());
    pg.set_notice_handler({});
    EXPECT_EQ(sink_text(pg, "svc"), sink_text(pg, "whole"));

    const std::string stderr_text = read_file(f.log);
    EXPECT_NE(stderr_text.find("stopped (signal 15)"), std::string::npos) << stderr_text;
    for (const char* secret : {my_secret, pg_secret}) {
        EXPECT_EQ(stderr_text.find(secret), std::string::npos) << stderr_text;
        EXPECT_EQ(endpoints.find(secret), std::string::npos);
    }
    EXPECT_NE(endpoints.find("pipewatch:***@"), std::string::npos);
    EXPECT_NE(endpoints.find("postgres:***@"), std::string::npos);
}

// The sink lost while the source is quiet. With nothing to commit, the run
// finds the connection PostgreSQL ended at the binlog's next heartbeat (an
// idle step). With a batch in flight that is the last thing to commit, no
// later commit finds that the writer failed: the run must learn of it
// anyway (at that heartbeat), retry and say so on /healthz, then commit
// once the sink is back, equal to an uninterrupted run. Without that it waited for the source's next
// transaction, /healthz saying all was well: the test above failed so once
// in CI, when all ten transactions written while its sink was down went
// into one batch. Private servers: another test's writes would wake the
// loop.
TEST(PipelineService, ASinkLostUnderAQuietSourceIsRetriedWithoutWaitingForTheNextTransaction) {
    PrivateFollower f("quiet", "quiet");
    ASSERT_GT(f.port, 0) << read_file(f.log);
    auto caught_up = [&] { return f.caught_up(); };
    auto healthz = [&] { return f.healthz(); };
    f.w.write(f.my, 0, 3);
    ASSERT_TRUE(wait_until(caught_up, 120s)) << http_get(f.port, "/metrics")->body << read_file(f.log);
    ASSERT_EQ(healthz().status, 200);
    // Two heartbeats (5 s each) of a quiet source wake the loop without
    // moving the position: no commit comes of them.
    const auto commits = scrape(f.port, "sluice_pipeline_sink_commits_total");
    std::this_thread::sleep_for(11s);
    EXPECT_EQ(scrape(f.port, "sluice_pipeline_sink_commits_total"), commits);

    // The sink goes away with nothing to commit: found at the next quiet
    // moment (a heartbeat: the sink connection PostgreSQL ended), not at
    // the next commit.
    ASSERT_TRUE(f.sink.stop());
    ASSERT_TRUE(wait_until([&] { return healthz().status == 503; }, 60s)) << read_file(f.log);
    EXPECT_EQ(healthz().body.rfind("sink: ", 0), 0U) << healthz().body;
    ASSERT_TRUE(f.sink.start_again()) << f.sink.log();
    ASSERT_TRUE(wait_until([&] { return healthz().status == 200; }, 120s)) << healthz().body << read_file(f.log);

    ASSERT_TRUE(f.sink.stop());
    f.w.write(f.my, 3, 1);  // one transaction, then nothing
    ASSERT_TRUE(wait_until([&] { return healthz().status == 503; }, 60s)) << read_file(f.log);
    EXPECT_EQ(healthz().body.rfind("sink: ", 0), 0U) << healthz().body;
    EXPECT_GT(scrape(f.port, "sluice_pipeline_retries_total{what=\"sink\"}"), 0);
    ASSERT_TRUE(f.sink.start_again()) << f.sink.log();
    ASSERT_TRUE(wait_until([&] { return healthz().status == 200; }, 120s)) << healthz().body << read_file(f.log);
    ASSERT_TRUE(wait_until(caught_up, 120s)) << http_get(f.port, "/metrics")->body << read_file(f.log);
    const auto [status, seconds] = terminate(f.follower);
    EXPECT_EQ(status, 0) << read_file(f.log);

    const std::string whole_log = scratch("quiet-whole");
    Outcome whole = run_pipeline(
        args_for(f.source_url, "quiet", f.sink_url, "quiet_whole", {"--from-gtid", f.start, "--until-end"}), whole_log);
    ASSERT_EQ(whole.status, 0) << whole.log;
    auto pg = postgres::Connection::open(f.sink.url());
    pg.set_notice_handler({});
    EXPECT_EQ(sink_text(pg, "quiet"), sink_text(pg, "quiet_whole"));
    EXPECT_GT(count_rows(pg, "quiet"), 0U);
}

TEST(PipelineService, SigtermDuringACatchUpExitsZeroAndARestartIsExact) {
    auto my = mariadb::Connection::connect(mariadb_url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_service");
    my.execute("DROP TABLE IF EXISTS pipeline_service.catchup");
    my.execute("CREATE TABLE pipeline_service.catchup (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    auto pg = postgres::Connection::open(pg_url());
    pg.set_notice_handler({});
    for (const char* name : {"svc_stopped", "svc_whole"}) drop_sink(pg, name);
    const std::string start = mariadb::test::binlog_pos(my);
    Workload w{"pipeline_service.catchup"};
    w.write(my, 0, 3000);
    const std::string log = scratch("catchup");
    auto args = [&](const std::string& name, std::vector<std::string> extra) {
        extra.insert(extra.begin(), {"--from-gtid", start, "--checkpoint-every", "4"});
        return args_for(mariadb_url(), "catchup", pg_url(), name, extra);
    };
    {
        Child first(args("svc_stopped", {"--metrics", "127.0.0.1:0", "--log-format", "json"}), log);
        const int port = test_support::metrics_port(log);
        ASSERT_GT(port, 0) << read_file(log);
        // Stop once the first batch is committed (the catch-up goes on after it).
        ASSERT_TRUE(wait_until([&] { return scrape(port, "sluice_pipeline_sink_commits_total") > 0; }, 120s));
        const double committed = scrape(port, "sluice_pipeline_source_transactions_total");
        const auto [status, seconds] = terminate(first);
        EXPECT_EQ(status, 0) << read_file(log);
        std::cout << "SIGTERM during catch-up: exit " << status << " after " << seconds << " s, with " << committed
                  << " of " << w.transactions << " transactions committed\n";
    }
    for (const std::string& line : mariadb::test::lines_of(read_file(log)))
        EXPECT_EQ(line.rfind("{\"level\":", 0), 0U) << line;
    EXPECT_NE(read_file(log).find("\"message\":\"stopped (signal 15)\",\"fields\":{\"program\":\"sluice-pipeline\","
                                  "\"position\":\""),
              std::string::npos)
        << read_file(log);
    Outcome rest = run_pipeline(args("svc_stopped", {"--until-end"}), scratch("rest"));
    ASSERT_EQ(rest.status, 0) << rest.log;
    Outcome whole = run_pipeline(args("svc_whole", {"--until-end"}), scratch("catchup-whole"));
    ASSERT_EQ(whole.status, 0) << whole.log;
    EXPECT_EQ(sink_text(pg, "svc_stopped"), sink_text(pg, "svc_whole"));
}

}  // namespace
}  // namespace sluice::pipeline::test
