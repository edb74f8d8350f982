// run() (run.hpp), the one run loop, over a scripted in-memory Source (our
// own interface, not a server) into the real sink on the fixture's
// PostgreSQL: what it applies and commits, snapshots (done and aborted),
// the replay gate after a restore, a source lost or ended before the
// stored position.
#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <sstream>
#include <thread>

#include "pipeline_support.hpp"
#include "sluice/pipeline/run.hpp"

namespace sluice::pipeline {
namespace {

using test::pg_url;
using V = SourceValue;

// One scripted event: a transaction of inserts, snapshot rows, a snapshot's
// end, a skipped position, the end, a lost source.
struct Event {
    Step::Kind kind = Step::Kind::transaction;
    std::vector<std::tuple<std::string, std::string, std::int64_t>> rows;  // (id, key, ts), value 1
    std::string text;
    bool moves = true;  // the position moves (a transaction, a line)
    std::function<void()> before;  // run as next() takes the event
};

Event tx(std::vector<std::tuple<std::string, std::string, std::int64_t>> rows) {
    return Event{Step::Kind::transaction, std::move(rows), "", true, {}};
}
Event snapshot_rows(std::vector<std::tuple<std::string, std::string, std::int64_t>> rows) {
    return Event{Step::Kind::snapshot_rows, std::move(rows), "", true, {}};
}
Event event(Step::Kind kind, std::string text = "") { return Event{kind, {}, std::move(text), true, {}}; }

// Positions "fake:N": N events that moved the position were read.
class ScriptedSource final : public Source {
public:
    explicit ScriptedSource(std::string name, std::deque<Event> script) : name_(std::move(name)), script_(std::move(script)) {}

    std::string state_name() const override { return name_; }
    Partition partition() const override { return {}; }
    bool shares_sink_tables() const override { return false; }
    BatchLimits batch_limits(const BatchLimits& asked) const override { return asked; }
    void check() override {}
    void open(const std::optional<Resume>& resume) override {
        resume_ = resume;
        if (resume) {
            position_ = seq(resume->checkpoint_position);
            stored_ = seq(resume->stored_position);
        }
    }
    bool before_stored() const override { return position_ < stored_; }
    Error ended_before_stored() const override {
        return Error(ErrorKind::sink_state, "ended at " + std::to_string(position_) + ", before " + std::to_string(stored_));
    }

    Step next(TransactionMapper& mapper, bool) override {
        Step step;
        if (script_.empty()) {
            step.kind = Step::Kind::end;
            return step;
        }
        current_ = std::move(script_.front());
        script_.pop_front();
        if (current_.before) current_.before();
        step.kind = current_.kind;
        step.text = current_.text;
        if (current_.kind == Step::Kind::snapshot_rows && !in_snapshot_) {
            in_snapshot_ = true;
            before_snapshot_ = position_;
        }
        if (current_.kind == Step::Kind::snapshot_done || current_.kind == Step::Kind::snapshot_aborted) in_snapshot_ = false;
        if (current_.kind == Step::Kind::transaction) {
            mapper.begin();
            text_ = "0-1-" + std::to_string(position_ + 1);
            step.text = text_;
            for (SourceChange& c : changes(current_)) mapper.add(c);
        }
        if (current_.kind == Step::Kind::snapshot_rows) {
            // The rows' text must last until the snapshot's end: kept.
            kept_.push_back(current_);
            const std::vector<SourceChange>& c = changes(kept_.back());
            rows_.assign(c.begin(), c.end());
            step.rows = rows_;
        }
        if (current_.kind != Step::Kind::end && current_.kind != Step::Kind::lost && current_.kind != Step::Kind::idle)
            ++position_;
        return step;
    }
    void read_transaction_again(TransactionMapper& mapper) override {
        mapper.begin();
        for (SourceChange& c : changes(current_)) mapper.add(c);
    }
    bool resumable() const override { return !in_snapshot_; }
    std::string position() const override { return "fake:" + std::to_string(in_snapshot_ ? before_snapshot_ : position_); }
    bool input_pending() const override { return false; }
    std::string progress_where() const override { return "fake: "; }
    bool progress_shows_sink_time() const override { return false; }

