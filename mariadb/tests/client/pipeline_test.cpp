// Pipelines against the real server: mixed steps each with its own result,
// the error rule, streaming and bounded memory, deadline and breakage,
// KILL QUERY of one step, compression, TLS, pooled connections.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "server_env.hpp"
#include "sluice/mariadb/mariadb.hpp"
#include "sluice/mariadb/pipeline.hpp"
#include "sluice/mariadb/pool.hpp"

namespace sluice::mariadb {
namespace {

using test::admin_options;

Connection admin() { return Connection::connect(admin_options()); }

std::string message_of(const Error* e) { return e ? e->what() : "(no error)"; }

TEST(Pipeline, MixedStepsEachGetTheirOwnResultAndAnErrorLosesNothing) {
    Connection c = admin();
    c.execute("CREATE TEMPORARY TABLE pl_mixed (id INT PRIMARY KEY, name VARCHAR(20))");
    Statement insert = c.prepare("INSERT INTO pl_mixed VALUES (?, ?)");
    const std::string db = admin_options().database;

    std::vector<std::string> seen;  // step kinds and outcomes, in delivery order
    std::vector<std::string> names;
    std::optional<Statement> prepared;
    std::int64_t user_variable = 0;
    std::uint64_t insert_rows = 0;
    std::uint16_t dup_code = 0, bad_sql_code = 0;
    Pipeline p(c);
    EXPECT_EQ(p.execute_then([&](StepResult& r) { insert_rows += r.ok().affected_rows; seen.push_back("ins1"); },
                             insert, 1, "one"), 0u);
    p.execute_then([&](StepResult& r) { insert_rows += r.ok().affected_rows; seen.push_back("ins2"); }, insert, 2,
                   "two");
    p.execute_then(
        [&](StepResult& r) {
            ASSERT_TRUE(r.failed());
            dup_code = r.error()->server_code();
            seen.push_back("dup");
        },
        insert, 1, "again");
    p.query("SELECT id, name FROM pl_mixed ORDER BY id", [&](StepResult& r) {
        ASSERT_EQ(r.columns().size(), 2u);
        EXPECT_EQ(r.columns()[1].name, "name");
        for (const Row& row : r) names.push_back(row.get<std::string>("name"));
        seen.push_back("select");
    });
    p.prepare("SELEC nonsense FROM", [&](StepResult& r) {
        ASSERT_TRUE(r.failed());
        EXPECT_EQ(r.kind(), StepKind::prepare);
        // The pointer checked itself: GCC cannot see that failed() above
        // means error() is not null (the EXPECT between them is opaque to
        // it), and reports a -Wnull-dereference at -O2.
        const Error* error = r.error();
        ASSERT_NE(error, nullptr);
        bad_sql_code = error->server_code();
        EXPECT_EQ(error->kind(), ErrorKind::server);
        seen.push_back("bad prepare");
    });
    p.query("SET @pl_x = 41");  // a session change, seen by the later steps
    p.query("SELECT @pl_x + 1", [&](StepResult& r) {
        const Row* row = r.next();
        ASSERT_NE(row, nullptr);
        user_variable = row->get<std::int64_t>(0);
        EXPECT_EQ(r.next(), nullptr);
        seen.push_back("variable");
    });
    p.select_database(db, [&](StepResult& r) { seen.push_back(r.failed() ? "use failed" : "use"); });
    p.ping([&](StepResult& r) { seen.push_back(r.failed() ? "ping failed" : "ping"); });
    p.prepare("SELECT name FROM pl_mixed WHERE id = ?", [&](StepResult& r) {
        ASSERT_FALSE(r.failed()) << message_of(r.error());
        prepared.emplace(r.take_statement());
        seen.push_back("prepare");
    });
    p.reset_statement(insert, [&](StepResult& r) { seen.push_back(r.failed() ? "reset failed" : "reset"); });
    EXPECT_EQ(p.outstanding(), 11u);
    PipelineSummary s = p.finish();

    EXPECT_EQ(seen, (std::vector<std::string>{"ins1", "ins2", "dup", "select", "bad prepare", "variable", "use",
                                              "ping", "prepare", "reset"}));
    EXPECT_EQ(insert_rows, 2u);
    EXPECT_EQ(dup_code, 1062);      // ER_DUP_ENTRY
    EXPECT_EQ(bad_sql_code, 1064);  // ER_PARSE_ERROR
    EXPECT_EQ(names, (std::vector<std::string>{"one", "two"}));
    EXPECT_EQ(user_variable, 42);
    EXPECT_EQ(s.steps, 11u);
    EXPECT_EQ(s.failed, 2u);
    EXPECT_EQ(s.succeeded, 9u);
    EXPECT_EQ(s.skipped, 0u);
    EXPECT_TRUE(s.errors.empty());  // both failures had handlers
    EXPECT_EQ(s.writes, 1u);        // eleven steps, one write
    EXPECT_EQ(p.outstanding(), 0u);

    // The connection is usable, and the prepared statement works.
    ASSERT_TRUE(prepared);
    ResultSet rs = prepared->execute(2);
    const Row* row = rs.next();
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->get<std::string_view>(0), "two");
    EXPECT_EQ(c.execute("DELETE FROM pl_mixed").affected_rows, 2u);
}

TEST(Pipeline, StepsWithoutHandlerHaveTheirErrorsInTheSummary) {
    Connection c = admin();
    c.execute("CREATE TEMPORARY TABLE pl_summary (id INT PRIMARY KEY)");
    Statement insert = c.prepare("INSERT INTO pl_summary VALUES (?)");
    Pipeline p(c);
    for (int id : {1, 2, 2, 3, 1}) p.execute(insert, id);
    PipelineSummary s = p.finish();
    EXPECT_EQ(s.succeeded, 3u);
    EXPECT_EQ(s.failed, 2u);
    EXPECT_EQ(s.affected_rows, 3u);
    ASSERT_EQ(s.errors.size(), 2u);
    EXPECT_EQ(s.errors[0].first, 2u);
    EXPECT_EQ(s.errors[1].first, 4u);
    EXPECT_EQ(s.errors[0].second.server_code(), 1062);
    ResultSet rs = c.query("SELECT COUNT(*) FROM pl_summary");
    EXPECT_EQ(rs.next()->get<int>(0), 3);
}

TEST(Pipeline, StopOnErrorSendsNothingAfterAFailedReply) {
    Connection c = admin();
    c.execute("CREATE TEMPORARY TABLE pl_stop (id INT PRIMARY KEY)");
    Statement insert = c.prepare("INSERT INTO pl_stop VALUES (?)");
    {
        // Depth 1: each step is sent only after the previous reply, so
        // nothing after the failure reaches the server.
        PipelineOptions o;
        o.max_depth = 1;
        o.stop_on_error = true;
        Pipeline p(c, o);
        std::vector<std::size_t> skipped;
        for (int id : {1, 1, 2, 3}) {
            p.execute_then([&](StepResult& r) { if (r.skipped()) skipped.push_back(r.index()); }, insert, id);
        }
        PipelineSummary s = p.finish();
        EXPECT_EQ(s.succeeded, 1u);
        EXPECT_EQ(s.failed, 1u);
        EXPECT_EQ(s.skipped, 2u);
        EXPECT_EQ(skipped, (std::vector<std::size_t>{2, 3}));
        ResultSet rs = c.query("SELECT COUNT(*) FROM pl_stop");
        EXPECT_EQ(rs.next()->get<int>(0), 1);
    }
    {
        // Deeper: the steps written with the failing one were on the server
        // before the failure was read, and ran (the documented rule); the
        // ones queued after it are skipped.
        PipelineOptions o;
        o.stop_on_error = true;
        Pipeline p(c, o);
        p.execute(insert, 10);
        p.execute(insert, 10);
        p.execute(insert, 11);
        PipelineSummary first = p.finish();
        EXPECT_EQ(first.failed, 1u);
        EXPECT_EQ(first.succeeded, 2u);
        // Reused after finish(): starts afresh.
        p.execute(insert, 12);
        EXPECT_EQ(p.finish().succeeded, 1u);
        ResultSet rs = c.query("SELECT COUNT(*) FROM pl_stop WHERE id >= 10");
        EXPECT_EQ(rs.next()->get<int>(0), 3);
    }
}

TEST(Pipeline, OtherCommandsAreRefusedWhileStepsAreOutstanding) {
    Connection c = admin();
    Pipeline p(c);
    p.query("SELECT 1");
    EXPECT_EQ(test::kind_of([&] { c.execute("SELECT 2"); }), ErrorKind::usage);
    EXPECT_EQ(test::kind_of([&] { Pipeline other(c); other.ping(); }), ErrorKind::usage);
    std::size_t handled = 0;
    p.query("SELECT 3", [&](StepResult&) {
        ++handled;
        EXPECT_EQ(test::kind_of([&] { p.ping(); }), ErrorKind::usage);  // not from inside a handler
    });
    EXPECT_EQ(p.finish().succeeded, 2u);
    EXPECT_EQ(handled, 1u);
    EXPECT_FALSE(c.broken());
    EXPECT_EQ(c.execute("DO 1").affected_rows, 0u);
}

TEST(Pipeline, ResultSetsStreamInsideAPipelineAndLeftoverRowsAreDiscarded) {
    Connection c = admin();
    std::uint64_t sum = 0, rows = 0;
    std::int64_t after = 0;
    Pipeline p(c);
    p.query("SELECT seq FROM seq_1_to_50000", [&](StepResult& r) {
        for (const Row& row : r) {
            sum += row.get<std::uint64_t>(0);
            ++rows;
        }
        EXPECT_EQ(r.ok().affected_rows, 0u);
    });
    // Reads two rows of 50,000 and leaves the rest: discarded before the
    // next step's reply.
    p.query("SELECT seq FROM seq_1_to_50000", [&](StepResult& r) {
        ASSERT_NE(r.next(), nullptr);
        ASSERT_NE(r.next(), nullptr);
    });
    p.query("SELECT 1; SELECT 2", [&](StepResult& r) {
        after = r.next()->get<std::int64_t>(0);
        ASSERT_TRUE(r.next_result());
        after = after * 10 + r.next()->get<std::int64_t>(0);
    });
    p.query("SELECT 7", [&](StepResult& r) { after = after * 10 + r.next()->get<std::int64_t>(0); });
    p.finish();
    EXPECT_EQ(rows, 50000u);
    EXPECT_EQ(sum, 50000ull * 50001 / 2);
    EXPECT_EQ(after, 127);
}

TEST(Pipeline, AFailingLaterStatementOfAMultiStatementStepFailsThatStep) {
    Connection c = admin();
    std::vector<std::string> seen;
    Pipeline p(c);
    // The handler reads the first result only; the second statement fails
    // while the pipeline discards the rest for it.
    p.query("SELECT 1; SELECT * FROM pl_no_such_table; SELECT 3", [&](StepResult& r) {
        seen.push_back(std::to_string(r.next()->get<int>(0)));
    });
    p.query("SELECT 4", [&](StepResult& r) { seen.push_back(std::to_string(r.next()->get<int>(0))); });
    PipelineSummary s = p.finish();
    EXPECT_EQ(seen, (std::vector<std::string>{"1", "4"}));
    EXPECT_EQ(s.failed, 1u);
    EXPECT_EQ(s.succeeded, 1u);
    ASSERT_EQ(s.errors.size(), 1u);  // the handler never saw it
    EXPECT_EQ(s.errors[0].first, 0u);
    EXPECT_EQ(s.errors[0].second.server_code(), 1146);  // ER_NO_SUCH_TABLE
    EXPECT_FALSE(c.broken());
}

std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

TEST(Pipeline, HundredThousandStepsRunInBoundedMemory) {
    // Plain TCP: OpenSSL allocates and frees per record, and under ASan
    // freed memory stays resident (quarantine), which would measure
    // OpenSSL rather than the pipeline. TLS pipelines are tested below.
    ConnectOptions plain = admin_options();
    plain.ssl_mode = SslMode::disable;
    Connection c = Connection::connect(plain);
    ASSERT_FALSE(c.is_tls());
    Statement echo = c.prepare("SELECT ?, ?");
    const std::string payload(200, 'p');  // 100,000 requests would be ~23 MB held at once
    PipelineOptions o;
    o.max_depth = 256;
    Pipeline p(c, o);
    // The handler captures one pointer and the index: small enough for
    // std::function to hold without allocating, so what is measured is the
    // pipeline's memory (under ASan a freed allocation stays resident).
    struct Tally {
        std::size_t delivered = 0, out_of_order = 0;
    } tally;
    std::size_t max_outstanding = 0;
    std::size_t rss_at_10k = 0;
    for (std::int64_t i = 0; i < 100000; ++i) {
        p.execute_then(
            [t = &tally, i](StepResult& r) {
                const Row* row = r.next();
                if (!row || row->get<std::int64_t>(0) != i || row->get<std::string_view>(1).size() != 200) {
                    ++t->out_of_order;
                }
                ++t->delivered;
            },
            echo, i, payload);
        max_outstanding = std::max(max_outstanding, p.outstanding());
        if (i == 10000) rss_at_10k = resident_bytes();
    }
    PipelineSummary s = p.finish();
    const std::size_t rss_at_end = resident_bytes();
    EXPECT_EQ(tally.delivered, 100000u);
    EXPECT_EQ(tally.out_of_order, 0u);
    EXPECT_EQ(s.succeeded, 100000u);
    EXPECT_LE(max_outstanding, 256u);
    // Far fewer writes than steps: batches of at least max_depth / 2.
    EXPECT_LE(s.writes, 100000u / 128 + 2);
    // Growth from step 10,000 to the end: buffers are reused, so only noise.
    const std::size_t growth = rss_at_end > rss_at_10k ? rss_at_end - rss_at_10k : 0;
    EXPECT_LT(growth, 4u << 20) << "RSS grew by " << growth << " bytes over 90,000 steps";
}

TEST(Pipeline, DeadlineOverTheWholePipelineBreaksTheConnectionNamingTheProgress) {
    Connection c = admin();
    PipelineOptions o;
    o.deadline = std::chrono::milliseconds(300);
    Pipeline p(c, o);
    bool first = false;
    p.query("SELECT 1", [&](StepResult&) { first = true; });
    p.query("SELECT SLEEP(5)");
    p.query("SELECT 3");
    try {
        p.finish();
        FAIL() << "the deadline did not fire";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::timeout);
        const std::string m = e.what();
        EXPECT_NE(m.find("1 of 3 steps completed"), std::string::npos) << m;
        EXPECT_NE(m.find("2 sent with no reply read"), std::string::npos) << m;
        EXPECT_NE(m.find("from step 1"), std::string::npos) << m;
        EXPECT_NE(m.find("deadline"), std::string::npos) << m;
    }
    EXPECT_TRUE(first);
    EXPECT_TRUE(c.broken());
    EXPECT_EQ(test::kind_of([&] { c.execute("DO 1"); }), ErrorKind::broken);
}

