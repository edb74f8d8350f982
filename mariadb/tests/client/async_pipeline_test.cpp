// Pipelines on the non-blocking API against the real server: the same
// steps run through the blocking Pipeline and through AsyncPipeline (on a
// poll() loop, and as an AsioConnection coroutine) give the same
// transcript, a failing step among them; batches, stop_on_error, a
// handler's exception, a connection killed mid-pipeline, and
// docs/mariadb.md's example.
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <chrono>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "async_drive.hpp"
#include "asio_run.hpp"
#include "server_env.hpp"
#include "sluice/mariadb/asio_connection.hpp"
#include "sluice/mariadb/async_connection.hpp"
#include "sluice/mariadb/async_pipeline.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/pipeline.hpp"

namespace sluice::mariadb {
namespace {

using test::run_on_one_thread;

using test::drive;

AsyncConnection async_connect() {
    AsyncConnection c;
    c.start_connect(test::admin_options());
    drive(c);
    c.finish();
    return c;
}

std::string text_of(const Error* e) {
    if (!e) return "no error";
    return std::string(to_string(e->kind())) + " " + std::to_string(e->server_code()) + ": " + e->what();
}

std::string summary_text(const PipelineSummary& s) {
    std::string out = "steps " + std::to_string(s.steps) + ", succeeded " + std::to_string(s.succeeded) +
                      ", failed " + std::to_string(s.failed) + ", skipped " + std::to_string(s.skipped) +
                      ", affected " + std::to_string(s.affected_rows) + ", writes " + std::to_string(s.writes);
    for (const auto& [index, error] : s.errors) out += "; unhandled " + std::to_string(index) + ": " + error.what();
    return out;
}

// Queues the same mixed steps into a blocking Pipeline or an AsyncPipeline
// (their queueing calls are the same): inserts with a duplicate among them,
// rows, a bad prepare, a session variable, a failing step without handler,
// a multi-statement whose second statement fails, and session commands.
// Each handler writes what it saw into `seen`.
template <class AnyPipeline>
void queue_mixed(AnyPipeline& p, Statement& insert, const std::string& table, std::vector<std::string>& seen,
                 std::optional<Statement>& prepared) {
    auto outcome = [&seen](std::string what) {
        return [&seen, what](StepResult& r) {
            seen.push_back(what + " #" + std::to_string(r.index()) + " " + std::string(to_string(r.kind())) + ": " +
                           text_of(r.error()) + ", affected " + std::to_string(r.ok().affected_rows));
        };
    };
    p.execute_then(outcome("insert"), insert, 1, "one");
    p.execute_then(outcome("insert"), insert, 2, "two");
    p.execute_then(outcome("duplicate"), insert, 1, "again");
    p.query("SELECT id, name FROM " + table + " ORDER BY id", [&seen](StepResult& r) {
        std::string rows = "rows:";
        for (const Column& c : r.columns()) rows += " [" + c.name + "]";
        for (const Row& row : r) rows += " " + row[0].to_string() + "=" + row.get<std::string>("name");
        seen.push_back(rows);
    });
    p.prepare("SELEC nonsense FROM", outcome("bad prepare"));
    p.query("SET @apl_x = 41");
    p.query("SELECT * FROM apl_no_such_table");  // no handler: its error goes to the summary
    p.query("SELECT @apl_x + 1; SELECT * FROM apl_no_such_table_either", [&seen](StepResult& r) {
        seen.push_back("variable " + std::to_string(r.next()->get<std::int64_t>(0)));
        try {
            r.next_result();
        } catch (const Error& e) {
            seen.push_back(std::string("second statement: ") + e.what());
        }
    });
    p.select_database(test::admin_options().database, outcome("use"));
    p.ping(outcome("ping"));
    p.prepare("SELECT name FROM " + table + " WHERE id = ?", [&seen, &prepared](StepResult& r) {
        seen.push_back("prepared: " + text_of(r.error()));
        if (!r.failed()) prepared.emplace(r.take_statement());
    });
    p.reset_statement(insert, outcome("reset"));
    p.close_statement(insert);
}

struct Transcript {
    std::vector<std::string> seen;
    std::string summary;
    std::string prepared_gives;
};

Transcript blocking_transcript() {
    Connection c = Connection::connect(test::admin_options());
    c.execute("CREATE TEMPORARY TABLE apl (id INT PRIMARY KEY, name VARCHAR(20))");
    Statement insert = c.prepare("INSERT INTO apl VALUES (?, ?)");
    Transcript t;
    std::optional<Statement> prepared;
    Pipeline p(c);
    queue_mixed(p, insert, "apl", t.seen, prepared);
    t.summary = summary_text(p.finish());
    if (prepared) t.prepared_gives = prepared->execute(2).next()->get<std::string>(0);
    return t;
}

TEST(AsyncPipeline, GivesWhatTheBlockingPipelineGivesOnAPollLoop) {
    const Transcript expected = blocking_transcript();

    AsyncConnection c = async_connect();
    c.start_query("CREATE TEMPORARY TABLE apl (id INT PRIMARY KEY, name VARCHAR(20))");
    drive(c);
    c.take_result();
    c.start_prepare("INSERT INTO apl VALUES (?, ?)");
    drive(c);
    Statement insert = c.take_statement();
    Transcript got;
    std::optional<Statement> prepared;
    AsyncPipeline p(c);
    queue_mixed(p, insert, "apl", got.seen, prepared);
    EXPECT_TRUE(got.seen.empty());  // queueing sends and reads nothing
    c.start_pipeline(p);
    drive(c);
    got.summary = summary_text(c.take_pipeline_summary());
    ASSERT_TRUE(prepared);
    const protocol::ParamValue id = bind::value(2);
    c.start_execute(*prepared, std::span(&id, 1));
    drive(c);
    got.prepared_gives = c.take_result().next()->get<std::string>(0);

    EXPECT_EQ(got.seen, expected.seen);
    EXPECT_EQ(got.summary, expected.summary);
    EXPECT_EQ(got.prepared_gives, expected.prepared_gives);
    // What the blocking pipeline gives, to be sure the comparison compares
    // something: a duplicate, the rows, both errors.
    ASSERT_EQ(expected.seen.size(), 11U) << ::testing::PrintToString(expected.seen);
    EXPECT_NE(expected.seen[2].find("server 1062"), std::string::npos) << expected.seen[2];
    EXPECT_EQ(expected.seen[3], "rows: [id] [name] 1=one 2=two");
    EXPECT_NE(expected.seen[4].find("server 1064"), std::string::npos) << expected.seen[4];
    EXPECT_EQ(expected.seen[5], "variable 42");
    EXPECT_NE(expected.seen[6].find("apl_no_such_table_either"), std::string::npos) << expected.seen[6];
    EXPECT_EQ(expected.summary.rfind("steps 13, succeeded 9, failed 4, skipped 0, affected 2, writes 1; unhandled 6: ",
                                      0),
              0U)
        << expected.summary;
    EXPECT_EQ(expected.prepared_gives, "two");
    EXPECT_FALSE(c.broken());
}

// The coroutines are functions of their own, never inlined into their
// caller: inlined, GCC 12 at -O2 pairs asio's frame allocation
// (awaitable_frame_base's operator new) with the wrong delete and reports
// -Wmismatched-new-delete (a false positive; docs/release-warnings.md).
[[gnu::noinline]] asio::awaitable<void> batches_and_stop(asio::any_io_executor ex, Transcript& got,
                                                        PipelineSummary& stopped,
                                                        std::vector<std::string>& stopped_seen) {
    AsioConnection conn = co_await AsioConnection::connect(ex, test::admin_options());
    co_await conn.async_execute("CREATE TEMPORARY TABLE apl (id INT PRIMARY KEY, name VARCHAR(20))");
    Statement insert = co_await conn.async_prepare("INSERT INTO apl VALUES (?, ?)");
    std::optional<Statement> prepared;
    // Three steps with replies a batch: the same transcript in four
    // writes (the close, without reply, joins the last).
    PipelineOptions small;
    small.max_depth = 3;
    AsyncPipeline p(conn.async_connection(), small);
    queue_mixed(p, insert, "apl", got.seen, prepared);
    got.summary = summary_text(co_await conn.async_pipeline(p));
    got.prepared_gives = (co_await conn.async_execute(*prepared, 2)).next()->get<std::string>(0);

    // stop_on_error: the batch holding the failure runs whole (it was
    // sent before the failure was read), the later steps are skipped.
    small.stop_on_error = true;
    AsyncPipeline q(conn.async_connection(), small);
    for (int i = 0; i < 8; ++i) {
        q.query(i == 4 ? "SELECT * FROM apl_missing" : "SELECT " + std::to_string(i), [&](StepResult& r) {
            stopped_seen.push_back(std::to_string(r.index()) +
                                   (r.skipped() ? " skipped" : r.failed() ? " failed" : " ran"));
        });
    }
    stopped = co_await conn.async_pipeline(q);
    co_await conn.async_close();
}

TEST(AsyncPipeline, AsioRunsTheSameStepsInBatchesAndStopsAtTheFirstError) {
    const Transcript expected = blocking_transcript();
    Transcript got;
    PipelineSummary stopped;
    std::vector<std::string> stopped_seen;
    run_on_one_thread([&](asio::any_io_executor ex) { return batches_and_stop(ex, got, stopped, stopped_seen); });
    EXPECT_EQ(got.seen, expected.seen);
    // The same counts; four writes of at most three steps with replies.
    EXPECT_EQ(got.summary.substr(0, got.summary.find(", writes")),
              expected.summary.substr(0, expected.summary.find(", writes")));
    EXPECT_NE(got.summary.find(", writes 4;"), std::string::npos) << got.summary;
    EXPECT_EQ(got.prepared_gives, "two");
    EXPECT_EQ(stopped_seen, (std::vector<std::string>{"0 ran", "1 ran", "2 ran", "3 ran", "4 failed", "5 ran",
                                                      "6 skipped", "7 skipped"}));
    EXPECT_EQ(stopped.skipped, 2U);
    EXPECT_EQ(stopped.failed, 1U);
    EXPECT_EQ(stopped.writes, 2U);
}

TEST(AsyncPipeline, AHandlersExceptionEndsTheRunAndTheConnectionStaysUsable) {
    AsyncConnection c = async_connect();
    std::vector<std::int64_t> got;
    PipelineOptions two_a_batch;
    two_a_batch.max_depth = 2;
    AsyncPipeline p(c, two_a_batch);
    auto keep = [&](StepResult& r) { got.push_back(r.next()->get<std::int64_t>(0)); };
    p.query("SELECT 1", keep);
    p.query("SELECT 2", [](StepResult&) { throw std::runtime_error("handler gave up"); });
    p.query("SELECT 3", keep);  // not sent: the run ended with the exception
    c.start_pipeline(p);
    drive(c);
    try {
        c.take_pipeline_summary();
        FAIL() << "the handler's exception was lost";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "handler gave up");
    }
    EXPECT_EQ(got, (std::vector<std::int64_t>{1}));
    EXPECT_EQ(p.outstanding(), 0U);
    EXPECT_FALSE(c.broken());
    c.start_query("SELECT 4");
    drive(c);
    EXPECT_EQ(c.take_result().next()->get<std::int64_t>(0), 4);
    // The pipeline runs again.
    p.query("SELECT 5", keep);
    c.start_pipeline(p);
    drive(c);
    EXPECT_EQ(c.take_pipeline_summary().succeeded, 1U);
    EXPECT_EQ(got, (std::vector<std::int64_t>{1, 5}));
}

// True once `victim` runs `sql` (polled from `watcher`, a blocking
// connection on another thread).
bool wait_until_running(Connection& watcher, std::uint32_t victim, const std::string& sql) {
    for (int i = 0; i < 3000; ++i) {
        ResultSet rs = watcher.query("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " +
                                     std::to_string(victim) + " AND INFO LIKE '" + sql + "%'");
        if (rs.next()->get<std::int64_t>(0) > 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

TEST(AsyncPipeline, ConnectionKilledMidPipelineSaysWhichStepsCompleted) {
    AsyncConnection victim = async_connect();
    Connection killer = Connection::connect(test::admin_options());
    std::atomic<bool> killed{false};
    std::jthread kill_thread([&, id = victim.connection_id()] {
        if (wait_until_running(killer, id, "SELECT SLEEP(30)")) {
            killer.execute("KILL CONNECTION " + std::to_string(id));
            killed = true;
        }
    });
    std::vector<std::int64_t> got;
    AsyncPipeline p(victim);
    p.query("SELECT 1", [&](StepResult& r) { got.push_back(r.next()->get<std::int64_t>(0)); });
    p.query("SELECT 2", [&](StepResult& r) { got.push_back(r.next()->get<std::int64_t>(0)); });
    p.query("SELECT SLEEP(30)");
    p.query("SELECT 4");
    victim.start_pipeline(p);
    drive(victim);
    std::string message;
    try {
        victim.take_pipeline_summary();
    } catch (const Error& e) {
        message = e.what();
    }
    kill_thread.join();
    ASSERT_TRUE(killed);
    // The replies read before the kill reached their handlers, as in the
    // blocking pipeline.
    EXPECT_EQ(got, (std::vector<std::int64_t>{1, 2}));
    EXPECT_NE(message.find("pipeline broken after 2 of 4 steps completed"), std::string::npos) << message;
    EXPECT_NE(message.find("from step 2"), std::string::npos) << message;
    EXPECT_TRUE(victim.broken());
}

TEST(AsyncPipeline, APipelineDeadlineIsRefusedAndAForeignPipelineToo) {
    AsyncConnection c = async_connect();
    AsyncConnection other = async_connect();
    PipelineOptions timed;
    timed.deadline = std::chrono::milliseconds(100);
    try {
        AsyncPipeline p(c, timed);
        FAIL() << "a pipeline deadline was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_NE(std::string(e.what()).find("PipelineOptions::deadline"), std::string::npos) << e.what();
    }
    AsyncPipeline theirs(other);
    theirs.ping();
    try {
        c.start_pipeline(theirs);
        FAIL() << "another connection's pipeline ran";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_STREQ(e.what(), "pipeline belongs to another AsyncConnection");
    }
    other.start_pipeline(theirs);
    drive(other);
    EXPECT_EQ(other.take_pipeline_summary().succeeded, 1U);
}

// A compressed connection is refused before anything is sent, and stays
// usable (docs/mariadb.md: the framer inflates frames as they arrive).
TEST(AsyncPipeline, ACompressedConnectionIsRefusedAndStaysUsable) {
    ConnectOptions zipped = test::admin_options();
    zipped.compress = true;
    AsyncConnection c;
    c.start_connect(zipped);
    drive(c);
    c.finish();
    ASSERT_TRUE(c.is_compressed());
    AsyncPipeline p(c);
    p.ping();
    try {
        c.start_pipeline(p);
        FAIL() << "a pipeline ran on a compressed connection";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::usage);
        EXPECT_NE(std::string(e.what()).find("compressed connection (compress=true)"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(c.busy());
    c.start_query("SELECT 41 + 1");
    drive(c);
    ResultSet rs = c.take_result();
    EXPECT_EQ(rs.next()->get<int>(0), 42);
}

// docs/mariadb.md's async pipeline example, extracted by CMake (not
// inlined: see batches_and_stop).
[[gnu::noinline]] asio::awaitable<void> async_pipeline_doc_example(asio::any_io_executor executor,
                                                                   ConnectOptions options,
                                                                   std::vector<std::string>& names,
                                                                   std::size_t& failed) {
#include "async_pipeline_example.inc"
}

TEST(AsyncPipeline, TheDocExampleCompilesAndDoesWhatItSays) {
    std::vector<std::string> names;
    std::size_t failed = 0;
    asio::io_context io;
    std::exception_ptr failure;
    asio::co_spawn(io, async_pipeline_doc_example(io.get_executor(), test::admin_options(), names, failed),
                   [&](std::exception_ptr e) { failure = e; });
    io.run();
    if (failure) std::rethrow_exception(failure);
    EXPECT_EQ(names, (std::vector<std::string>{"ball", "kite"}));
    EXPECT_EQ(failed, 1U);
}

}  // namespace
}  // namespace sluice::mariadb
