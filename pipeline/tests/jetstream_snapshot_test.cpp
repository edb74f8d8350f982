// Pipeline workers on a stream that starts with a snapshot: `sluice-mariadb
// cdc --snapshot --to nats://...` SIGKILLed in the middle of its snapshot
// (aborted, taken again), workers `--partition 0/2` and `1/2` reading it
// (one killed while it holds a snapshot's chunks, one stopping with
// --until-end inside an unfinished one), then a workload with kills of every
// process; at the end the two workers' sink equals one `sluice-pipeline run
// --source mariadb://... --snapshot` on the same table.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <set>
#include <thread>

#include "../../nats/tests/jetstream_reads.hpp"
#include "../../nats/tests/nats_cluster.hpp"
#include "jetstream_workers.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"
#include "sluice/nats/client.hpp"
#include "sluice/pipeline/key_partition.hpp"

namespace sluice::pipeline::test {
namespace {

using namespace std::chrono_literals;
namespace js = sluice::mariadb::jetstream;

class PipelineJetStreamSnapshot : public ::testing::Test {
protected:
    static void SetUpTestSuite() { cluster_ = new sluice::test::NatsCluster("pipeline-jetstream-snapshot"); }
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
        nats::ClientOptions quick;
        quick.api_wait_ms = 1000;  // polled while publishers run: fail fast, ask again
        client_.emplace(nats::JetStreamClient::connect(cluster_->urls(), quick));
        last_seq("NOT_A_STREAM");  // the cluster has elected its meta leader
    }
    std::string log_path(const std::string& name) const { return own_log_path("pipeline-js-snap-" + name); }
    void drop(const std::string& sink) { drop_partitioned_sink(*pg_, sink); }
    std::vector<std::string> run_args(const std::string& source, const std::string& sink,
                                      const std::vector<std::string>& extra) {
        return worker_run_args(source, "pipeline_test.js_snap", sink, extra);
    }
    std::vector<Rows> sink(const std::string& name) { return sink_rows(*pg_, name); }
    std::uint64_t last_seq(const std::string& stream) { return sluice::test::last_seq(*client_, stream); }
    // "chunk", "done", "aborted" or "" (not a snapshot message) for the
    // stream's last message.
    // What the stream's latest snapshot message is: "chunk", "done" or
    // "aborted" ("" when there is none). Not simply the last message: the
    // publisher also publishes every DDL statement it reads, and other tests
    // on the shared server run DDL at any time (ctest -j2 failed here when
    // one landed right after the snapshot's done message).
    std::string last_part(const std::string& stream) {
        const std::uint64_t last = last_seq(stream);
        for (std::uint64_t seq = last; seq > 0 && last - seq < 500; --seq) {
            const nats::StoredMessage m = client_->message(stream, seq);
            if (!m.headers.count(js::snapshot_header)) continue;
            auto end = m.headers.find(js::snapshot_end_header);
            return end == m.headers.end() ? "chunk" : end->second;
        }
        return "";
    }