    const std::optional<Resume>& resume() const { return resume_; }

private:
    static std::uint64_t seq(const std::string& text) { return std::stoull(text.substr(5)); }
    std::vector<SourceChange>& changes(Event& e) {
        storage_.emplace_back();
        for (auto& [id, key, ts] : e.rows) {
            SourceChange c;
            c.op = SourceChange::Op::insert;
            c.after = RowImage{V::of_text(id), V::of_text(key), V::of_signed(ts), V::of_double(1)};
            storage_.back().push_back(c);
        }
        return storage_.back();
    }

    std::string name_;
    std::deque<Event> script_;
    Event current_;
    std::deque<Event> kept_;
    std::deque<std::vector<SourceChange>> storage_;
    std::vector<SourceChange> rows_;
    std::string text_;
    std::optional<Resume> resume_;
    std::uint64_t position_ = 0, stored_ = 0, before_snapshot_ = 0;
    bool in_snapshot_ = false;
};

RunOptions options(const std::string& name) {
    RunOptions o;
    o.db = "shop";
    o.table = "clicks";
    o.columns = ColumnNames{"id", "k", "ts", "v"};
    o.sink_url = pg_url();
    o.sink_table = name;
    o.gap = 10;
    o.lateness = 20;
    o.until_end = true;
    o.progress = false;
    return o;
}

std::string stored_position(postgres::Connection& pg, const std::string& name) {
    for (postgres::Row r : pg.query("select gtid from sluice_pipeline_state where name = $1", {name}))
        return r.get<std::string>(0);
    return "(none)";
}

struct RunLoop : ::testing::Test {
    void SetUp() override {
        pg.emplace(postgres::Connection::open(pg_url()));
        test::drop_sink(*pg, name);
    }
    void TearDown() override { test::drop_sink(*pg, name); }

    // One run of `script` on a fresh sink connection, as run_once does it.
    RunStats run_script(std::deque<Event> script, RunStats stats = {}, ScriptedSource** seen = nullptr,
                        std::size_t part_changes = RunOptions{}.part_changes) {
        source.emplace(name, std::move(script));
        if (seen) *seen = &*source;
        Sink sink = Sink::open(pg_url(), name, source->state_name());
        std::ostringstream log;
        RunOptions o = options(name);
        o.part_changes = part_changes;
        run(*source, sink, o, stats, log);
        return stats;
    }

    // One sink NAME per test: ctest runs them side by side.
    const std::string name =
        "run_loop_" + std::to_string(std::hash<std::string>{}(
                          ::testing::UnitTest::GetInstance()->current_test_info()->name()) %
                      1000000007);
    std::optional<postgres::Connection> pg;
    std::optional<ScriptedSource> source;
};

TEST_F(RunLoop, AppliesTransactionsCommitsAtTheSourcePositionAndCountsThem) {
    const RunStats s = run_script({tx({{"a", "k1", 1}, {"b", "k1", 3}}), event(Step::Kind::skipped), tx({{"c", "k2", 50}})});
    EXPECT_EQ(s.source_transactions, 2u);
    EXPECT_EQ(s.row_changes, 3u);
    EXPECT_GE(s.sink_commits, 1u);
    EXPECT_EQ(stored_position(*pg, name), "fake:3");
    const test::Sessions sessions = test::sink_sessions(*pg, name);
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions.at({"k1", 1}).count, 2);
    EXPECT_EQ(sessions.at({"k1", 1}).end, 13);  // the last event plus the gap
    EXPECT_EQ(sessions.at({"k2", 50}).count, 1);
}

TEST_F(RunLoop, ASnapshotIsOneTransactionAtItsDoneStepAndAnAbortedOneIsDropped) {
    const RunStats s = run_script({snapshot_rows({{"x", "gone", 1}}), event(Step::Kind::snapshot_aborted),
                                   snapshot_rows({{"a", "k1", 1}}), snapshot_rows({{"b", "k1", 2}, {"c", "k2", 40}}),
                                   event(Step::Kind::snapshot_done, "0-1-9")});
    EXPECT_EQ(s.source_transactions, 0u);  // a snapshot is not a source transaction
    EXPECT_EQ(s.row_changes, 0u);          // nor are its rows row changes (issue 32's progress line)
    EXPECT_EQ(s.snapshot_rows, 3u);        // the aborted snapshot's row is not counted
    const test::Sessions sessions = test::sink_sessions(*pg, name);
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions.at({"k1", 1}).count, 2);
    EXPECT_EQ(sessions.count({"gone", 1}), 0u);
    EXPECT_EQ(stored_position(*pg, name), "fake:5");
}

