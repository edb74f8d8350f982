// Huge transactions through the scaled-out pipeline (issue 25): `sluice-mariadb
// cdc --to nats://` publishes a transaction longer than --max-line-bytes as
// part messages (GTID#K, Sluice-Part, Sluice-Last), and `--partition I/2`
// workers apply each part into their open engine transaction, committing at
// the last part. The sinks equal the single process on the binlog; a stream
// that ends inside a transaction leaves nothing of it applied and the worker
// continues once the rest arrives; a worker waiting inside a transaction
// for its next part stops on SIGTERM with nothing of it applied; a broken part sequence is an error naming
// the message, with nothing of the transaction applied.
//
// Sizes are CI-sized (3,000 rows, parts of 8 KiB lines, --part-changes 500):
// many parts per transaction, each a separate message and a separate engine
// part. The 3M-row form is the benchmark (docs/bench-pipeline.md).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

#include "../../nats/tests/nats_cluster.hpp"
#include "jetstream_workers.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"
#include "sluice/nats/client.hpp"

namespace sluice::pipeline::test {
namespace {

namespace js = sluice::mariadb::jetstream;

class PipelineJetStreamParts : public ::testing::Test {
protected:
    static void SetUpTestSuite() { cluster_ = new sluice::test::NatsCluster("pipeline-jetstream-parts"); }
    static void TearDownTestSuite() {
        delete cluster_;
        cluster_ = nullptr;
    }
    void SetUp() override {
        ASSERT_TRUE(cluster_->started()) << cluster_->log();
        my_.emplace(mariadb::Connection::connect(mariadb_url()));
        my_->execute("CREATE DATABASE IF NOT EXISTS pipeline_test");
        pg_.emplace(postgres::Connection::open(pg_url()));
        pg_->set_notice_handler({});
    }
    std::string log_path(const std::string& name) const { return own_log_path("pipeline-jsparts-" + name); }
    std::vector<std::string> run_args(const std::string& source, const std::string& sink,
                                      const std::vector<std::string>& extra) {
        return worker_run_args(source, "pipeline_test.js_parts", sink, extra);
    }
    // A worker (or the single process) to the end of its source; its exit status and log.
    std::pair<int, std::string> run_to_end(const std::string& source, const std::string& sink,
                                           std::vector<std::string> extra, const std::string& log_name) {
        extra.push_back("--until-end");
        Process p(SLUICE_PIPELINE_CLI, run_args(source, sink, extra), log_path(log_name));
        std::filesystem::remove(p.log());
        p.start();
        const int status = p.wait();
        std::string log = read_file(p.log());
        std::filesystem::remove(p.log());
        return {status, log};
    }
    // A stream of our own holding messages `from`..`to` of `stream` (or
    // appended to it when it exists): a publisher's stream cut where a test
    // needs it.
    void copy_messages(nats::JetStreamClient& c, const std::string& stream, const std::string& to_stream,
                       std::uint64_t from, std::uint64_t to, std::uint64_t skip = 0) {
        if (!c.stream_state(to_stream)) c.add_stream({to_stream, {to_stream}, 1});
        for (std::uint64_t s = from; s <= to; ++s)
            if (s != skip) c.publish(to_stream, c.message(stream, s).data, {});
    }

    // The sink holds nothing after the first small transaction: its one
    // session of one event (`committed`), or nothing yet.
    void expect_only_the_first_transaction(const std::string& sink, bool committed) {
        const Rows sessions = sink_rows(*pg_, sink)[0];
        ASSERT_EQ(sessions.size(), committed ? 1U : sessions.size()) << ::testing::PrintToString(sessions);
        ASSERT_LE(sessions.size(), 1U) << ::testing::PrintToString(sessions);
        for (const std::string& session : sessions) {
            std::istringstream words(session);
            std::string key, start, end, count;
            words >> key >> start >> end >> count;
            EXPECT_EQ(key, "k1");
            EXPECT_EQ(count, "1") << session;
        }
    }