    static sluice::test::NatsCluster* cluster_;
    std::optional<mariadb::Connection> my_;
    std::optional<postgres::Connection> pg_;
    std::optional<nats::JetStreamClient> client_;
};
sluice::test::NatsCluster* PipelineJetStreamSnapshot::cluster_ = nullptr;

TEST_F(PipelineJetStreamSnapshot, TwoWorkersOnASnapshotStartedStreamEqualOneProcessWithSnapshot) {
    // 20000 rows over 12 keys (4000 chunks of 5: kills land inside the
    // snapshot), about 33 sessions per key (no NULL ts: within the snapshot's one
    // transaction nothing is late or rejected, so the sinks hold no
    // snapshot name, which would differ if another program wrote to the
    // server between the two snapshots).
    my_->execute("DROP TABLE IF EXISTS pipeline_test.js_snap");
    my_->execute("CREATE TABLE pipeline_test.js_snap (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    my_->execute("SET SESSION max_recursive_iterations = 1000000");
    my_->execute("INSERT INTO pipeline_test.js_snap WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s "
                 "WHERE n < 20000) SELECT n, CONCAT('k', n % 12), (n DIV 12) * 4 + (n DIV 600) * 50, n % 100 + 0.25 FROM s");
    for (const char* s : {"js_snap_single", "js_snap_multi"}) drop(s);
    const std::string stream = "SNAPPIPE" + std::to_string(::getpid());
    const std::string nats_source = cluster_->urls() + "?stream=" + stream;

    // The single process takes its snapshot now, while nothing writes.
    const std::vector<std::string> single_args = run_args(mariadb_url(), "js_snap_single", {"--snapshot", "--until-end"});
    ASSERT_EQ(run_pipeline(single_args, log_path("single")).status, 0) << read_file(log_path("single"));

    const std::vector<std::string> publish = {"cdc",
                                              mariadb_url(),
                                              "--snapshot",
                                              "--snapshot-chunk-rows",
                                              "5",
                                              "--tables",
                                              "pipeline_test.js_snap",
                                              "--to",
                                              cluster_->urls(),
                                              "--stream",
                                              stream,
                                              "--window",
                                              "4"};
    Process publisher(SLUICE_MARIADB_CLI, publish, log_path("publisher"));
    Process worker0(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_snap_multi", {"--partition", "0/2"}),
                    log_path("worker0"));
    Process worker1(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_snap_multi", {"--partition", "1/2"}),
                    log_path("worker1"));
    for (Process* p : {&publisher, &worker0, &worker1}) std::filesystem::remove(p->log());

    // The stream made here (as the publisher would), and waited for: a new
    // stream's leader election must not eat the time the kills are aimed at.
    client_->add_stream({stream, {stream, stream + ".>"}, 3});
    last_seq(stream);
    // Three snapshots cut off by kills: each later start aborts the one
    // before.
    int cut = 0;
    for (int k = 0; k < 3; ++k) {
        const std::uint64_t base = last_seq(stream);
        publisher.start();
        for (int i = 0; i < 3000 && last_seq(stream) < base + 20 + static_cast<std::uint64_t>(k) * 30; ++i)
            std::this_thread::sleep_for(5ms);
        EXPECT_TRUE(publisher.kill()) << read_file(publisher.log());
        if (last_part(stream) == "chunk") ++cut;
    }
    ASSERT_GE(cut, 2) << read_file(publisher.log());
    ASSERT_EQ(last_part(stream), "chunk");
    // A worker that stops (--until-end) inside the unfinished snapshot
    // commits the position before it; one killed while it holds the chunks.
    std::vector<std::string> stop_inside = run_args(nats_source, "js_snap_multi", {"--partition", "1/2", "--until-end"});
    ASSERT_EQ(run_pipeline(stop_inside, log_path("worker1-inside")).status, 0) << read_file(log_path("worker1-inside"));
    worker0.start();
    std::this_thread::sleep_for(1500ms);
    EXPECT_TRUE(worker0.kill()) << read_file(worker0.log());

    // The snapshot taken to its end while both workers read it, then the
    // workload with kills of all three.
    const std::uint64_t before_last = last_seq(stream);
    publisher.start();
    worker0.start();
    worker1.start();
    // Worker 1 killed twice in the middle of it; between the kills, a run
    // with --until-end that ends inside it (its end is where the stream was
    // when it started: the snapshot goes on being published, to completion).
    for (std::uint64_t at : {std::uint64_t{1200}, std::uint64_t{3000}}) {
        for (int i = 0; i < 3000 && last_seq(stream) < before_last + at; ++i) std::this_thread::sleep_for(5ms);
        EXPECT_TRUE(worker1.kill()) << read_file(worker1.log());
        if (at == 1200) {
            EXPECT_EQ(last_part(stream), "chunk") << "the snapshot should still be going on";
            EXPECT_EQ(run_pipeline(stop_inside, log_path("worker1-inside")).status, 0)
                << read_file(log_path("worker1-inside"));
        }
        worker1.start();
    }
    for (int i = 0; i < 6000 && last_part(stream) != "done"; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_EQ(last_part(stream), "done") << read_file(publisher.log());

    std::atomic<bool> writing{true};
    std::thread writer([&] {
        mariadb::Connection w = mariadb::Connection::connect(mariadb_url());
        std::mt19937 rng(7);
        std::int64_t clock = 8400;  // after the snapshot's times (at most 8314)
        int next_id = 100000;
        for (int t = 0; t < 200; ++t) {
            w.execute("START TRANSACTION");
            for (int i = 0; i < 1 + static_cast<int>(rng() % 3); ++i) {
                clock += static_cast<std::int64_t>(rng() % 3);
                const std::string key = "'k" + std::to_string(rng() % 12) + "'";
                const std::string ts = rng() % 30 == 0 ? "NULL" : std::to_string(clock - static_cast<std::int64_t>(rng() % 25));
                const auto pick = rng() % 10;
                if (pick < 5) {
                    w.execute("INSERT INTO pipeline_test.js_snap VALUES (" + std::to_string(next_id++) + ", " + key +
                              ", " + ts + ", " + std::to_string(rng() % 100) + ".5)");
                } else if (pick < 8) {  // a snapshot row or a new one moves
                    w.execute("UPDATE pipeline_test.js_snap SET k = " + key + ", t = " + ts +
                              ", v = v + 1 WHERE id = " + std::to_string(1 + rng() % 20000));
                } else {
                    w.execute("DELETE FROM pipeline_test.js_snap WHERE id = " + std::to_string(1 + rng() % 20000));
                }
            }
            w.execute("COMMIT");
            std::this_thread::sleep_for(std::chrono::milliseconds(t % 40 == 0 ? 40 : 4));
        }
        writing = false;
    });
    std::mt19937 rng(11);
    Process* all[3] = {&publisher, &worker0, &worker1};
    int total = 0;
    while (writing || total < 6) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 300));
        Process* victim = all[rng() % 3];
        EXPECT_TRUE(victim->kill()) << "exited by itself: " << read_file(victim->log());
        victim->start();
        ++total;
    }
    writer.join();
    for (Process* p : all) p->kill();

