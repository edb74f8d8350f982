// One run of the pipeline: restore, follow, batch, commit. The exactly-once
// argument is in docs/pipeline.md; the code below keeps to it:
//   - the only state that survives a crash is the sink's, written in one
//     PostgreSQL transaction with the rows it explains;
//   - every start (a fresh process, or a retry after a lost connection)
//     restores the engine from the stored checkpoint and resumes the binlog
//     at that checkpoint's position;
//   - commits are held back until the stream is past the stored GTID state
//     again (replay after a checkpoint that is older than the state), and
//     replayed writes are idempotent (upserts by (key, start), late and
//     rejected rows by (gtid, seq)).
#include "sluice/pipeline/pipeline.hpp"

#include <chrono>
#include <iostream>
#include <thread>
#include <variant>

#include "sluice/mariadb/cdc/change_stream.hpp"
#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/pipeline/binlog_adapter.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/progress_line.hpp"
#include "sluice/pipeline/session_applier.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/source_position.hpp"
#include "sluice/postgres/error.hpp"
#include "sluice/tideweave/checkpoint.hpp"
#include "batch_committer.hpp"
#include "source_table.hpp"
#include "start_failure.hpp"
#include "stream_worker.hpp"

namespace sluice::pipeline {

namespace cdc = sluice::mariadb::cdc;
namespace tw = sluice::tideweave;
using Clock = std::chrono::steady_clock;

std::string settings_text(const Options& o) {
    return "table=" + o.db + "." + o.table + " id=" + o.columns.id + " key=" + o.columns.key + " ts=" + o.columns.ts +
           " value=" + o.columns.value + " gap=" + std::to_string(o.gap) + " lateness=" + std::to_string(o.lateness) +
           " watermark-lag=" + std::to_string(o.watermark_lag.value_or(o.gap));
}

namespace {

// Every domain of `target` reached by `position`.
bool reached(const cdc::GtidState& position, const cdc::GtidState& target) {
    for (const auto& g : target.gtids()) {
        auto p = position.domain(g.domain_id);
        if (!p || p->seq_no < g.seq_no) return false;
    }
    return true;
}

}  // namespace

void run_once(const Options& o, RunStats& stats, std::ostream& log) {
    if (is_stream_source(o.source_url)) return run_stream_worker(o, stats, log);
    const std::string settings = settings_text(o);
    const std::int64_t lag = o.watermark_lag.value_or(o.gap);
    const mariadb::ConnectOptions source = mariadb::parse_url(o.source_url);
    {
        mariadb::Connection check = mariadb::Connection::connect(source);
        check_source_table(check, o);
    }
    // Checks the sink's tables and reads its state; creates nothing before
    // the source stream is open (a source refusing the replication leaves
    // no empty tables behind).
    Sink sink = Sink::open(o.sink_url, o.sink_table);

    // Restore, or start fresh as --from-* says.
    std::optional<tw::Engine> engine;
    std::optional<WatermarkRule> rule;
    std::optional<std::string> committed_gtid;  // the state row's gtid
    std::optional<cdc::GtidState> replay_until;
    cdc::StreamOptions so;
    so.tables = cdc::TableFilter::parse(o.db + "." + o.table);
    // An Idle event when the stream goes quiet after other tables'
    // transactions: the loop below then commits a batch it held back while
    // their bytes were pending (else it would wait for this table's next
    // transaction, however long that takes).
    so.idle_events = true;
    so.until_end = o.until_end;
    if (auto state = sink.load()) {
        if (state->settings != settings)
            throw Error(ErrorKind::sink_state, "\"" + o.sink_table + "\" was written with " + state->settings +
                                                   ", not " + settings +
                                                   " (use another --sink-table, or drop its tables and its "
                                                   "sluice_pipeline_state row to start over)");
        auto cp = tw::decode_binary(state->checkpoint);
        if (!cp) throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + o.sink_table + "\": " + cp.error().message);
        auto restored = tw::Engine::restore(*cp);
        if (!restored) throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + o.sink_table + "\": " + restored.error().message);
        auto pos = decode_source_position(restored->source_position());
        if (!pos) throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + o.sink_table + "\" has no pipeline source position");
        engine.emplace(std::move(*restored));
        rule.emplace(lag, pos->max_ts, engine->watermark());
        so.start = cdc::StartAt::gtid;
        so.gtid = cdc::GtidState::parse(pos->gtid);
        committed_gtid = state->gtid;
        if (state->gtid != pos->gtid) replay_until = cdc::GtidState::parse(state->gtid);
    } else {
        engine.emplace(tw::Config{o.gap, o.lateness});
        rule.emplace(lag);
        switch (o.start) {
            case StartMode::from_start: so.start = cdc::StartAt::oldest; break;
            case StartMode::from_gtid:
                so.start = cdc::StartAt::gtid;
                so.gtid = cdc::GtidState::parse(o.from_gtid);
                break;
            case StartMode::from_now: so.start = cdc::StartAt::now; break;
            case StartMode::snapshot: so.start = cdc::StartAt::snapshot; break;
        }
    }

    cdc::ChangeStream stream = cdc::ChangeStream::open(source, so);
    sink.create_tables();
    stats.connected = true;
    BinlogAdapter adapter(o.columns);
    TransactionMapper mapper(o.columns);
    SessionApplier applier(*engine, *rule);
    StringArena scratch;
    StringArena snapshot_arena;
    std::vector<SourceChange> snapshot_rows;
    ProgressLine progress(o.progress, log);
    // Restored from a checkpoint older than the stored GTID state: the
    // first commit (past that state) replays what the sink already holds.
    const bool replaying = replay_until.has_value();
    // Catching up (the newest transaction read committed long ago): bigger
    // batches, as each cut costs PostgreSQL an upsert of every session open
    // at the cut; following: short ones, for the lag.
    BatchCommitter committer(sink, settings, *engine, *rule, batch_limits(o, /*catch_up=*/true), o.checkpoint_every,
                             committed_gtid, replaying, stats);
    auto progress_line = [&](bool last_line) {
        if (progress.due(std::chrono::steady_clock::now(), last_line))
            progress.write("", stats, committer.last_commit_time(), /*sink_time=*/true, wall_seconds_now());
    };

    while (const cdc::ChangeEvent* event = stream.next()) {
        if (const auto* t = std::get_if<cdc::Transaction>(event)) {
            mapper.begin();
            scratch.clear();
            t->for_each_change([&](const cdc::Change& c) { mapper.add(adapter.change(c, scratch)); });
            auto outcome = applier.apply(mapper, mariadb::binlog::to_string(t->gtid), committer.open_batch());
            ++stats.source_transactions;
            stats.row_changes += mapper.changes();
            stats.late += outcome.late;
            stats.rejected += outcome.rejected;
            committer.source_commit_time(t->timestamp);
        } else if (const auto* chunk = std::get_if<cdc::SnapshotChunk>(event)) {
            for (std::size_t r = 0; r < chunk->size(); ++r) {
                SourceChange c;
                c.op = SourceChange::Op::insert;
                c.after = adapter.snapshot_row(*chunk, r, snapshot_arena);
                snapshot_rows.push_back(c);
            }
        } else if (const auto* done = std::get_if<cdc::SnapshotDone>(event)) {
            // The whole snapshot is one Tideweave transaction: its rows come
            // in key order, not in time, so no watermark moves inside it.
            mapper.begin();
            for (const SourceChange& c : snapshot_rows) mapper.add(c);
            auto outcome = applier.apply(mapper, "snapshot:" + done->at.to_string(), committer.open_batch());
            stats.snapshot_rows += mapper.changes();
            stats.late += outcome.late;
            stats.rejected += outcome.rejected;
            snapshot_rows.clear();
            snapshot_arena.clear();
        }  // (cdc::Idle: nothing to apply; the position moved past other tables' transactions)
        committer.moved();
        if (!stream.resumable()) continue;
        if (replay_until && !reached(stream.position(), *replay_until)) continue;
        replay_until.reset();
        // The stream blocks for input: when none is pending, waiting for
        // the writer is better than leaving the batch for an event that may
        // not come.
        if (committer.due(stream.input_pending(), /*source_quiet=*/true)) committer.commit(stream.position().to_string());
        progress_line(false);
    }
    // --until-end: everything the binlog held at the start is applied.
    // (Groups of other tables move the position without an event.)
    const std::string end = stream.position().to_string();
    if (committer.behind(end)) {
        if (replay_until && !reached(stream.position(), *replay_until))
            throw Error(ErrorKind::sink_state, "the binlog ended before the stored position " + replay_until->to_string() +
                                                   " of \"" + o.sink_table + "\" (was the source reset?)");
        committer.commit(end);
    }
    committer.finish();
    progress_line(true);
    // Without --until-end the stream only ends when the server went away
    // (ChangeStream hands out nullptr when the server shuts the dump down):
    // a lost source, retried from the sink's state.
    if (!o.until_end)
        throw Error(ErrorKind::source_ended, "the binlog stream ended (the source server shut down?)");
}

