// One run of a pipeline worker on a NATS JetStream stream (--source
// nats://HOST:PORT?stream=NAME, --partition I/N): the single process's run
// (pipeline.cpp) with the stream's sequence in place of the GTID state.
//   - The worker's state is a sluice_pipeline_state row of its own
//     (NAME#I/N), written in the same PostgreSQL transaction as its rows;
//     its gtid column holds "jetstream:STREAM:SEQ", the last applied message.
//   - Every start restores the engine from the checkpoint and reads the
//     stream in order from the message after the checkpoint's sequence;
//     commits are held back until the stored sequence is passed again
//     (replay is idempotent, as in pipeline.cpp).
//   - Every message (every source transaction) is read by every worker: the
//     watermark sees all of them; only the keys of partition I are applied
//     (PartitionApplier).
//   - A snapshot (its chunk lines, then its done line) is one Tideweave
//     transaction applied at the done line, as in pipeline.cpp; nothing is
//     committed while a snapshot is open (its rows are buffered, not in the
//     engine), so a restart reads it again from its first chunk. An
//     "aborted" line (a publisher killed during the snapshot) drops what
//     was buffered.
#include "stream_worker.hpp"

#include <charconv>
#include <chrono>
#include <iostream>

#include "batch_committer.hpp"
#include "sluice/nats/client.hpp"
#include "sluice/nats/stream_reader.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/ndjson_transaction.hpp"
#include "sluice/pipeline/partition_applier.hpp"
#include "sluice/pipeline/progress_line.hpp"
#include "sluice/pipeline/run_observer.hpp"
#include "sluice/pipeline/sink.hpp"
#include "sluice/pipeline/source_position.hpp"
#include "sluice/postgres/error.hpp"
#include "sluice/tideweave/checkpoint.hpp"

