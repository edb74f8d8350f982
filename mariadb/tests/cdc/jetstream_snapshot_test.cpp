// `sluice-mariadb cdc --snapshot --to nats://...`: a snapshot published
// through SIGKILLs of the publisher in the middle of it (many small chunks),
// against the shared private MariaDB (tables of database cdc_jetstream) and
// a three-node NATS JetStream cluster of the program's own. The rule under
// test (docs/mariadb-cdc.md, "Snapshots"): a snapshot cut off by a kill is
// closed by an abort message (sluice envelope) and the stream then counts as
// empty, so a restart with --snapshot takes a new one and a restart without
// it starts as its --from-* flag says.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <map>
#include <set>
#include <thread>

#include "../../../nats/tests/jetstream_reads.hpp"
#include "../../../nats/tests/nats_cluster.hpp"
#include "cdc_support.hpp"
#include "cli_child.hpp"
#include "json_scan.hpp"
#include "sluice/mariadb/jetstream/cdc_messages.hpp"
#include "sluice/nats/client.hpp"

namespace sluice::mariadb::test {
namespace {

using namespace std::chrono_literals;
namespace js = sluice::mariadb::jetstream;

bool has(const nats::StoredMessage& m, const char* header) { return m.headers.count(header) > 0; }

class CdcJetStreamSnapshot : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        cluster_ = new sluice::test::NatsCluster("cdc-jetstream-snapshot");
        Connection c = Connection::connect(admin_options());
        c.execute("CREATE DATABASE IF NOT EXISTS cdc_jetstream");
    }
    static void TearDownTestSuite() {
        delete cluster_;
        cluster_ = nullptr;
    }
    void SetUp() override {
        ASSERT_TRUE(cluster_->started()) << cluster_->log();
        conn_.emplace(Connection::connect(admin_options()));
        nats::ClientOptions quick;
        quick.api_wait_ms = 1000;  // polled while publishers run: fail fast, ask again
        client_.emplace(nats::JetStreamClient::connect(cluster_->urls(), quick));
        // A cluster just started answers the JetStream API only once it has
        // elected its meta leader: wait for that before timing any kill.
        last_seq("NOT_A_STREAM");
    }
    Connection& sql() { return *conn_; }
    // A table of `rows` rows (id 1..rows), created after `start_`.
    void table(const std::string& name, int rows) {
        sql().execute("DROP TABLE IF EXISTS cdc_jetstream." + name);
        start_ = binlog_pos(sql());
        sql().execute("CREATE TABLE cdc_jetstream." + name + " (id INT PRIMARY KEY, pad VARCHAR(40))");
        sql().execute("SET SESSION max_recursive_iterations = 1000000");
        sql().execute("INSERT INTO cdc_jetstream." + name +
                      " WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < " +
                      std::to_string(rows) + ") SELECT n, REPEAT('p', 30) FROM s");
    }
    std::string log_path(const std::string& name) const {
        std::filesystem::create_directories(SLUICE_OWN_SERVERS_DIR);
        return std::string(SLUICE_OWN_SERVERS_DIR) + "/" + name + "-" + std::to_string(::getpid()) + ".log";
    }
    // (Right after the cluster starts, or while a publisher creates the
    // stream, the JetStream API may time out for a moment: asked again.)
    std::uint64_t last_seq(const std::string& stream) { return sluice::test::last_seq(*client_, stream); }
    std::vector<nats::StoredMessage> messages(const std::string& stream) {
        return sluice::test::stored_messages(*client_, stream);
    }
    // Starts the publisher, lets it store `at_least` more messages, SIGKILLs
    // it; true when the stream then ends inside an unfinished snapshot.
    bool kill_mid_snapshot(const std::vector<std::string>& args, const std::string& stream, std::uint64_t at_least,
                           const std::string& log) {
        const std::uint64_t base = last_seq(stream);
        pid_t pid = spawn_cli(args, log);
        for (int i = 0; i < 3000 && last_seq(stream) < base + at_least; ++i) std::this_thread::sleep_for(5ms);
        ::kill(pid, SIGKILL);
        EXPECT_EQ(wait_exit(pid), -1) << "the publisher exited by itself:\n" << read_file(log);
        const std::uint64_t last = last_seq(stream);
        if (last == 0) return false;
        const nats::StoredMessage m = client_->message(stream, last);
        return has(m, js::snapshot_header) && !has(m, js::snapshot_end_header);
    }
    // Inserts row `id` (the database moves on between snapshots).
    void insert(int id) {
        sql().execute("INSERT INTO cdc_jetstream.snap VALUES (" + std::to_string(id) + ", 'moved on')");
    }