// Issue 25: a snapshot's chunks are applied as they come (no row of it is
// held until its done step), and its parts survive the idle steps a
// polling source gives between chunks (a JetStream worker waiting for the
// next chunk: abandoning them there lost the snapshot's first chunks).
TEST_F(RunLoop, ASnapshotsChunksAppliedAsTheyComeSurviveIdleStepsBetweenThem) {
    const RunStats s = run_script({snapshot_rows({{"a", "k1", 1}}), event(Step::Kind::idle),
                                   snapshot_rows({{"b", "k1", 2}, {"c", "k2", 40}}), event(Step::Kind::idle),
                                   event(Step::Kind::snapshot_done, "0-1-9")});
    EXPECT_EQ(s.snapshot_rows, 3u);
    EXPECT_EQ(s.in_flight, 0u);
    const test::Sessions sessions = test::sink_sessions(*pg, name);
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions.at({"k1", 1}).count, 2);
    EXPECT_EQ(sessions.at({"k2", 40}).count, 1);
}

// A snapshot Tideweave refuses in its second chunk (an id it holds): its
// first chunk, applied already, is taken back, and all its rows are read
// back from the run's spill file into NAME_rejected.
TEST_F(RunLoop, ASnapshotRefusedAfterItsFirstChunkIsReadBackAndRejectedWhole) {
    const RunStats s = run_script({snapshot_rows({{"a", "k1", 1}, {"b", "k1", 2}}), event(Step::Kind::idle),
                                   snapshot_rows({{"c", "k2", 40}, {"a", "k2", 41}}),
                                   event(Step::Kind::snapshot_done, "0-1-9")});
    EXPECT_EQ(s.snapshot_rows, 4u);
    EXPECT_EQ(s.rejected, 4u);
    EXPECT_TRUE(test::sink_sessions(*pg, name).empty());
    std::vector<std::string> rejected;
    for (postgres::Row r : pg->query("select gtid, seq::text, id, reason from \"" + name + "_rejected\" order by seq"))
        rejected.push_back(r.get<std::string>(0) + " " + r.get<std::string>(1) + " " + r.get<std::string>(2) + " " +
                           r.get<std::string>(3).substr(0, 33));
    EXPECT_EQ(rejected, (std::vector<std::string>{"snapshot:0-1-9 0 a transaction rejected by Tideweave",
                                                  "snapshot:0-1-9 1 b transaction rejected by Tideweave",
                                                  "snapshot:0-1-9 2 c transaction rejected by Tideweave",
                                                  "snapshot:0-1-9 3 a transaction rejected by Tideweave"}));
}

TEST_F(RunLoop, TransactionsInPartsAreAppliedWholeAndARefusedOneIsReadAgainAndRejectedWhole) {
    // Parts of 2 changes: the first transaction comes in three parts; the
    // second is refused by the engine at its last part (id f again), after
    // its first part was applied, and is read from the source again.
    const RunStats s = run_script({tx({{"a", "k1", 1}, {"b", "k1", 2}, {"c", "k1", 3}, {"d", "k2", 40}, {"e", "k2", 41}}),
                                   tx({{"f", "k3", 60}, {"g", "k3", 61}, {"f", "k3", 62}}), tx({{"h", "k4", 80}})},
                                  {}, nullptr, 2);
    EXPECT_EQ(s.source_transactions, 3u);
    EXPECT_EQ(s.row_changes, 9u);
    EXPECT_EQ(s.rejected, 3u);
    EXPECT_EQ(s.in_flight, 0u);
    EXPECT_EQ(stored_position(*pg, name), "fake:3");
    const test::Sessions sessions = test::sink_sessions(*pg, name);
    ASSERT_EQ(sessions.size(), 3u);
    EXPECT_EQ(sessions.at({"k1", 1}).count, 3);
    EXPECT_EQ(sessions.at({"k2", 40}).count, 2);
    EXPECT_EQ(sessions.at({"k4", 80}).count, 1);
    std::vector<std::string> rejected;
    for (postgres::Row r : pg->query("select gtid, seq::text, id, reason from \"" + name + "_rejected\" order by seq"))
        rejected.push_back(r.get<std::string>(0) + " " + r.get<std::string>(1) + " " + r.get<std::string>(2) + " " +
                           r.get<std::string>(3).substr(0, 33));
    EXPECT_EQ(rejected, (std::vector<std::string>{"0-1-2 0 f transaction rejected by Tideweave",
                                                  "0-1-2 1 g transaction rejected by Tideweave",
                                                  "0-1-2 2 f transaction rejected by Tideweave"}));
}

