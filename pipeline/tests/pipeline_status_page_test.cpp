// The status page (/) in a real browser (issue 27): headless Chromium
// (Debian's package, scripts/setup) loads it while a pipeline runs, the
// numbers it shows are those /status gives, and a screenshot is saved
// (build/dev/screenshots/status-page.png) for a person to look at.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "../../mariadb/tests/cdc/cdc_support.hpp"
#include "../../tests/support/metrics_scrape.hpp"
#include "pipeline_support.hpp"

namespace sluice::pipeline::test {
namespace {

using namespace std::chrono_literals;
using test_support::http_get;
using test_support::metric_value;
using test_support::wait_until;

constexpr const char* chromium = "/usr/bin/chromium";

// Chromium's command line for a page on loopback: headless, as root (no
// sandbox), with 8 s of virtual time for the page's scripts (its fetch of
// /status and the drawing) before the DOM is dumped or the picture taken.
std::string chromium_command(const std::string& what, const std::string& url, const std::string& profile) {
    return std::string(chromium) + " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions " +
           "--user-data-dir=" + profile + " --virtual-time-budget=8000 --window-size=1200,820 " + what + " " + url +
           " 2>/dev/null";
}

// The text of the element with this id in the dumped DOM.
std::string element_text(const std::string& dom, const std::string& id) {
    const std::regex e("id=\"" + id + "\"[^>]*>([^<]*)<");
    std::smatch m;
    return std::regex_search(dom, m, e) ? m[1].str() : "<no element " + id + ">";
}

// A number of /status as the page writes it (num() in status_page.html).
std::string status_number(const std::string& status, const std::string& key) {
    const std::regex e("\"" + key + "\":(-?[0-9.e+]+|null)");
    std::smatch m;
    if (!std::regex_search(status, m, e)) return "<no " + key + ">";
    if (m[1].str() == "null") return "—";
    const double v = std::stod(m[1].str());
    if (v == static_cast<double>(static_cast<long long>(v))) return std::to_string(static_cast<long long>(v));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::string status_string(const std::string& status, const std::string& key) {
    const std::regex e("\"" + key + "\":\"([^\"]*)\"");
    std::smatch m;
    return std::regex_search(status, m, e) ? m[1].str() : "<no " + key + ">";
}

TEST(PipelineStatusPage, ChromiumShowsTheFiguresOfStatusDuringARun) {
    ASSERT_TRUE(std::filesystem::exists(chromium)) << chromium << " is missing: scripts/setup installs Debian's chromium";
    auto my = mariadb::Connection::connect(mariadb_url());
    my.execute("CREATE DATABASE IF NOT EXISTS pipeline_service");
    my.execute("DROP TABLE IF EXISTS pipeline_service.page");
    my.execute("CREATE TABLE pipeline_service.page (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    auto pg = postgres::Connection::open(pg_url());
    pg.set_notice_handler({});
    drop_sink(pg, "status_page");
    const std::string start = mariadb::test::binlog_pos(my);
    const std::string log = "/tmp/pipeline-status-page-" + std::to_string(::getpid()) + ".log";
    std::remove(log.c_str());
    Child run({"run", "--source", mariadb_url(), "--table", "pipeline_service.page", "--id", "id", "--key", "k", "--ts",
               "t", "--value", "v", "--sink", pg_url(), "--sink-table", "status_page", "--from-gtid", start,
               "--metrics", "127.0.0.1:0"},
              log);
    const int port = test_support::metrics_port(log);
    ASSERT_GT(port, 0) << read_file(log);
    // Some traffic for the charts: a few seconds of transactions, a late
    // row and a rejected one among them.
    std::uint64_t rows = 0;
    for (int n = 0; n < 40; ++n) {
        std::string q = "INSERT INTO pipeline_service.page VALUES ";
        for (int i = 0; i < 5; ++i)
            q += (i ? "," : "") + ("(" + std::to_string(n * 10 + i) + ",'k" + std::to_string(i) + "'," +
                                   std::to_string(n * 3 + i) + ",1)");
        my.execute(q);
        rows += 5;
        if (n == 20) {
            my.execute("INSERT INTO pipeline_service.page VALUES (9001, 'k1', -1000, 1), (9002, 'k1', NULL, 1)");
            rows += 2;
        }
        std::this_thread::sleep_for(100ms);
    }
    ASSERT_TRUE(wait_until(
        [&] {
            auto m = http_get(port, "/metrics");
            return m && metric_value(m->body, "sluice_pipeline_source_row_changes_total") == static_cast<double>(rows) &&
                   metric_value(m->body, "sluice_pipeline_lag_seconds") == 0;
        },
        120s))
        << read_file(log);
    // Quiet now: the figures hold still, so the page and /status must agree
    // (rows/s too, once the second after the last commit is sampled).
    std::this_thread::sleep_for(2s);

    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
    const std::string profile = std::string(SLUICE_OWN_SERVERS_DIR) + "/chromium-profile-" + std::to_string(::getpid());
    std::filesystem::create_directories(profile);
    const mariadb::test::Outcome dom = mariadb::test::shell(chromium_command("--dump-dom", url, profile));
    ASSERT_EQ(dom.status, 0) << dom.out;
    const std::string status = http_get(port, "/status")->body;
    ASSERT_NE(element_text(dom.out, "updated"), "never") << "the page did not load /status:\n" << dom.out;
    for (const char* key : {"transactions", "row_changes", "late", "rejected", "lag_seconds", "rows_per_second"})
        EXPECT_EQ(element_text(dom.out, key), status_number(status, key)) << key << "\n" << status;
    EXPECT_EQ(element_text(dom.out, "position"), status_string(status, "position"));
    EXPECT_EQ(element_text(dom.out, "source"), status_string(status, "source"));
    EXPECT_EQ(element_text(dom.out, "health"), "healthy");
    EXPECT_EQ(element_text(dom.out, "row_changes"), std::to_string(rows));
    EXPECT_EQ(element_text(dom.out, "late"), "1");
    EXPECT_EQ(element_text(dom.out, "rejected"), "1");
    // The charts were drawn: a line each over the samples.
    EXPECT_NE(dom.out.find("<polyline"), std::string::npos) << dom.out;

    const std::string shots = std::string(SLUICE_OWN_SERVERS_DIR) + "/../screenshots";
    std::filesystem::create_directories(shots);
    const std::string png = shots + "/status-page.png";
    std::filesystem::remove(png);
    const mariadb::test::Outcome shot =
        mariadb::test::shell(chromium_command("--screenshot=" + png, url, profile));
    EXPECT_EQ(shot.status, 0) << shot.out;
    ASSERT_TRUE(std::filesystem::exists(png));
    EXPECT_GT(std::filesystem::file_size(png), 10000U);
    std::cout << "screenshot: " << std::filesystem::canonical(png).string() << "\n";
    std::filesystem::remove_all(profile);
}

}  // namespace
}  // namespace sluice::pipeline::test