    static sluice::test::NatsCluster* cluster_;
    std::optional<Connection> conn_;
    std::optional<nats::JetStreamClient> client_;
    std::string start_;
};
sluice::test::NatsCluster* CdcJetStreamSnapshot::cluster_ = nullptr;

std::vector<int> ids_of_chunk(const std::string& data) {
    std::vector<int> ids;
    for (const std::string& row : elements(member(data, "rows"))) ids.push_back(std::stoi(member(row, "id")));
    return ids;
}

// Sluice envelope: kills in the middle of the snapshot (the database moving
// on between them), then a run to the end, then a run that continues from
// the done message instead of taking another snapshot. The stream holds
// groups of chunks each closed by an abort, then one complete snapshot of
// every row once, its done message carrying the resume state, then each
// later transaction once.
TEST_F(CdcJetStreamSnapshot, AKilledSnapshotIsAbortedAndTakenAgainAndTheCompleteOneIsInTheStreamOnce) {
    constexpr int rows = 20000;  // 4000 chunks: a kill lands inside the snapshot
    table("snap", rows);
    const std::string stream = "SNAP";
    const std::string log = log_path("jetstream-snapshot");
    std::filesystem::remove(log);
    const std::vector<std::string> args = {"cdc",          url_of(admin_options()), "--snapshot",
                                           "--snapshot-chunk-rows", "5",         "--tables",
                                           "cdc_jetstream.snap",    "--to",      cluster_->urls(),
                                           "--stream",     stream,             "--window", "16"};
    int mid_snapshot = 0;
    std::vector<int> moved;  // rows inserted between the kills
    for (int k = 0; k < 4; ++k) {
        if (kill_mid_snapshot(args, stream, 3 + static_cast<std::uint64_t>(k) * 20, log)) ++mid_snapshot;
        moved.push_back(100001 + k);
        insert(moved.back());
    }
    EXPECT_GE(mid_snapshot, 3) << "the kills should land inside the snapshot (4000 chunks)";
    std::vector<std::string> last = args;
    last.push_back("--until-end");
    ASSERT_EQ(wait_exit(spawn_cli(last, log)), 0) << read_file(log);
    // After the complete snapshot: a restart with the same command continues
    // from the done message (no second snapshot).
    std::vector<std::string> after_gtids;
    for (int id : {200001, 200002, 200003}) {
        insert(id);
        after_gtids.push_back(scalar(sql(), "SELECT @@session.last_gtid"));
    }
    ASSERT_EQ(wait_exit(spawn_cli(last, log)), 0) << read_file(log);

    // Read the stream back, group by group.
    std::set<std::string> ids;
    std::optional<std::string> open;  // the open snapshot's id
    std::uint64_t next_chunk = 1;
    std::int64_t last_started = -1;
    int aborted = 0, done = 0;
    std::vector<int> complete_rows;  // of the snapshot that got its done message
    std::vector<int> current_rows;
    std::string done_state;
    std::vector<std::string> tail_gtids;
    for (const nats::StoredMessage& m : messages(stream)) {
        EXPECT_TRUE(ids.insert(m.header(js::msg_id_header, stream)).second) << "repeated id at " << m.seq;
        EXPECT_EQ(m.subject, stream);
        if (!has(m, js::snapshot_header)) {
            EXPECT_EQ(done, 1) << "a transaction before the snapshot's done message, at " << m.seq;
            EXPECT_FALSE(open) << "a transaction inside snapshot " << *open << " at " << m.seq;
            if (member(m.data, "ddl").empty()) tail_gtids.push_back(m.header(js::gtid_header, stream));
            continue;
        }
        const std::string id = m.header(js::snapshot_header, stream);
        const js::SnapshotId parsed = js::SnapshotId::parse(id, "test");
        if (!has(m, js::snapshot_end_header)) {  // a chunk
            if (!open) {
                EXPECT_GT(parsed.started_ms, last_started) << "snapshot ids must differ: " << id;
                last_started = parsed.started_ms;
                open = id;
                next_chunk = 1;
                current_rows.clear();
            }
            EXPECT_EQ(id, *open) << "a chunk of another snapshot inside " << *open << " at " << m.seq;
            EXPECT_EQ(m.header(js::snapshot_chunk_header, stream), std::to_string(next_chunk));
            EXPECT_EQ(m.header(js::msg_id_header, stream), "snapshot:" + id + ":" + std::to_string(next_chunk));
            ++next_chunk;
            EXPECT_EQ(member(member(m.data, "snapshot"), "gtid"), "\"" + parsed.at.to_string() + "\"");
            for (int r : ids_of_chunk(m.data)) current_rows.push_back(r);
            continue;
        }
        const std::string end = m.header(js::snapshot_end_header, stream);
        EXPECT_EQ(m.header(js::msg_id_header, stream), "snapshot:" + id + ":" + end);
        if (end == "aborted") {
            ++aborted;
            EXPECT_TRUE(open && *open == id) << "an abort without its chunks at " << m.seq;
            EXPECT_EQ(m.data, "{\"snapshot\":{\"gtid\":\"" + parsed.at.to_string() + "\",\"aborted\":true}}");
        } else {
            ++done;
            EXPECT_EQ(end, "done");
            EXPECT_EQ(m.data, "{\"snapshot\":{\"gtid\":\"" + parsed.at.to_string() + "\",\"done\":true}}");
            done_state = m.header(js::state_header, stream);
            EXPECT_EQ(done_state, parsed.at.to_string());
            complete_rows = current_rows;
        }
        open.reset();
    }
    EXPECT_FALSE(open) << "the stream ends inside a snapshot";
    EXPECT_EQ(done, 1);
    EXPECT_GE(aborted, mid_snapshot);  // a kill before the first chunk leaves nothing to abort
    // The complete snapshot: every row of its moment once, in key order.
    std::vector<int> want;
    for (int i = 1; i <= rows; ++i) want.push_back(i);
    for (int id : moved) want.push_back(id);
    EXPECT_EQ(complete_rows, want);
    // After it, each later transaction once, in order.
    EXPECT_EQ(tail_gtids, after_gtids);
    EXPECT_NE(read_file(log).find("aborting it, then taking a new snapshot"), std::string::npos) << read_file(log);
    if (!HasFailure()) std::filesystem::remove(log);
}