TEST_F(RunLoop, NothingIsCommittedInsideAnOpenSnapshot) {
    // The run ends inside the snapshot: what it commits is the position
    // before the snapshot's first rows, without them.
    run_script({tx({{"a", "k1", 1}}), snapshot_rows({{"b", "k2", 5}})});
    EXPECT_EQ(stored_position(*pg, name), "fake:1");
    EXPECT_EQ(test::sink_sessions(*pg, name).size(), 1u);
}

TEST_F(RunLoop, ALostSourceCommitsWhatWasReadThenThrowsSourceEnded) {
    try {
        run_script({tx({{"a", "k1", 1}}), event(Step::Kind::lost, "the fake went away")});
        FAIL() << "run() returned after a lost source";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::source_ended);
        EXPECT_STREQ(e.what(), "the fake went away");
        EXPECT_TRUE(e.transient());
    }
    EXPECT_EQ(stored_position(*pg, name), "fake:1");
}

TEST_F(RunLoop, ARestoreReplaysFromTheCheckpointAndHoldsCommitsBackUntilPastTheStoredPosition) {
    // Three commits; only the first carries the checkpoint (every 16th).
    RunStats s = run_script({tx({{"a", "k1", 1}}), tx({{"b", "k1", 2}}), tx({{"c", "k1", 3}})});
    ASSERT_EQ(s.sink_commits, 3u);
    ASSERT_EQ(stored_position(*pg, name), "fake:3");
    const test::Sessions before = test::sink_sessions(*pg, name);

    // The restart resumes after the checkpoint's position (fake:1), replays
    // 2 and 3 and goes on with 4: the replay is one commit at 3, not one
    // at 2 (that would move the state row back to a position before what
    // the sink holds), then 4.
    ScriptedSource* seen = nullptr;
    s = run_script({tx({{"b", "k1", 2}}), tx({{"c", "k1", 3}}), tx({{"d", "k1", 4}})}, s, &seen);
    ASSERT_TRUE(seen->resume().has_value());
    EXPECT_EQ(seen->resume()->checkpoint_position, "fake:1");
    EXPECT_EQ(seen->resume()->stored_position, "fake:3");
    EXPECT_EQ(s.sink_commits, 5u);
    EXPECT_EQ(stored_position(*pg, name), "fake:4");
    const test::Sessions after = test::sink_sessions(*pg, name);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after.at({"k1", 1}).count, 4);  // b and c replayed, not counted twice
    EXPECT_EQ(before.at({"k1", 1}).count, 3);
}

TEST_F(RunLoop, ASourceThatEndsBeforeTheStoredPositionIsASinkStateError) {
    run_script({tx({{"a", "k1", 1}}), tx({{"b", "k1", 2}}), tx({{"c", "k1", 3}})});
    try {
        run_script({tx({{"b", "k1", 2}})});
        FAIL() << "run() accepted a source that ended before the stored position";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::sink_state);
        EXPECT_STREQ(e.what(), "ended at 2, before 3");
    }
    EXPECT_EQ(stored_position(*pg, name), "fake:3");
}

TEST_F(RunLoop, ARestartWithOtherSettingsIsRefusedNamingTheStateRow) {
    run_script({tx({{"a", "k1", 1}})});
    source.emplace(name, std::deque<Event>{});
    Sink sink = Sink::open(pg_url(), name, name);
    RunOptions other = options(name);
    other.gap = 11;
    RunStats stats;
    std::ostringstream log;
    try {
        run(*source, sink, other, stats, log);
        FAIL() << "run() restored state written with other settings";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::sink_state);
        EXPECT_EQ(std::string(e.what()), "\"" + name + "\" was written with " + settings_text(options(name)) + ", not " +
                                             settings_text(other) +
                                             " (use another --sink-table, or drop its tables and its "
                                             "sluice_pipeline_state row to start over)");
    }
}