bool transient(const std::exception& e) {
    if (const auto* q = dynamic_cast<const Error*>(&e))
        return q->kind() == ErrorKind::source_ended || q->kind() == ErrorKind::sink_moved;
    if (const auto* m = dynamic_cast<const mariadb::Error*>(&e)) {
        switch (m->kind()) {
            case mariadb::ErrorKind::io:
            case mariadb::ErrorKind::timeout:
            case mariadb::ErrorKind::closed:
            case mariadb::ErrorKind::broken: return true;
            case mariadb::ErrorKind::server:
                // shutdown in progress, connection killed, too many connections
                return m->server_code() == 1053 || m->server_code() == 1927 || m->server_code() == 1040;
            default: return false;
        }
    }
    if (const auto* p = dynamic_cast<const postgres::Error*>(&e)) {
        if (p->kind() == postgres::ErrorKind::connection) return true;
        if (p->kind() != postgres::ErrorKind::server) return false;
        const std::string& s = p->sqlstate();
        return s.rfind("08", 0) == 0 || s == "57P01" || s == "57P02" || s == "57P03" || s == "40001" ||
               s == "40P01" || s == "53300";
    }
    return false;
}

namespace {

std::string describe(const std::exception& e) {
    if (const auto* m = dynamic_cast<const mariadb::Error*>(&e)) {
        std::string s = std::string("source: ") + m->what();
        if (m->kind() == mariadb::ErrorKind::server)
            s += " (server error " + std::to_string(m->server_code()) + ", SQLSTATE " + m->sqlstate() + ")";
        else
            s += " (" + std::string(mariadb::to_string(m->kind())) + ")";
        return s;
    }
    if (const auto* p = dynamic_cast<const postgres::Error*>(&e)) return std::string("sink: ") + p->what();
    if (const auto* q = dynamic_cast<const Error*>(&e)) return std::string(to_string(q->kind())) + ": " + q->what();
    return e.what();
}

// An error of the command line's making, found only when it was used.
bool usage_error(const std::exception& e) {
    const auto* q = dynamic_cast<const Error*>(&e);
    return q != nullptr && q->kind() == ErrorKind::usage;
}

}  // namespace