// The other branch of the rule: restarted without --snapshot, the publisher
// closes the cut-off snapshot and starts as for an empty stream (here after
// --from-gtid): every transaction since then once, nothing of the snapshot
// left open.
TEST_F(CdcJetStreamSnapshot, RestartedWithoutSnapshotItAbortsAndStartsAsForAnEmptyStream) {
    table("snap", 20000);
    const std::string stream = "SNAPGTID";
    const std::string log = log_path("jetstream-snapshot-gtid");
    std::filesystem::remove(log);
    const std::vector<std::string> base = {"cdc",      url_of(admin_options()), "--tables", "cdc_jetstream.snap",
                                           "--to",     cluster_->urls(),        "--stream", stream};
    std::vector<std::string> snapshot = base;
    for (const char* a : {"--snapshot", "--snapshot-chunk-rows", "5", "--window", "8"}) snapshot.push_back(a);
    bool cut = false;
    for (int attempt = 0; attempt < 5 && !cut; ++attempt) cut = kill_mid_snapshot(snapshot, stream, 4, log);
    ASSERT_TRUE(cut) << "no kill landed inside the snapshot:\n" << read_file(log);
    const std::uint64_t cut_at = last_seq(stream);
    insert(100001);
    const std::string gtid = scalar(sql(), "SELECT @@session.last_gtid");
    std::vector<std::string> from_gtid = base;
    for (const char* a : {"--from-gtid", start_.c_str(), "--until-end"}) from_gtid.push_back(a);
    ASSERT_EQ(wait_exit(spawn_cli(from_gtid, log)), 0) << read_file(log);

    const std::vector<nats::StoredMessage> stored = messages(stream);
    ASSERT_GT(stored.size(), cut_at);
    const nats::StoredMessage& abort = stored[cut_at];  // the message right after the cut
    EXPECT_EQ(abort.header(js::snapshot_end_header, stream), "aborted");
    EXPECT_EQ(abort.header(js::snapshot_header, stream), stored[cut_at - 1].header(js::snapshot_header, stream));
    std::vector<std::string> tail;
    int inserted_rows = 0;
    for (std::size_t i = cut_at + 1; i < stored.size(); ++i) {
        EXPECT_FALSE(has(stored[i], js::snapshot_header)) << stored[i].data;
        tail.push_back(stored[i].header(js::gtid_header, stream));
        if (!member(stored[i].data, "ddl").empty()) continue;
        for (const std::string& c : elements(member(stored[i].data, "changes")))
            if (member(c, "op") == "\"insert\"") ++inserted_rows;
    }
    // The CREATE TABLE, the 20000-row insert, the later insert.
    ASSERT_EQ(tail.size(), 3U);
    EXPECT_EQ(tail.back(), gtid);
    EXPECT_EQ(inserted_rows, 20001);
    EXPECT_NE(read_file(log).find("aborting it, then starting as for an empty stream"), std::string::npos)
        << read_file(log);
    if (!HasFailure()) std::filesystem::remove(log);
}

