// The scaled-out pipeline: `sluice-mariadb cdc --to nats://` into a three-node
// JetStream cluster of the program's own, and two `sluice-pipeline run
// --source nats://...?stream=... --partition I/2` workers into the fixture's
// PostgreSQL, against the single process reading the same binlog. SIGKILLs
// of the publisher, of each worker and of one NATS node while a workload
// writes; at the end both sinks are equal and the stream holds each GTID once.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <random>
#include <thread>

#include "../../nats/tests/nats_cluster.hpp"
#include "jetstream_workers.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"
#include "sluice/nats/client.hpp"
#include "sluice/pipeline/key_partition.hpp"

namespace sluice::pipeline::test {
namespace {

namespace js = sluice::mariadb::jetstream;

// Random source transactions: inserts, updates (moving rows between keys
// and in time), deletes, rows behind the watermark (late) and NULL ts
// (rejected), over enough keys that both partitions get some.
class Workload {
public:
    explicit Workload(std::uint32_t seed) : rng_(seed) {}
    std::vector<std::string> next(const std::string& table) {
        std::vector<std::string> sql;
        const int n = 1 + static_cast<int>(rng_() % 4);
        for (int i = 0; i < n; ++i) {
            clock_ += static_cast<std::int64_t>(rng_() % 4);
            const auto pick = rng_() % 10;
            if (pick < 5 || ids_.empty()) {
                const std::int64_t id = next_id_++;
                ids_.push_back(id);
                sql.push_back("INSERT INTO " + table + " VALUES (" + std::to_string(id) + ", '" + key() + "', " + ts() +
                              ", " + std::to_string(rng_() % 1000) + ".25)");
            } else {
                const std::size_t at = rng_() % ids_.size();
                const std::int64_t id = ids_[at];
                if (pick < 8) {
                    sql.push_back("UPDATE " + table + " SET k = IF(RAND() < 0.5, k, '" + key() + "'), t = " + ts() +
                                  ", v = v + 0.5 WHERE id = " + std::to_string(id));
                } else {
                    ids_.erase(ids_.begin() + static_cast<long>(at));
                    sql.push_back("DELETE FROM " + table + " WHERE id = " + std::to_string(id));
                }
            }
        }
        return sql;
    }

private:
    std::string key() { return "k" + std::to_string(rng_() % 12); }
    std::string ts() {
        if (rng_() % 40 == 0) return "NULL";
        return std::to_string(clock_ - static_cast<std::int64_t>(rng_() % 30));
    }
    std::mt19937 rng_;
    std::int64_t clock_ = 0;
    std::int64_t next_id_ = 1;
    std::vector<std::int64_t> ids_;
};

class PipelineJetStream : public ::testing::Test {
protected:
    static void SetUpTestSuite() { cluster_ = new sluice::test::NatsCluster("pipeline-jetstream"); }
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
    std::string log_path(const std::string& name) const { return own_log_path("pipeline-js-" + name); }
    void drop(const std::string& sink) { drop_partitioned_sink(*pg_, sink); }
    std::vector<std::string> run_args(const std::string& source, const std::string& sink,
                                      const std::vector<std::string>& extra) {
        return worker_run_args(source, "pipeline_test.js_src", sink, extra);
    }
    std::vector<Rows> sink(const std::string& name) { return sink_rows(*pg_, name); }

    static sluice::test::NatsCluster* cluster_;
    std::optional<mariadb::Connection> my_;
    std::optional<postgres::Connection> pg_;
};
sluice::test::NatsCluster* PipelineJetStream::cluster_ = nullptr;

TEST_F(PipelineJetStream, TwoWorkersThroughKillsOfEveryProcessAndANodeEqualOneProcessOnTheBinlog) {
    my_->execute("DROP TABLE IF EXISTS pipeline_test.js_src");
    my_->execute("CREATE TABLE pipeline_test.js_src (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE)");
    const std::string start = scalar(*my_, "SELECT @@global.gtid_binlog_pos");
    for (const char* s : {"js_single", "js_multi", "js_fresh"}) drop(s);
    const std::string stream = "PIPE" + std::to_string(::getpid());
    const std::string nats_source = cluster_->urls() + "?stream=" + stream;

    constexpr int transactions = 300;
    std::atomic<bool> writing{true};
    std::vector<std::string> gtids;
    std::thread writer([&] {
        mariadb::Connection w = mariadb::Connection::connect(mariadb_url());
        Workload load(99);
        for (int t = 0; t < transactions; ++t) {
            w.execute("START TRANSACTION");
            for (const auto& s : load.next("pipeline_test.js_src")) w.execute(s);
            w.execute("COMMIT");
            gtids.push_back(scalar(w, "SELECT @@session.last_gtid"));
            std::this_thread::sleep_for(std::chrono::milliseconds(t % 50 == 0 ? 40 : 4));
        }
        writing = false;
    });

    const std::vector<std::string> publish = {"cdc",      mariadb_url(),          "--from-gtid", start,
                                              "--tables", "pipeline_test.js_src", "--to",        cluster_->urls(),
                                              "--stream", stream,                 "--window",    "32"};
    Process publisher(SLUICE_MARIADB_CLI, publish, log_path("publisher"));
    Process worker0(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_multi", {"--partition", "0/2"}), log_path("worker0"));
    Process worker1(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_multi", {"--partition", "1/2"}), log_path("worker1"));
    for (Process* p : {&publisher, &worker0, &worker1}) std::filesystem::remove(p->log());
    publisher.start();
    worker0.start();
    worker1.start();
    // Kill one of the three at random moments, start it again at once; kill
    // NATS node 2 after the fourth kill and start it after the eighth.
    std::mt19937 rng(2024);
    Process* all[3] = {&publisher, &worker0, &worker1};
    int kills[3] = {0, 0, 0};
    int total = 0;
    while (writing || total < 12 || kills[0] < 3 || kills[1] < 3 || kills[2] < 3) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50 + rng() % 250));
        const std::size_t victim = rng() % 3;
        EXPECT_TRUE(all[victim]->kill()) << "exited by itself: " << read_file(all[victim]->log());
        all[victim]->start();
        ++kills[victim];
        ++total;
        if (total == 4) cluster_->kill(2);
        if (total == 8) {
            EXPECT_TRUE(cluster_->restart(2));
        }
    }
    writer.join();
    for (Process* p : all) p->kill();