namespace sluice::pipeline {

namespace js = sluice::nats;
namespace tw = sluice::tideweave;

bool is_stream_source(const std::string& url) { return url.rfind("nats://", 0) == 0; }

StreamSource parse_stream_source(const std::string& url) {
    const auto q = url.find('?');
    const std::string query = q == std::string::npos ? "" : url.substr(q + 1);
    StreamSource s;
    s.urls = url.substr(0, q);
    std::size_t p = 0;
    while (p <= query.size() && !query.empty()) {
        const auto amp = query.find('&', p);
        const std::string item = query.substr(p, amp == std::string::npos ? std::string::npos : amp - p);
        if (item.rfind("stream=", 0) == 0) s.stream = item.substr(7);
        else if (!item.empty())
            throw Error(ErrorKind::usage, "--source " + url + ": unknown parameter \"" + item + "\" (expected stream=NAME)");
        if (amp == std::string::npos) break;
        p = amp + 1;
    }
    if (s.stream.empty()) throw Error(ErrorKind::usage, "--source " + url + ": expected nats://HOST:PORT?stream=NAME");
    for (char c : s.stream)
        if (c == '.' || c == '*' || c == '>' || c == ' ' || c == '/' || c == '\\')
            throw Error(ErrorKind::usage, "--source " + url + ": \"" + s.stream + "\" is not a stream name");
    if (s.urls.size() <= 7) throw Error(ErrorKind::usage, "--source " + url + ": expected nats://HOST:PORT?stream=NAME");
    return s;
}

std::string partition_state_name(const std::string& sink_table, const Partition& p) {
    return sink_table + "#" + std::to_string(p.index) + "/" + std::to_string(p.count);
}

namespace {

std::string position_text(const std::string& stream, std::uint64_t seq) {
    return "jetstream:" + stream + ":" + std::to_string(seq);
}

std::uint64_t position_seq(const std::string& text, const std::string& stream, const std::string& what) {
    const std::string prefix = "jetstream:" + stream + ":";
    std::uint64_t seq = 0;
    if (text.rfind(prefix, 0) == 0) {
        const char* b = text.data() + prefix.size();
        const char* e = text.data() + text.size();
        auto [p, ec] = std::from_chars(b, e, seq);
        if (ec == std::errc() && p == e && b != e) return seq;
    }
    throw Error(ErrorKind::sink_state, what + " is \"" + text + "\", not a position in stream \"" + stream +
                                           "\" (was this NAME written from another source?)");
}

// N workers starting together race on CREATE TABLE: the loser sees a
// duplicate (42P07, or 23505 on pg_type) and simply creates again.
void create_sink_tables(Sink& sink) {
    for (int attempt = 0;; ++attempt) {
        try {
            return sink.create_tables();
        } catch (const postgres::Error& e) {
            const bool race = e.kind() == postgres::ErrorKind::server && (e.sqlstate() == "42P07" || e.sqlstate() == "23505");
            if (!race || attempt >= 5) throw;
        }
    }
}

}  // namespace

namespace {
void run_worker(const Options& o, RunStats& stats, std::ostream& log);
}  // namespace

void run_stream_worker(const Options& o, RunStats& stats, std::ostream& log) {
    try {
        run_worker(o, stats, log);
    } catch (const nats::Error& e) {
        // Everything but a usage error is retried from the sink's state like
        // a lost binlog (for up to --retry-for without progress): besides a
        // lost cluster or a leader election, a node that was just restarted
        // answers "stream not found" or refuses the consumer for a while.
        // The stream's existence and subjects were checked at the start.
        // Before the run first connected, a NATS that cannot be reached
        // (refused, unknown host) stays what it is, so that
        // start_failure.hpp decides: no five minutes of retries for a typo
        // in the URL. (A cluster that answers but has no leader yet is
        // still retried.)
        if (!stats.connected && e.kind() == nats::ErrorKind::io) throw;
        if (e.kind() != nats::ErrorKind::usage) throw Error(ErrorKind::source_ended, std::string("NATS: ") + e.what());
        throw;
    }
}

namespace {

void run_worker(const Options& o, RunStats& stats, std::ostream& log) {
    const StreamSource source = parse_stream_source(o.source_url);
    const std::string settings = settings_text(o);
    const std::string state_name = partition_state_name(o.sink_table, o.partition);
    const std::int64_t lag = o.watermark_lag.value_or(o.gap);

    js::JetStreamClient client = js::JetStreamClient::connect(source.urls);
    const auto state_at_start = client.stream_state(source.stream);
    if (!state_at_start)
        throw Error(ErrorKind::source_ended, "stream \"" + source.stream + "\" does not exist (yet) at " + source.urls);
    if (state_at_start->subjects.empty())
        throw Error(ErrorKind::source_table, "stream \"" + source.stream + "\" has no subjects");
    Sink sink = Sink::open(o.sink_url, o.sink_table, state_name);  // creates nothing yet

    std::optional<tw::Engine> engine;
    std::optional<WatermarkRule> rule;
    std::optional<std::string> committed;  // the state row's position
    std::uint64_t replay_until = 0;  // 0: no replay (a stored position ahead of the checkpoint is >= 1)
    std::uint64_t position = 0;  // the last message applied
    if (auto state = sink.load()) {
        if (state->settings != settings)
            throw Error(ErrorKind::sink_state, "\"" + state_name + "\" was written with " + state->settings + ", not " +
                                                   settings + " (use another --sink-table, or drop its tables and its "
                                                   "sluice_pipeline_state rows to start over)");
        auto cp = tw::decode_binary(state->checkpoint);
        if (!cp) throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + state_name + "\": " + cp.error().message);
        auto restored = tw::Engine::restore(*cp);
        if (!restored)
            throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + state_name + "\": " + restored.error().message);
        auto pos = decode_source_position(restored->source_position());
        if (!pos) throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + state_name + "\" has no source position");
        engine.emplace(std::move(*restored));
        rule.emplace(lag, pos->max_ts, engine->watermark());
        position = position_seq(pos->gtid, source.stream, "the checkpoint's position of \"" + state_name + "\"");
        const std::uint64_t stored = position_seq(state->gtid, source.stream, "the position of \"" + state_name + "\"");
        if (stored != position) replay_until = stored;
        committed = state->gtid;
    } else {
        engine.emplace(tw::Config{o.gap, o.lateness});
        rule.emplace(lag);
        // A worker without state reads the stream from its first message.
        position = state_at_start->first_seq > 0 ? state_at_start->first_seq - 1 : 0;
    }
    if (state_at_start->messages > 0 && state_at_start->first_seq > position + 1)
        throw Error(ErrorKind::sink_state, "stream \"" + source.stream + "\" starts at sequence " +
                                               std::to_string(state_at_start->first_seq) + ", after " +
                                               std::to_string(position + 1) +
                                               ", the next one this worker needs (messages were removed)");
    const std::uint64_t end = state_at_start->last_seq;  // --until-end: everything the stream held at the start

    js::StreamReader reader =
        js::StreamReader::open(client, source.stream, state_at_start->subjects.front(), position + 1);
    create_sink_tables(sink);  // the source is open: now the sink's tables
    stats.connected = true;
    NdjsonTransactions lines(o.columns, o.db, o.table);
    // The open snapshot: its GTID state, the position before its first
    // chunk (what a commit may record while it is open), its rows so far.
    std::optional<std::string> snapshot;
    std::uint64_t before_snapshot = 0;
    std::vector<SourceChange> snapshot_rows;
    StringArena snapshot_arena;
    TransactionMapper mapper(o.columns);
    PartitionApplier applier(*engine, *rule, o.partition);
    // Restored from a checkpoint older than the stored position: the first
    // commit (past that position) replays messages the sink already holds.
    const bool replaying = replay_until != 0;
    // One batch age: the worker has no catch-up mode (pipeline.cpp has).
    BatchCommitter committer(sink, settings, *engine, *rule, batch_limits(o, /*catch_up=*/false), o.checkpoint_every,
                             committed, replaying, stats, o.observer);
    RunObserver& watch = observer_or_none(o.observer);
    watch.running();
    ProgressLine progress(o.progress, log);
    // Every message applied so far, except an open snapshot's chunks.
    auto stable_position = [&] { return position_text(source.stream, snapshot ? before_snapshot : position); };
    auto progress_line = [&](bool last_line) {
        if (!progress.due(std::chrono::steady_clock::now(), last_line)) return;
        const std::string where = "partition " + std::to_string(o.partition.index) + "/" +
                                  std::to_string(o.partition.count) + ": stream sequence " + std::to_string(position) +
                                  ", ";
        progress.write(where, stats, committer.last_commit_time(), /*sink_time=*/false, wall_seconds_now());
    };

    for (;;) {
        if (o.until_end && position >= end) break;
        if (watch.stop_requested()) break;  // graceful stop: commit below what is applied
        const bool waiting = !reader.pending();
        // With something to commit, look for input briefly; else block longer.
        auto m = reader.next(waiting && !committer.holds_nothing() ? std::chrono::milliseconds(20)
                                                                   : std::chrono::milliseconds(500));
        if (m) {
            if (m->seq <= position) continue;  // delivered again after the consumer was recreated
            if (m->seq != position + 1)
                throw Error(ErrorKind::source_ended, "stream \"" + source.stream + "\" delivered sequence " +
                                                         std::to_string(m->seq) + " after " + std::to_string(position) +
                                                         "; reading again from the stored position");
            const std::string where = "stream \"" + source.stream + "\" sequence " + std::to_string(m->seq);
            const ParsedLine& line = lines.parse(m->data, where);
            if (snapshot && (line.transaction || (line.snapshot != SnapshotPart::none && line.snapshot_gtid != *snapshot)))
                throw Error(ErrorKind::source_image, where + ": " +
                                                         (line.transaction ? "a transaction"
                                                                           : "a line of snapshot " + line.snapshot_gtid) +
                                                         " inside snapshot " + *snapshot +
                                                         " (no done or aborted line between them)");
            if (line.snapshot == SnapshotPart::chunk) {
                if (!snapshot) {
                    snapshot = line.snapshot_gtid;
                    before_snapshot = position;
                }
                for (SourceChange c : line.changes) {  // their text views the parser's buffer: copy it
                    for (SourceValue& v : *c.after)
                        if (v.kind == SourceValue::Kind::text) v.text = snapshot_arena.store(v.text);
                    snapshot_rows.push_back(c);
                }
            } else if (line.snapshot == SnapshotPart::done) {
                // The whole snapshot is one Tideweave transaction (as in
                // pipeline.cpp, with the same name): its rows come in key
                // order, not in time, so no watermark moves inside it.
                mapper.begin();
                for (const SourceChange& c : snapshot_rows) mapper.add(c);
                auto outcome = applier.apply(mapper, "snapshot:" + line.snapshot_gtid, committer.open_batch());
                stats.snapshot_rows += mapper.changes();
                stats.late += outcome.late;
                stats.rejected += outcome.rejected;
                watch.snapshot_applied(mapper.changes(), outcome.late, outcome.rejected);
                snapshot.reset();
                snapshot_rows.clear();
                snapshot_arena.clear();
            } else if (line.snapshot == SnapshotPart::aborted) {
                snapshot.reset();
                snapshot_rows.clear();
                snapshot_arena.clear();
            } else if (line.transaction) {
                mapper.begin();
                for (const SourceChange& c : line.changes) mapper.add(c);
                auto outcome = applier.apply(mapper, line.gtid, committer.open_batch());
                ++stats.source_transactions;
                stats.row_changes += mapper.changes();
                stats.late += outcome.late;
                stats.rejected += outcome.rejected;
                committer.source_commit_time(line.timestamp);
                watch.source_transaction(mapper.changes(), outcome.late, outcome.rejected, line.timestamp,
                                         replay_until != 0 && m->seq <= replay_until);
            }
            position = m->seq;
            committer.moved();
        }
        if (snapshot) continue;  // nothing to commit until its done (or aborted) line
        if (replay_until && position < replay_until) continue;
        replay_until = 0;
        // Waiting for the writer only once a read found nothing: a message
        // just read may well have a successor on its way.
        if (committer.due(reader.pending(), /*source_quiet=*/!m)) committer.commit(stable_position());
        progress_line(false);
    }
    if (replay_until && position < replay_until)
        throw Error(ErrorKind::sink_state, "stream \"" + source.stream + "\" ended before the stored position " +
                                               std::to_string(replay_until) + " of \"" + state_name + "\"");
    // (--until-end inside an open snapshot: the publisher was killed during
    // it; the commit records the position before its first chunk.)
    if (committer.behind(stable_position())) committer.commit(stable_position());
    committer.finish();
    progress_line(true);
}

}  // namespace

}  // namespace sluice::pipeline