// Debezium envelope: one `op:"r"` message per row. Debezium restarts an
// interrupted snapshot from scratch and so does the publisher: the rows of
// a cut-off snapshot stay in the stream (at least once), the last complete
// snapshot holds every row exactly once with "last" on its last row only,
// and the changes after it follow once.
TEST_F(CdcJetStreamSnapshot, DebeziumReadRowsEveryRowAtLeastOnceTheLastSnapshotExactlyOnce) {
    constexpr int rows = 4000;
    table("snap", rows);
    const std::string stream = "SNAPDBZ";
    const std::string log = log_path("jetstream-snapshot-dbz");
    std::filesystem::remove(log);
    const std::vector<std::string> args = {"cdc",      url_of(admin_options()), "--snapshot", "--snapshot-chunk-rows",
                                           "7",        "--tables",              "cdc_jetstream.snap",
                                           "--to",     cluster_->urls(),        "--stream",   stream,
                                           "--subject", "shop",                 "--format",   "debezium",
                                           "--window", "4"};
    int mid_snapshot = 0;
    for (int k = 0; k < 3; ++k)
        if (kill_mid_snapshot(args, stream, 10 + static_cast<std::uint64_t>(k) * 40, log)) ++mid_snapshot;
    EXPECT_GE(mid_snapshot, 2);
    std::vector<std::string> last = args;
    last.push_back("--until-end");
    ASSERT_EQ(wait_exit(spawn_cli(last, log)), 0) << read_file(log);
    sql().execute("UPDATE cdc_jetstream.snap SET pad = 'u' WHERE id = 5");
    const std::string update_gtid = scalar(sql(), "SELECT @@session.last_gtid");
    ASSERT_EQ(wait_exit(spawn_cli(last, log)), 0) << read_file(log);

    std::map<int, int> seen;  // row id -> r messages
    std::vector<std::pair<std::string, std::vector<int>>> snapshots;  // id, its rows in order
    std::vector<std::string> lasts;  // ids of rows saying "last"
    std::vector<const nats::StoredMessage*> changes;
    std::set<std::string> msg_ids;
    const std::vector<nats::StoredMessage> stored = messages(stream);
    for (const nats::StoredMessage& m : stored) {
        EXPECT_TRUE(msg_ids.insert(m.header(js::msg_id_header, stream)).second) << "repeated id at " << m.seq;
        EXPECT_EQ(m.subject, "shop.cdc_jetstream.snap");
        if (!has(m, js::snapshot_header)) {
            changes.push_back(&m);
            continue;
        }
        EXPECT_TRUE(changes.empty()) << "a snapshot row after a change, at " << m.seq;
        const std::string id = m.header(js::snapshot_header, stream);
        if (snapshots.empty() || snapshots.back().first != id) snapshots.push_back({id, {}});
        auto& rows_of = snapshots.back().second;
        EXPECT_EQ(m.header(js::snapshot_row_header, stream), std::to_string(rows_of.size() + 1));
        EXPECT_EQ(member(m.data, "op"), "\"r\"");
        EXPECT_EQ(member(m.data, "before"), "null");
        EXPECT_EQ(member(m.data, "transaction"), "null");
        const std::string source = member(m.data, "source");
        EXPECT_EQ(member(source, "db"), "\"cdc_jetstream\"");
        EXPECT_EQ(member(source, "table"), "\"snap\"");
        EXPECT_EQ(member(source, "gtid"), "\"" + js::SnapshotId::parse(id, "test").at.to_string() + "\"");
        const std::string flag = member(source, "snapshot");
        EXPECT_TRUE(flag == "\"true\"" || flag == "\"last\"") << flag;
        if (flag == "\"last\"") {
            lasts.push_back(id);
            EXPECT_EQ(m.header(js::snapshot_end_header, stream), "done");
        } else {
            EXPECT_FALSE(has(m, js::snapshot_end_header));
        }
        const int row = std::stoi(member(member(m.data, "after"), "id"));
        rows_of.push_back(row);
        ++seen[row];
    }
    ASSERT_GE(snapshots.size(), 2U);
    // Every row at least once; the last snapshot complete, exactly once, in
    // key order, "last" on its last row and nowhere else.
    for (int i = 1; i <= rows; ++i) EXPECT_GE(seen[i], 1) << "row " << i;
    std::vector<int> want;
    for (int i = 1; i <= rows; ++i) want.push_back(i);
    EXPECT_EQ(snapshots.back().second, want);
    EXPECT_EQ(lasts, std::vector<std::string>{snapshots.back().first});
    for (std::size_t i = 0; i + 1 < snapshots.size(); ++i) EXPECT_LT(snapshots[i].second.size(), want.size());
    // The change after it, once.
    ASSERT_EQ(changes.size(), 1U);
    EXPECT_EQ(changes[0]->header(js::gtid_header, stream), update_gtid);
    EXPECT_EQ(member(changes[0]->data, "op"), "\"u\"");
    if (!HasFailure()) std::filesystem::remove(log);
}

}  // namespace
}  // namespace sluice::mariadb::test