    // Everything to the end: the publisher, then both workers side by side;
    // the single process reads the binlog itself.
    std::vector<std::string> last = publish;
    last.push_back("--until-end");
    Process final_publisher(SLUICE_MARIADB_CLI, last, log_path("publisher-last"));
    final_publisher.start();
    ASSERT_EQ(final_publisher.wait(), 0) << read_file(final_publisher.log());
    Process last0(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_multi", {"--partition", "0/2", "--until-end"}),
                  log_path("worker0-last"));
    Process last1(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_multi", {"--partition", "1/2", "--until-end"}),
                  log_path("worker1-last"));
    last0.start();
    last1.start();
    Process single(SLUICE_PIPELINE_CLI, run_args(mariadb_url(), "js_single", {"--from-gtid", start, "--until-end"}),
                   log_path("single"));
    single.start();
    ASSERT_EQ(last0.wait(), 0) << read_file(last0.log());
    ASSERT_EQ(last1.wait(), 0) << read_file(last1.log());
    ASSERT_EQ(single.wait(), 0) << read_file(single.log());

    const std::vector<Rows> want = sink("js_single");
    EXPECT_GT(want[0].size(), 20U);
    EXPECT_GT(want[1].size(), 5U);  // late rows
    EXPECT_GT(want[2].size(), 2U);  // rejected rows (NULL ts)
    const std::vector<Rows> have = sink("js_multi");
    expect_equal_sinks(have, want);

    // The stream: every transaction once, in commit order.
    nats::JetStreamClient c = nats::JetStreamClient::connect(cluster_->urls());
    auto state = c.stream_state(stream);
    ASSERT_TRUE(state);
    std::vector<std::string> seen;
    for (std::uint64_t s = state->first_seq; s <= state->last_seq; ++s) {
        nats::StoredMessage m = c.message(stream, s);
        if (m.data.find("\"ddl\":") != std::string::npos) continue;
        seen.push_back(m.header(js::gtid_header, stream));
    }
    EXPECT_EQ(seen, gtids);

    // A worker with no state catches up from the stream's first message.
    Process fresh(SLUICE_PIPELINE_CLI, run_args(nats_source, "js_fresh", {"--until-end"}), log_path("fresh"));
    fresh.start();
    ASSERT_EQ(fresh.wait(), 0) << read_file(fresh.log());
    EXPECT_EQ(sink("js_fresh"), want);

    for (const char* name : {"publisher", "worker0", "worker1", "publisher-last", "worker0-last", "worker1-last", "single", "fresh"})
        std::filesystem::remove(log_path(name));
}

// Bad stream arguments are usage errors (exit 2) naming the argument;
// a stream that does not exist yet is waited for (retried), not an error.
TEST_F(PipelineJetStream, BadStreamArgumentsAreUsageErrors) {
    auto run = [&](const std::string& source, std::vector<std::string> extra) {
        return run_pipeline(run_args(source, "js_usage", std::move(extra)), log_path("usage"));
    };
    Outcome o = run(cluster_->urls(), {});
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.log.find("expected nats://HOST:PORT?stream=NAME"), std::string::npos) << o.log;
    o = run(cluster_->urls() + "?stream=S&from=1", {});
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.log.find("unknown parameter \"from=1\""), std::string::npos) << o.log;
    o = run(cluster_->urls() + "?stream=A.B", {});
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.log.find("\"A.B\" is not a stream name"), std::string::npos) << o.log;
    for (const char* bad : {"2/2", "1", "-1/2", "0/0", "a/b", "0/2x"}) {
        o = run(cluster_->urls() + "?stream=S", {"--partition", bad});
        EXPECT_EQ(o.status, 2) << bad;
        EXPECT_NE(o.log.find(std::string("--partition \"") + bad + "\": expected I/N with 0 <= I < N <= 1024"),
                  std::string::npos)
            << o.log;
    }
    o = run(mariadb_url(), {"--partition", "0/2"});
    EXPECT_EQ(o.status, 2);
    EXPECT_NE(o.log.find("--partition needs a nats://HOST:PORT?stream=NAME source"), std::string::npos) << o.log;
    // A missing stream: the worker waits (retries) for the publisher.
    drop("js_usage");
    Process waiting(SLUICE_PIPELINE_CLI, run_args(cluster_->urls() + "?stream=NOT_YET", "js_usage", {}), log_path("usage"));
    std::filesystem::remove(waiting.log());
    waiting.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_TRUE(waiting.kill()) << read_file(waiting.log());
    EXPECT_NE(read_file(waiting.log()).find("stream \"NOT_YET\" does not exist (yet)"), std::string::npos)
        << read_file(waiting.log());
    std::filesystem::remove(waiting.log());
}

}  // namespace
}  // namespace sluice::pipeline::test