    // Everything to the end: the publisher (the same command: it continues
    // from the stream, no new snapshot), both workers, the single process
    // (it continues from its sink's state).
    std::vector<std::string> last = publish;
    last.push_back("--until-end");
    Process final_publisher(SLUICE_MARIADB_CLI, last, log_path("publisher-last"));
    final_publisher.start();
    ASSERT_EQ(final_publisher.wait(), 0) << read_file(final_publisher.log());
    Process last0(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_snap_multi", {"--partition", "0/2", "--until-end"}),
                  log_path("worker0-last"));
    Process last1(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_snap_multi", {"--partition", "1/2", "--until-end"}),
                  log_path("worker1-last"));
    last0.start();
    last1.start();
    ASSERT_EQ(run_pipeline(single_args, log_path("single")).status, 0) << read_file(log_path("single"));
    ASSERT_EQ(last0.wait(), 0) << read_file(last0.log());
    ASSERT_EQ(last1.wait(), 0) << read_file(last1.log());

    const std::vector<Rows> want = sink("js_snap_single");
    EXPECT_GT(want[0].size(), 20U);
    EXPECT_GT(want[1].size(), 2U);  // late rows (of the workload)
    EXPECT_GT(want[2].size(), 1U);  // rejected rows (NULL ts)
    const std::vector<Rows> have = sink("js_snap_multi");
    expect_equal_sinks(have, want);

    // The stream: aborted snapshots, then one done, never a second one.
    int aborted = 0, done = 0;
    for (std::uint64_t s = 1; s <= last_seq(stream); ++s) {
        const nats::StoredMessage m = client_->message(stream, s);
        auto end = m.headers.find(js::snapshot_end_header);
        if (end == m.headers.end()) continue;
        if (end->second == "aborted") ++aborted;
        if (end->second == "done") ++done;
    }
    EXPECT_GE(aborted, cut);
    EXPECT_EQ(done, 1);

    if (!HasFailure())
        for (const char* name : {"single", "publisher", "worker0", "worker1", "worker1-inside", "publisher-last",
                                 "worker0-last", "worker1-last"})
            std::filesystem::remove(log_path(name));
}

}  // namespace
}  // namespace sluice::pipeline::test