// Waits (bounded) until connection `id` runs a statement starting with
// `prefix`, seen from `watcher`.
bool wait_until_running(Connection& watcher, std::uint32_t id, std::string_view prefix) {
    for (int i = 0; i < 2000; ++i) {
        ResultSet rs = watcher.query("SELECT COALESCE(INFO, '') FROM information_schema.PROCESSLIST WHERE ID = " +
                                     std::to_string(id));
        const Row* row = rs.next();
        if (row && row->get<std::string_view>(0).starts_with(prefix)) {
            rs.discard();
            return true;
        }
        rs.discard();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

TEST(Pipeline, ConnectionKilledMidPipelineSaysWhichStepsCompleted) {
    Connection victim = admin();
    Connection killer = admin();
    std::atomic<bool> killed{false};
    std::jthread kill_thread([&] {
        if (wait_until_running(killer, victim.connection_id(), "SELECT SLEEP(30)")) {
            killer.execute("KILL CONNECTION " + std::to_string(victim.connection_id()));
            killed = true;
        }
    });
    Pipeline p(victim);
    std::vector<std::int64_t> got;
    p.query("SELECT 1", [&](StepResult& r) { got.push_back(r.next()->get<std::int64_t>(0)); });
    p.query("SELECT 2", [&](StepResult& r) { got.push_back(r.next()->get<std::int64_t>(0)); });
    p.query("SELECT SLEEP(30)");
    p.query("SELECT 4");
    std::string message;
    try {
        p.finish();
    } catch (const Error& e) {
        message = e.what();
    }
    kill_thread.join();
    ASSERT_TRUE(killed);
    EXPECT_EQ(got, (std::vector<std::int64_t>{1, 2}));
    EXPECT_NE(message.find("2 of 4 steps completed"), std::string::npos) << message;
    EXPECT_NE(message.find("from step 2"), std::string::npos) << message;
    EXPECT_TRUE(victim.broken());
}

TEST(Pipeline, KillQueryFailsOnlyTheStepItInterrupts) {
    Connection c = admin();
    Connection killer = admin();
    std::jthread kill_thread([&] {
        if (wait_until_running(killer, c.connection_id(), "SELECT SLEEP(30), 'victim'")) {
            killer.execute("KILL QUERY " + std::to_string(c.connection_id()));
        }
    });
    std::vector<std::string> outcome;
    Pipeline p(c);
    p.query("SELECT 1", [&](StepResult& r) { outcome.push_back(r.failed() ? "failed" : "1"); });
    // The server sends the column definitions, then the kill's error where
    // the row would be: next() throws it. The handler lets it escape; the
    // pipeline records it as this step's failure and goes on.
    p.query("SELECT SLEEP(30), 'victim'", [&](StepResult& r) {
        outcome.push_back("started");
        r.next();
        outcome.push_back("not interrupted");
    });
    p.query("SELECT 3", [&](StepResult& r) { outcome.push_back(r.failed() ? "failed" : "3"); });
    PipelineSummary s;
    try {
        s = p.finish();
    } catch (const Error& e) {
        ADD_FAILURE() << e.what();
    }
    kill_thread.join();
    EXPECT_EQ(outcome, (std::vector<std::string>{"1", "started", "3"}));
    EXPECT_EQ(s.failed, 1u);
    EXPECT_EQ(s.succeeded, 2u);
    ASSERT_EQ(s.errors.size(), 1u);  // escaped from its handler: recorded as unhandled
    EXPECT_EQ(s.errors[0].first, 1u);
    EXPECT_EQ(s.errors[0].second.server_code(), 1317);  // ER_QUERY_INTERRUPTED
    EXPECT_FALSE(c.broken());
    EXPECT_EQ(s.steps, 3u);
}

// A mixed pipeline whose requests and replies are large enough to be
// compressed, with a long-data parameter (extra commands without replies).
void run_large_mixed_pipeline(Connection& c) {
    c.execute("CREATE TEMPORARY TABLE pl_large (id INT PRIMARY KEY, body MEDIUMTEXT)");
    Statement insert = c.prepare("INSERT INTO pl_large VALUES (?, ?)");
    Statement select = c.prepare("SELECT body FROM pl_large WHERE id = ?");
    std::vector<std::string> bodies;
    for (int i = 0; i < 40; ++i) bodies.push_back(std::string(static_cast<std::size_t>(1000 + i * 500), static_cast<char>('a' + i % 26)));
    PipelineOptions o;
    o.max_depth = 16;  // several batches: frame numbering across writes and reads
    Pipeline p(c, o);
    for (int i = 0; i < 40; ++i) p.execute(insert, i, bodies[static_cast<std::size_t>(i)]);
    std::size_t matched = 0;
    for (int i = 0; i < 40; ++i) {
        p.execute_then(
            [&, i](StepResult& r) {
                const Row* row = r.next();
                if (row && row->get<std::string_view>(0) == bodies[static_cast<std::size_t>(i)]) ++matched;
            },
            select, i);
        if (i % 10 == 0) p.ping();
    }
    p.execute(insert, 1, "duplicate");  // a server error under compression
    PipelineSummary s = p.finish();
    EXPECT_EQ(matched, 40u);
    EXPECT_EQ(s.failed, 1u);
    EXPECT_EQ(s.succeeded, 40u + 40u + 4u);
    EXPECT_FALSE(c.broken());
    ResultSet rs = c.query("SELECT SUM(LENGTH(body)) FROM pl_large");
    std::int64_t total = 0;
    for (const std::string& b : bodies) total += static_cast<std::int64_t>(b.size());
    EXPECT_EQ(rs.next()->get<std::int64_t>(0), total);
}

TEST(Pipeline, WorksOnCompressedConnectionsWithLongData) {
    ConnectOptions o = admin_options();
    o.compress = true;
    o.long_data_threshold = 4000;  // the larger bodies go as COM_STMT_SEND_LONG_DATA
    Connection c = Connection::connect(o);
    ASSERT_TRUE(c.is_compressed());
    run_large_mixed_pipeline(c);
}

TEST(Pipeline, WorksOverTls) {
    ConnectOptions o = admin_options();
    o.ssl_ca = test::env().require("SLUICE_CA");
    o.ssl_mode = SslMode::verify_ca;
    Connection c = Connection::connect(o);
    ASSERT_TRUE(c.is_tls());
    run_large_mixed_pipeline(c);
}

TEST(Pipeline, WorksOverTlsWithCompression) {
    ConnectOptions o = admin_options();
    o.ssl_ca = test::env().require("SLUICE_CA");
    o.ssl_mode = SslMode::verify_ca;
    o.compress = true;
    Connection c = Connection::connect(o);
    ASSERT_TRUE(c.is_tls());
    ASSERT_TRUE(c.is_compressed());
    run_large_mixed_pipeline(c);
}

TEST(Pipeline, RunsOnAPooledConnection) {
    PoolOptions po;
    po.connect = admin_options();
    po.connect.init_commands = {"SET @pl_pool = 5"};
    po.max_size = 1;
    Pool pool(po);
    for (int round = 0; round < 3; ++round) {
        PooledConnection lease = pool.borrow();
        Statement& add = lease.prepare("SELECT ? + @pl_pool");
        Pipeline p(*lease);
        std::vector<std::int64_t> got;
        for (int i = 0; i < 5; ++i) {
            p.execute_then([&](StepResult& r) { got.push_back(r.next()->get<std::int64_t>(0)); }, add, i);
        }
        p.query("SET @pl_pool = 100");  // undone by the return's reset and restore
        p.finish();
        EXPECT_EQ(got, (std::vector<std::int64_t>{5, 6, 7, 8, 9})) << "round " << round;
    }
    EXPECT_EQ(pool.stats().connects, 1u);
}

}  // namespace
}  // namespace sluice::mariadb