int run_with_retries(const Options& o, std::ostream& log) {
    RunStats stats;
    auto backoff = std::chrono::milliseconds(100);
    const auto started = Clock::now();
    auto failing_since = started;
    std::uint64_t commits_seen = 0;
    for (;;) {
        try {
            run_once(o, stats, log);
            return 0;
        } catch (const std::exception& e) {
            if (!transient(e)) {
                log << "sluice-pipeline: error: " << describe(e) << "\n";
                return usage_error(e) ? 2 : 1;
            }
            if (gives_up_at_start(e, stats.connected, Clock::now() - started, o.connect_timeout)) {
                log << "sluice-pipeline: error: " << describe(e) << start_failure_note(o.connect_timeout) << "\n";
                return 1;
            }
            if (stats.sink_commits != commits_seen) {  // progress since the last failure
                commits_seen = stats.sink_commits;
                failing_since = Clock::now();
                backoff = std::chrono::milliseconds(100);
            }
            if (Clock::now() - failing_since > o.retry_for) {
                log << "sluice-pipeline: error: " << describe(e) << " (gave up after retrying for "
                    << std::chrono::duration_cast<std::chrono::seconds>(o.retry_for).count() << " s)\n";
                return 1;
            }
            log << "sluice-pipeline: " << describe(e) << "; retrying in " << backoff.count() << " ms\n";
            std::this_thread::sleep_for(backoff);
            backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
        }
    }
}

}  // namespace sluice::pipeline