// Issue 25, the sink's side of rows put final ahead (OpenSinkRows): a
// slice writes them with final = true inside the open transaction; the
// commit's finalization of one writes nothing, and one it did not reach is
// set back to open before the commit, and is then held open (a later put
// of it is an upsert, not a COPY that would fail on the primary key).
TEST_F(RunLoop, TheSinkLeavesRowsPutFinalAheadInPlaceAndSetsBackOpenThoseTheCommitDidNotFinalize) {
    Sink sink = Sink::open(pg_url(), name, name);
    ASSERT_FALSE(sink.load().has_value());
    sink.create_tables();
    SinkBatch slice;
    slice.savepoint();
    slice.put_final_ahead(tideweave::Row{"a", 0, 10, 1, 1, 1, 1, false});
    slice.put_final_ahead(tideweave::Row{"c", 0, 10, 1, 2, 2, 2, false});
    SinkBatch sent;
    slice.move_sessions_to(sent);
    sink.write_slice(sent, std::nullopt, false);
    SinkBatch commit;  // c finalized as the slice put it; a not reached
    commit.finalize(tideweave::Row{"c", 0, 10, 1, 2, 2, 2, true});
    commit.put(tideweave::Row{"b", 5, 15, 1, 3, 3, 3, false});
    const std::string checkpoint = "cp";
    sink.commit(commit, std::nullopt, "fake:1", &checkpoint, "settings", false);
    EXPECT_EQ(sink.rows_final_in_place(), 1U);
    EXPECT_EQ(sink.rows_reopened(), 1U);
    test::Sessions sessions = test::sink_sessions(*pg, name);
    ASSERT_EQ(sessions.size(), 3U);
    EXPECT_FALSE(sessions.at({"a", 0}).final);
    EXPECT_TRUE(sessions.at({"c", 0}).final);
    EXPECT_EQ(sessions.at({"c", 0}).sum, 2);
    EXPECT_FALSE(sessions.at({"b", 5}).final);
    SinkBatch next;  // a grows and becomes final: held open, so upserted
    next.remove(tideweave::Row{"a", 0, 10, 1, 1, 1, 1, false});
    next.put(tideweave::Row{"a", 0, 12, 2, 5, 1, 4, false});
    next.finalize(tideweave::Row{"a", 0, 12, 2, 5, 1, 4, true});
    sink.commit(next, std::string("fake:1"), "fake:2", nullptr, "settings", false);
    sessions = test::sink_sessions(*pg, name);
    EXPECT_TRUE(sessions.at({"a", 0}).final);
    EXPECT_EQ(sessions.at({"a", 0}).count, 2);
    EXPECT_EQ(sink.rows_reopened(), 1U);
    EXPECT_EQ(stored_position(*pg, name), "fake:2");
}