    static sluice::test::NatsCluster* cluster_;
    std::optional<mariadb::Connection> my_;
    std::optional<postgres::Connection> pg_;
};
sluice::test::NatsCluster* PipelineJetStreamParts::cluster_ = nullptr;

TEST_F(PipelineJetStreamParts, TransactionsInManyMessagesEqualTheDirectPipelineAndABrokenSequenceAppliesNothing) {
    my_->execute("DROP TABLE IF EXISTS pipeline_test.js_parts");
    my_->execute("CREATE TABLE pipeline_test.js_parts (pk INT PRIMARY KEY, id INT, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(*my_, "SELECT @@global.gtid_binlog_pos");
    for (const char* s : {"jsp_single", "jsp_multi", "jsp_cut", "jsp_held", "jsp_broken"}) drop_partitioned_sink(*pg_, s);
    const std::string stream = "PARTS" + std::to_string(::getpid());

    my_->execute("SET SESSION max_recursive_iterations = 100000000");
    const std::string rows = "WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < 3000) ";
    my_->execute("INSERT INTO pipeline_test.js_parts VALUES (-1, -1, 'k1', 1, 1)");
    // One transaction each: an insert of 3,000 rows, an update of every
    // row, a delete of a third; small ones between.
    my_->execute("INSERT INTO pipeline_test.js_parts " + rows +
                 "SELECT n, n, CONCAT('k', n MOD 12), 10 + n DIV 4, n FROM s");
    my_->execute("INSERT INTO pipeline_test.js_parts VALUES (-2, -2, 'k2', 700, 1)");
    my_->execute("UPDATE pipeline_test.js_parts SET v = v + 0.5, t = t + 1 WHERE pk > 0");
    my_->execute("DELETE FROM pipeline_test.js_parts WHERE pk > 0 AND pk MOD 3 = 0");
    // Refused by the engine at its last row (id 10001 twice): read again
    // from its first part message and rejected whole. (One key, so one
    // worker owns all of it: a worker checks ids only among its own keys.)
    my_->execute("INSERT INTO pipeline_test.js_parts " + rows +
                 "SELECT 10000 + n, IF(n = 3000, 10001, 10000 + n), 'k1', 800, 1 FROM s");
    my_->execute("INSERT INTO pipeline_test.js_parts VALUES (-3, -3, 'k3', 900, 1)");

    Process publisher(SLUICE_MARIADB_CLI,
                      {"cdc", mariadb_url(), "--from-gtid", start, "--tables", "pipeline_test.js_parts", "--to",
                       cluster_->urls(), "--stream", stream, "--max-line-bytes", "8192", "--until-end"},
                      log_path("publisher"));
    std::filesystem::remove(publisher.log());
    publisher.start();
    ASSERT_EQ(publisher.wait(), 0) << read_file(publisher.log());
    std::filesystem::remove(publisher.log());

    // The stream: the four big transactions in many part messages each.
    nats::JetStreamClient c = nats::JetStreamClient::connect(cluster_->urls());
    const auto state = c.stream_state(stream);
    ASSERT_TRUE(state);
    std::uint64_t parts = 0, lasts = 0, insert_part_2 = 0, insert_part_3 = 0, insert_first = 0;
    for (std::uint64_t s = state->first_seq; s <= state->last_seq; ++s) {
        const nats::StoredMessage m = c.message(stream, s);
        if (!m.headers.count(js::part_header)) continue;
        ++parts;
        if (m.headers.count(js::last_header)) ++lasts;
        const std::string k = m.header(js::part_header, stream);
        if (lasts == 0 && k == "1") insert_first = s;
        if (lasts == 0 && k == "2") insert_part_2 = s;
        if (lasts == 0 && k == "3") insert_part_3 = s;
    }
    EXPECT_EQ(lasts, 4U);
    EXPECT_GT(parts, 40U);
    ASSERT_GT(insert_part_3, insert_first);

    const std::string nats_source = cluster_->urls() + "?stream=" + stream;
    const std::vector<std::string> small_parts = {"--part-changes", "500"};
    auto single = run_to_end(mariadb_url(), "jsp_single", {"--from-gtid", start}, "single");
    ASSERT_EQ(single.first, 0) << single.second;
    for (const char* partition : {"0/2", "1/2"}) {
        std::vector<std::string> extra = small_parts;
        extra.insert(extra.end(), {"--partition", partition});
        auto w = run_to_end(nats_source, "jsp_multi", extra, std::string("worker") + partition[0]);
        ASSERT_EQ(w.first, 0) << w.second;
    }
    const std::vector<Rows> want = sink_rows(*pg_, "jsp_single");
    EXPECT_EQ(want[2].size(), 3000U) << "the refused transaction's rows, rejected whole";
    expect_equal_sinks(sink_rows(*pg_, "jsp_multi"), want);

    // A stream that ends inside the big insert (after its part 2, as a
    // killed publisher leaves it): --until-end applies nothing of it; once
    // the rest arrives (the publisher continues at part 3) the worker
    // equals the single process.
    const std::string cut = stream + "CUT";
    copy_messages(c, stream, cut, state->first_seq, insert_part_2);
    const std::string cut_source = cluster_->urls() + "?stream=" + cut;
    auto before = run_to_end(cut_source, "jsp_cut", small_parts, "cut");
    ASSERT_EQ(before.first, 0) << before.second;
    expect_only_the_first_transaction("jsp_cut", /*committed=*/true);
    copy_messages(c, stream, cut, insert_part_2 + 1, state->last_seq);
    auto after = run_to_end(cut_source, "jsp_cut", small_parts, "cut-rest");
    ASSERT_EQ(after.first, 0) << after.second;
    EXPECT_EQ(sink_rows(*pg_, "jsp_cut"), want);

    // A worker following a stream cut inside the insert (after its part 3:
    // a publisher that is down), stopped with SIGTERM while it waits for
    // the next part: the run loop itself ends, as at a stop between
    // transactions, commits what came before the insert and exits 0 with
    // nothing of the insert applied (before, it waited for the part until
    // the grace ran out and the process exited with the last batch not
    // committed); once the rest arrives, a restart equals the single
    // process.
    const std::string held = stream + "HELD";
    copy_messages(c, stream, held, state->first_seq, insert_part_3);
    const std::string held_source = cluster_->urls() + "?stream=" + held;
    std::vector<std::string> follow = worker_run_args(held_source, "pipeline_test.js_parts", "jsp_held",
                                                      {"--part-changes", "100"});
    follow.erase(std::find(follow.begin(), follow.end(), "--quiet"));  // its progress line says where it is
    Process worker(SLUICE_PIPELINE_CLI, follow, log_path("held"));
    std::filesystem::remove(worker.log());
    worker.start();
    // Inside the insert: parts of it applied (the line at a transaction's
    // first engine part), its part 4 not in the stream.
    bool inside = false;
    for (int i = 0; i < 600 && !inside; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        inside = read_file(worker.log()).find("of a transaction in flight") != std::string::npos;
    }
    ASSERT_TRUE(inside) << read_file(worker.log());
    const std::optional<int> stopped = worker.terminate(std::chrono::seconds(60));
    ASSERT_TRUE(stopped.has_value()) << "SIGTERM did not stop a worker waiting inside a transaction:\n"
                                     << read_file(worker.log());
    const std::string stop_log = read_file(worker.log());
    std::filesystem::remove(worker.log());
    EXPECT_EQ(*stopped, 0) << stop_log;
    EXPECT_NE(stop_log.find("sluice-pipeline: stopped (signal 15)"), std::string::npos) << stop_log;
    EXPECT_EQ(stop_log.find("was not committed"), std::string::npos) << stop_log;
    // The loop's own last progress line (written as it returns), with
    // nothing in flight: not the process ended by the grace's timer,
    // whose last line is still the one with the insert in flight.
    const std::size_t last_progress = stop_log.rfind("sluice-pipeline: partition");
    ASSERT_NE(last_progress, std::string::npos) << stop_log;
    const std::string last_line = stop_log.substr(last_progress, stop_log.find('\n', last_progress) - last_progress);
    EXPECT_EQ(last_line.find("in flight"), std::string::npos) << stop_log;
    expect_only_the_first_transaction("jsp_held", /*committed=*/true);  // and nothing of the insert
    copy_messages(c, stream, held, insert_part_3 + 1, state->last_seq);
    auto rest = run_to_end(held_source, "jsp_held", small_parts, "held-rest");
    ASSERT_EQ(rest.first, 0) << rest.second;
    EXPECT_EQ(sink_rows(*pg_, "jsp_held"), want);

    // Part 2 of the insert missing: part 3 follows part 1. The worker
    // stops naming the message; nothing of the insert is in the sink.
    const std::string broken = stream + "BROKEN";
    copy_messages(c, stream, broken, state->first_seq, state->last_seq, /*skip=*/insert_part_2);
    auto bad = run_to_end(cluster_->urls() + "?stream=" + broken, "jsp_broken", small_parts, "broken");
    EXPECT_EQ(bad.first, 1) << bad.second;
    const std::string gtid = c.message(stream, insert_first).header(js::gtid_header, stream);
    EXPECT_NE(bad.second.find("stream \"" + broken + "\" sequence " + std::to_string(insert_part_3 - 1) +
                              ", \"part\": part 3 while transaction " + gtid + " awaits its part 2"),
              std::string::npos)
        << bad.second;
    expect_only_the_first_transaction("jsp_broken", /*committed=*/false);  // nothing of the broken insert

    for (const std::string& s : {stream, cut, held, broken}) c.delete_stream(s);
}

}  // namespace
}  // namespace sluice::pipeline::test
