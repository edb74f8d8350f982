// `sluice-mariadb cdc --metrics` against real servers (issue 27): scraped
// during runs to a file and into JetStream, the counters never go down and
// end equal to the row changes written, the lag returns to 0 when the
// source is quiet, /healthz turns 503 while the private MariaDB is stopped
// and 200 once it is back (nothing lost), SIGTERM during a catch-up exits 0
// and a restart continues exactly, and no password shows anywhere.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "../../../tests/support/metrics_scrape.hpp"
#include "cdc_support.hpp"
#include "cli_child.hpp"
#include "../../../nats/tests/nats_cluster.hpp"
#include "sluice/mariadb/cdc/ndjson.hpp"
#include "sluice/nats/client.hpp"

namespace sluice::mariadb::test {
namespace {

using namespace std::chrono_literals;
using test_support::http_get;
using test_support::every_endpoint;
using test_support::metric_value;
using test_support::scrape;
using test_support::Scraper;
using test_support::wait_until;

constexpr const char* secret = "Cdc-Watch-Pw-4711";

std::string scratch_path(const std::string& name) {
    std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
    const std::string p = std::string(SLUICE_OWN_SERVERS_DIR) + "/" + name + "-" + std::to_string(::getpid());
    std::filesystem::remove(p);
    return p;
}

// A replication user with a password, so that "no password anywhere" is
// checked against one that exists.
std::string watcher_url(Connection& admin, const ConnectOptions& server, const std::string& user) {
    admin.execute("CREATE USER IF NOT EXISTS '" + user + "'@'%' IDENTIFIED BY '" + secret + "'");
    admin.execute("GRANT REPLICATION SLAVE, REPLICATION CLIENT, BINLOG MONITOR, SELECT ON *.* TO '" + user + "'@'%'");
    ConnectOptions o = server;
    o.user = user;
    o.password = secret;
    o.database.clear();
    return url_of(o);
}

// Waits for the child's exit after SIGTERM; the status, and how long it took.
std::pair<int, double> terminate(pid_t pid) {
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(pid, SIGTERM);
    const int status = wait_exit(pid);
    return {status, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

TEST(CdcMetrics, AFileRunCountsEveryRowReportsHealthAcrossAServerStopAndStopsOnSigterm) {
    PrivateServer server("cdc-metrics");
    ASSERT_TRUE(server.started()) << server.log();
    Connection admin = Connection::connect(server.options());
    const std::string url = watcher_url(admin, server.options(), "cdcwatch");
    admin.execute("CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(20))");
    const std::string log = scratch_path("cdc-metrics.log");
    const std::string out = scratch_path("cdc-metrics.ndjson");
    const pid_t pid = spawn_cli({"cdc", url, "--from-start", "--out", out, "--heartbeat", "1", "--metrics", "127.0.0.1:0"}, log);
    const int port = test_support::metrics_port(log);
    ASSERT_GT(port, 0) << test_support::read_text(log);
    Scraper scraper(port, {"sluice_cdc_transactions_total", "sluice_cdc_row_changes_total", "sluice_cdc_bytes_total",
                           "sluice_cdc_retries_total"});

    std::uint64_t rows = 0, transactions = 0;
    auto write = [&](int first, int count) {
        for (int i = first; i < first + count; ++i) {
            std::string sql = "INSERT INTO m VALUES ";
            const int n = 1 + i % 3;
            for (int k = 0; k < n; ++k) sql += (k ? "," : "") + ("(" + std::to_string(i * 10 + k) + ", 'v')");
            admin.execute(sql);
            rows += static_cast<std::uint64_t>(n);
            ++transactions;
        }
    };
    auto caught_up = [&] {
        return scrape(port, "sluice_cdc_row_changes_total") == static_cast<double>(rows) &&
               scrape(port, "sluice_cdc_transactions_total") == static_cast<double>(transactions) &&
               scrape(port, "sluice_cdc_lag_seconds") == 0;
    };
    write(0, 40);
    ASSERT_TRUE(wait_until(caught_up, 60s)) << http_get(port, "/metrics")->body << test_support::read_text(log);
    auto health = http_get(port, "/healthz");
    ASSERT_TRUE(health);
    EXPECT_EQ(health->status, 200);
    EXPECT_EQ(health->body, "ok\n");
    const std::string m = http_get(port, "/metrics")->body;
    EXPECT_GT(metric_value(m, "sluice_cdc_bytes_total").value_or(0), 0);
    EXPECT_GT(metric_value(m, "process_resident_memory_bytes").value_or(0), 0);
    EXPECT_GT(metric_value(m, "process_cpu_seconds_total").value_or(0), 0);
    const std::string at = binlog_pos(admin);
    EXPECT_NE(m.find("sluice_cdc_position_info{gtid=\"" + at + "\"} 1\n"), std::string::npos) << at << "\n" << m;

    // The source goes away: 503 naming it while the process retries.
    ASSERT_TRUE(server.stop());
    ASSERT_TRUE(wait_until([&] { auto h = http_get(port, "/healthz"); return h && h->status == 503; }, 60s));
    health = http_get(port, "/healthz");
    EXPECT_EQ(health->body.rfind("source: ", 0), 0U) << health->body;
    EXPECT_GT(scrape(port, "sluice_cdc_retries_total"), 0);
    ASSERT_TRUE(server.start_again()) << server.log();
    ASSERT_TRUE(wait_until([&] { auto h = http_get(port, "/healthz"); return h && h->status == 200; }, 60s));
    admin = Connection::connect(server.options());
    write(100, 20);
    ASSERT_TRUE(wait_until(caught_up, 60s)) << http_get(port, "/metrics")->body << test_support::read_text(log);

    // Nothing lost or repeated: the file holds each transaction once.
    const std::string written = test_support::read_text(out);
    EXPECT_EQ(cdc::ndjson::count_row_changes(written), rows);
    std::set<std::string> gtids;
    std::size_t transaction_lines = 0;
    for (const std::string& line : lines_of(written)) {
        if (line.find("\"changes\":") == std::string::npos) continue;
        ++transaction_lines;
        gtids.insert(line.substr(0, line.find(',')));
    }
    EXPECT_EQ(transaction_lines, transactions);
    EXPECT_EQ(gtids.size(), transactions);

    const std::string endpoints = every_endpoint(port);
    scraper.stop();
    EXPECT_EQ(scraper.went_down(), "");
    EXPECT_GT(scraper.scrapes(), 0);
    const auto [status, seconds] = terminate(pid);
    EXPECT_EQ(status, 0) << test_support::read_text(log);
    std::cout << "SIGTERM while following: exit " << status << " after " << seconds << " s\n";
    const std::string stderr_text = test_support::read_text(log);
    EXPECT_NE(stderr_text.find("stopped (signal 15)"), std::string::npos) << stderr_text;
    EXPECT_EQ(stderr_text.find(secret), std::string::npos) << stderr_text;
    EXPECT_EQ(endpoints.find(secret), std::string::npos);
    EXPECT_NE(endpoints.find("cdcwatch:***@"), std::string::npos);
}

// The shared fixture's MariaDB: a catch-up long enough to stop in the
// middle; JetStream on a NATS cluster of the test's own.
class CdcMetricsShared : public ::testing::Test {
protected:
    void SetUp() override {
        admin_.emplace(Connection::connect(admin_options()));
        admin_->execute("CREATE DATABASE IF NOT EXISTS cdc_metrics");
    }
    Connection& sql() { return *admin_; }
    std::optional<Connection> admin_;
};

TEST_F(CdcMetricsShared, SigtermDuringACatchUpExitsZeroAndARestartContinuesExactly) {
    sql().execute("DROP TABLE IF EXISTS cdc_metrics.catchup");
    sql().execute("CREATE TABLE cdc_metrics.catchup (id INT PRIMARY KEY, v VARCHAR(40))");
    const std::string from = binlog_pos(sql());
    constexpr int transactions = 1500, per = 40;
    for (int i = 0; i < transactions; ++i) {
        std::string q = "INSERT INTO cdc_metrics.catchup VALUES ";
        for (int k = 0; k < per; ++k) q += (k ? "," : "") + ("(" + std::to_string(i * per + k) + ", 'some text to format')");
        sql().execute(q);
    }
    const std::string url = watcher_url(sql(), admin_options(), "cdcwatch_shared");
    const std::string log = scratch_path("cdc-metrics-catchup.log");
    const std::string out = scratch_path("cdc-metrics-catchup.ndjson");
    const std::vector<std::string> args = {"cdc", url, "--from-gtid", from, "--tables", "cdc_metrics.catchup", "--out", out};
    std::vector<std::string> first = args;
    first.insert(first.end(), {"--metrics", "127.0.0.1:0", "--log-format", "json"});
    const pid_t pid = spawn_cli(first, log);
    const int port = test_support::metrics_port(log);
    ASSERT_GT(port, 0) << test_support::read_text(log);
    // Stop once it has started writing (it usually is far from done then).
    ASSERT_TRUE(wait_until([&] { return scrape(port, "sluice_cdc_transactions_total") > 0; }, 60s));
    const auto [status, seconds] = terminate(pid);
    EXPECT_EQ(status, 0) << test_support::read_text(log);
    const std::uint64_t after_stop = cdc::ndjson::count_row_changes(test_support::read_text(out));
    std::cout << "SIGTERM during catch-up: exit " << status << " after " << seconds << " s, " << after_stop << " of "
              << transactions * per << " row changes written\n";
    // --log-format json: every stderr line is one object ("metrics: URL" and
    // the stop included).
    for (const std::string& line : lines_of(test_support::read_text(log))) {
        EXPECT_EQ(line.rfind("{\"level\":", 0), 0U) << line;
    }
    EXPECT_NE(test_support::read_text(log).find("\"message\":\"stopped (signal 15)\",\"fields\":{\"program\":"
                                                "\"sluice-mariadb cdc\",\"position\":\""),
              std::string::npos)
        << test_support::read_text(log);

    std::vector<std::string> second = args;
    second.push_back("--until-end");
    EXPECT_EQ(wait_exit(spawn_cli(second, log)), 0) << test_support::read_text(log);
    const std::string written = test_support::read_text(out);
    EXPECT_EQ(cdc::ndjson::count_row_changes(written), static_cast<std::uint64_t>(transactions * per));
    std::set<std::string> gtids;
    std::size_t lines = 0;
    for (const std::string& line : lines_of(written)) {
        ++lines;
        gtids.insert(line.substr(0, line.find(',')));
    }
    EXPECT_EQ(lines, static_cast<std::size_t>(transactions));
    EXPECT_EQ(gtids.size(), static_cast<std::size_t>(transactions));
}

TEST_F(CdcMetricsShared, IntoJetStreamTheCountersAreWhatTheStreamAcknowledged) {
    sql().execute("DROP TABLE IF EXISTS cdc_metrics.js");
    sql().execute("CREATE TABLE cdc_metrics.js (id INT PRIMARY KEY)");
    const std::string from = binlog_pos(sql());
    sluice::test::NatsCluster cluster("cdc-metrics-js");
    ASSERT_TRUE(cluster.started()) << cluster.log();
    const std::string nats = cluster.urls();
    const std::string stream = "CDC_METRICS_" + std::to_string(::getpid());
    const std::string url = watcher_url(sql(), admin_options(), "cdcwatch_shared");
    const std::string log = scratch_path("cdc-metrics-js.log");
    const pid_t pid = spawn_cli({"cdc", url, "--from-gtid", from, "--tables", "cdc_metrics.js", "--to", nats, "--stream",
                                 stream, "--heartbeat", "1", "--metrics", "127.0.0.1:0"},
                                log);
    const int port = test_support::metrics_port(log);
    ASSERT_GT(port, 0) << test_support::read_text(log);
    Scraper scraper(port, {"sluice_cdc_transactions_total", "sluice_cdc_row_changes_total"});
    std::uint64_t rows = 0;
    for (int i = 0; i < 30; ++i) {
        std::string q = "INSERT INTO cdc_metrics.js VALUES ";
        for (int k = 0; k <= i % 4; ++k) q += (k ? "," : "") + ("(" + std::to_string(i * 10 + k) + ")");
        sql().execute(q);
        rows += static_cast<std::uint64_t>(i % 4 + 1);
    }
    ASSERT_TRUE(wait_until(
        [&] {
            return scrape(port, "sluice_cdc_row_changes_total") == static_cast<double>(rows) &&
                   scrape(port, "sluice_cdc_transactions_total") == 30 && scrape(port, "sluice_cdc_lag_seconds") == 0;
        },
        60s))
        << http_get(port, "/metrics")->body << test_support::read_text(log);
    EXPECT_EQ(http_get(port, "/healthz")->status, 200);
    const std::string status = http_get(port, "/status")->body;
    EXPECT_NE(status.find("\"transactions\":30,\"row_changes\":" + std::to_string(rows)), std::string::npos) << status;
    const std::string endpoints = every_endpoint(port);
    scraper.stop();
    EXPECT_EQ(scraper.went_down(), "");
    const auto [exit_status, seconds] = terminate(pid);
    EXPECT_EQ(exit_status, 0) << test_support::read_text(log);
    std::cout << "SIGTERM publishing: exit " << exit_status << " after " << seconds << " s\n";
    auto client = sluice::nats::JetStreamClient::connect(nats);
    EXPECT_EQ(client.stream_state(stream)->last_seq, 30U);
    EXPECT_EQ(endpoints.find(secret), std::string::npos);
    EXPECT_EQ(test_support::read_text(log).find(secret), std::string::npos);
}

TEST_F(CdcMetricsShared, ASecondSignalExitsAtOnce) {
    sql().execute("CREATE TABLE IF NOT EXISTS cdc_metrics.quiet (id INT PRIMARY KEY)");
    const std::string log = scratch_path("cdc-metrics-twice.log");
    const std::string out = scratch_path("cdc-metrics-twice.ndjson");
    // Following a quiet table: the loop is blocked on the server, so the
    // first signal waits out its grace and the second one ends the process.
    const pid_t pid = spawn_cli({"cdc", url_of(admin_options()), "--from-now", "--tables", "cdc_metrics.quiet", "--out",
                                 out, "--metrics", "127.0.0.1:0"},
                                log);
    ASSERT_GT(test_support::metrics_port(log), 0) << test_support::read_text(log);
    // Two different signals: two of the same kind may merge into one
    // pending signal before the signal thread takes the first.
    ::kill(pid, SIGTERM);
    ::kill(pid, SIGINT);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << test_support::read_text(log);
    EXPECT_TRUE(WEXITSTATUS(status) == 128 + SIGINT || WEXITSTATUS(status) == 128 + SIGTERM)
        << WEXITSTATUS(status) << "\n" << test_support::read_text(log);
    EXPECT_EQ(test_support::read_text(log).find("stopped (signal"), std::string::npos)
        << "the graceful path ran: " << test_support::read_text(log);
}

TEST(CdcMetrics, BadMetricsAddressesAndLogFormatsAreUsageErrors) {
    auto r = run_cli("cdc mariadb://u:pw@127.0.0.1:1/ --metrics 127.0.0.1", true);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--metrics \"127.0.0.1\": expected HOST:PORT"), std::string::npos) << r.out;
    r = run_cli("cdc mariadb://u:pw@127.0.0.1:1/ --log-format xml", true);
    EXPECT_EQ(r.status, 2) << r.out;
    // An error as JSON, its URL's password masked.
    r = run_cli("cdc mariadb://u:Very-Secret@127.0.0.1:1/ --log-format json --from-start", true);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_EQ(r.out.rfind("{\"level\":\"error\",\"time\":\"", 0), 0U) << r.out;
    EXPECT_EQ(r.out.find("Very-Secret"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sluice::mariadb::test