// make_source: the URL picks the source (nothing is contacted before
// check()), and each source names its state row and its batch limits.
// Workers of one stream create the sink's tables at the same moment
// (Sink::create_tables(shared)). The other creator here is a transaction
// holding CREATE TABLE NAME uncommitted: this sink's create waits on it
// (PostgreSQL's catalog index) and, once it commits, meets the duplicate
// (23505 on pg_type, or 42P07). Shared, the sink creates again and has its
// tables; unshared, the duplicate is the error. (The other creator's table
// is a copy of a sink's, as the winning worker's would be.)
TEST_F(RunLoop, ASinkThatLosesTheCreateTableRaceCreatesAgainWhenItsTablesAreShared) {
    const std::string model = name + "_model";
    test::drop_sink(*pg, model);
    {
        Sink first = Sink::open(pg_url(), model, model);
        ASSERT_FALSE(first.load().has_value());
        first.create_tables();
    }
    for (const bool shared : {true, false}) {
        SCOPED_TRACE(shared ? "shared" : "unshared");
        test::drop_sink(*pg, name);
        auto other = postgres::Connection::open(pg_url());
        other.run_script("begin");
        other.run_script("create table \"" + name + "\" (like \"" + model + "\" including all)");
        Sink sink = Sink::open(pg_url(), name, name);
        ASSERT_FALSE(sink.load().has_value());
        std::string failure;
        std::thread creator([&] {
            try {
                sink.create_tables(shared);
            } catch (const postgres::Error& e) {
                failure = e.sqlstate() + " " + e.what();
            }
        });
        // Until the sink's CREATE waits for the other transaction's lock.
        bool waited = false;
        for (int i = 0; i < 300 && !waited; ++i) {
            waited = pg->query("select count(*) from pg_stat_activity where wait_event_type = 'Lock' and "
                               "pid <> pg_backend_pid() and query like '%create table if not exists \"" + name + "\"%'")
                         .row(0)
                         .get<std::string>(0) != "0";
            if (!waited) std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        other.run_script("commit");
        creator.join();
        ASSERT_TRUE(waited) << "the sink's CREATE TABLE never waited for the other creator";
        if (shared) {
            EXPECT_EQ(failure, "");
            EXPECT_EQ(pg->query("select count(*) from pg_tables where tablename in ('" + name + "_late', '" + name +
                                "_rejected')")
                          .row(0)
                          .get<std::string>(0),
                      "2");
        } else {
            EXPECT_TRUE(failure.rfind("23505", 0) == 0 || failure.rfind("42P07", 0) == 0) << failure;
        }
    }
    test::drop_sink(*pg, model);
}

// A commit that fails in the writer while the source gives only idle steps
// after it (a JetStream worker polling a quiet stream) fails the run at the
// next of them, not at the source's next transaction, which may be long in
// coming (PipelineService.ASinkLostUnderAQuietSource... is the binlog's
// case). Before the second transaction the state row is moved as another
// writer would, so its commit fails (sink_moved: only the commit reads the
// state row); then up to 3,000 idle steps of 10 ms each.
TEST_F(RunLoop, ACommitThatFailsWhileTheSourceIsIdleFailsTheRunAtTheNextIdleStep) {
    constexpr int idle_steps = 3000;
    int idles_taken = 0;
    std::deque<Event> script{tx({{"1", "a", 0}}), tx({{"2", "b", 1}})};
    script.back().before = [&] {
        // Once the first commit has written the state row.
        for (int i = 0; i < 1000 && stored_position(*pg, name) != "fake:1"; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        pg->query("update sluice_pipeline_state set gtid = 'moved by the test' where name = $1", {name});
    };
    for (int i = 0; i < idle_steps; ++i) {
        script.push_back(event(Step::Kind::idle));
        script.back().before = [&] {
            ++idles_taken;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        };
    }
    std::string failure;
    try {
        run_script(std::move(script));
    } catch (const std::exception& e) {
        failure = e.what();
    }
    EXPECT_NE(failure.find("was changed by another writer"), std::string::npos) << failure;
    EXPECT_LT(idles_taken, idle_steps) << "the failed commit was found only at the end of the source";
}

TEST(MakeSource, TheUrlPicksTheSourceItsStateRowAndItsBatchLimits) {
    Options o;
    o.run = options("t");
    o.run.batch.catch_up_age = std::chrono::seconds(1);
    o.jetstream.partition = Partition{1, 3};
    o.source_url = "nats://127.0.0.1:1?stream=S";
    const std::unique_ptr<Source> worker = make_source(o);
    EXPECT_EQ(worker->state_name(), "t#1/3");
    EXPECT_EQ(worker->partition(), (Partition{1, 3}));
    EXPECT_TRUE(worker->shares_sink_tables());
    EXPECT_EQ(worker->batch_limits(o.run.batch).catch_up_age, o.run.batch.age);  // no catch-up mode

    o.source_url = "mariadb://u@127.0.0.1:1/";
    const std::unique_ptr<Source> binlog = make_source(o);
    EXPECT_EQ(binlog->state_name(), "t");
    EXPECT_EQ(binlog->partition(), Partition{});
    EXPECT_FALSE(binlog->shares_sink_tables());
    EXPECT_EQ(binlog->batch_limits(o.run.batch).catch_up_age, o.run.batch.catch_up_age);

    o.source_url = "nats://127.0.0.1:1?stream=a.b";
    try {
        make_source(o);
        FAIL() << "made a source of a bad stream name";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_STREQ(e.what(), "--source nats://127.0.0.1:1?stream=a.b: \"a.b\" is not a stream name");
    }
}

}  // namespace
}  // namespace sluice::pipeline
