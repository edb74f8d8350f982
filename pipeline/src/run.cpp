// The one run loop (run.hpp): restore, open the source, apply what it reads,
// hold commits back until a replay is past the stored position, cut batches
// where the source is resumable, finish.
#include "sluice/pipeline/run.hpp"

#include <chrono>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "batch_committer.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/progress_line.hpp"
#include "sluice/pipeline/run_observer.hpp"
#include "sluice/pipeline/session_applier.hpp"
#include "sluice/pipeline/snapshot_spill.hpp"
#include "sluice/pipeline/source_position.hpp"
#include "sluice/postgres/error.hpp"
#include "sluice/tideweave/checkpoint.hpp"

namespace sluice::pipeline {

namespace tw = sluice::tideweave;

std::string settings_text(const RunOptions& o) {
    return "table=" + o.db + "." + o.table + " id=" + o.columns.id + " key=" + o.columns.key + " ts=" + o.columns.ts +
           " value=" + o.columns.value + " gap=" + std::to_string(o.gap) + " lateness=" + std::to_string(o.lateness) +
           " watermark-lag=" + std::to_string(o.lag());
}

namespace {

// What a run starts from: the engine and watermark rule (restored from the
// sink's checkpoint, or fresh), and the stored positions.
struct Start {
    std::optional<tw::Engine> engine;
    std::optional<WatermarkRule> rule;
    std::optional<Resume> resume;
};

Start restore(Sink& sink, const Source& source, const RunOptions& o, const std::string& settings) {
    Start s;
    auto state = sink.load();
    if (!state) {
        s.engine.emplace(tw::Config{o.gap, o.lateness});
        s.rule.emplace(o.lag());
        return s;
    }
    const std::string name = source.state_name();
    // The words the two loops had before they were one, kept as they were
    // (a worker's NAME has a state row per partition).
    const bool shared = source.shares_sink_tables();
    if (state->settings != settings)
        throw Error(ErrorKind::sink_state, "\"" + name + "\" was written with " + state->settings + ", not " + settings +
                                               " (use another --sink-table, or drop its tables and its "
                                               "sluice_pipeline_state " +
                                               (shared ? "rows" : "row") + " to start over)");
    auto cp = tw::decode_binary(state->checkpoint);
    if (!cp) throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + name + "\": " + cp.error().message);
    auto restored = tw::Engine::restore(*cp);
    if (!restored)
        throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + name + "\": " + restored.error().message);
    auto pos = decode_source_position(restored->source_position());
    if (!pos)
        throw Error(ErrorKind::sink_state, "the stored checkpoint of \"" + name + "\" has no " +
                                               (shared ? "source position" : "pipeline source position"));
    s.engine.emplace(std::move(*restored));
    s.rule.emplace(o.lag(), pos->max_ts, s.engine->watermark());
    s.resume = Resume{pos->gtid, state->gtid};
    return s;
}

// `rows`: the count the mapper's changes add to (a source transaction's
// row changes, or a snapshot's rows: issue 32 counts them apart).
void count(RunStats& stats, std::uint64_t& rows, const TransactionMapper& mapper,
           const SessionApplier::Outcome& outcome) {
    rows += mapper.changes();
    stats.late += outcome.late;
    stats.rejected += outcome.rejected;
}

}  // namespace

void run(Source& source, Sink& sink, const RunOptions& o, RunStats& stats, std::ostream& log) {
    const std::string settings = settings_text(o);
    Start start = restore(sink, source, o, settings);
    // Checks the stored position against the source and opens it; only then
    // the sink's tables (a source refusing the replication leaves no empty
    // tables behind).
    source.open(start.resume);
    sink.create_tables(source.shares_sink_tables());
    stats.connected = true;  // from here on a failed connection is an outage, retried (start_failure.hpp)

    TransactionMapper mapper(o.columns);
    SessionApplier applier(*start.engine, *start.rule, source.partition());
    // The open snapshot (one Tideweave transaction) is applied a chunk at
    // a time as its rows come (each chunk's text is the source's until the
    // next step): only its spill file holds them, for a second reading if
    // Tideweave refuses it (docs/pipeline.md, "Huge transactions").
    bool in_snapshot = false;
    SnapshotSpill spill;
    // Restored from a checkpoint older than the stored position: the first
    // commit (past that position) replays what the sink already holds.
    const bool replaying = start.resume && start.resume->stored_position != start.resume->checkpoint_position;
    bool gated = replaying;
    std::optional<std::string> committed;  // the state row's position
    if (start.resume) committed = start.resume->stored_position;
    BatchCommitter committer(sink, settings, *start.engine, *start.rule, source.batch_limits(o.batch),
                             o.checkpoint_every, committed, replaying, stats, o.observer);
    // A transaction in parts that changes as many sessions as a part has
    // changes goes to the sink in slices of about that many while it is
    // open (docs/pipeline.md, "Huge transactions"): the engine's changelog
    // and the batch then hold one slice, not a row per session it changes.
    applier.slice_into(committer, o.part_changes);
    RunObserver& watch = observer_or_none(o.observer);
    watch.running();
    ProgressLine progress(o.progress, log);
    auto progress_line = [&](bool last_line) {
        if (progress.due(std::chrono::steady_clock::now(), last_line))
            progress.write(source.progress_where(), stats, committer.last_commit_time(),
                           source.progress_shows_sink_time(), wall_seconds_now());
    };

    // A transaction (or snapshot) larger than a part is applied a part at
    // a time as the source maps it (SessionApplier::apply_part), the
    // progress line showing its rows in flight.
    // The line is written at once at a transaction's first part (a user
    // sees that a long one started), then at most once a second.
    mapper.split_into_parts(o.part_changes, [&](TransactionMapper& part) {
        applier.apply_part(part, committer.open_batch());
        const bool first_part = stats.in_flight == 0;
        stats.in_flight = part.changes();
        progress_line(first_part);
    });
    // Applies what the mapper holds (a whole transaction, or the last part
    // of one given in parts). A transaction refused in parts is read again
    // (`again`), its changes then going to NAME_rejected.
    auto apply = [&](std::string_view gtid, const std::function<void()>& again) {
        if (!applier.in_transaction()) return applier.apply(mapper, gtid, committer.open_batch());
        auto outcome = applier.finish(mapper, gtid, committer.open_batch());
        if (!outcome) {
            again();
            outcome = applier.finish(mapper, gtid, committer.open_batch());
        }
        stats.in_flight = 0;
        return *outcome;
    };

    std::optional<std::string> lost;
    bool stopped = false;
    for (;;) {
        const Step step = source.next(mapper, !committer.holds_nothing());
        // Parts applied for a transaction the step does not finish (rolled
        // back at the source after parts went out) are void. An open
        // snapshot's parts wait for its done step, through idle and skipped
        // steps (a worker polling for its next chunk), unless it is aborted
        // or the source ends.
        const bool parts_void = in_snapshot ? step.kind == Step::Kind::snapshot_aborted ||
                                                  step.kind == Step::Kind::end || step.kind == Step::Kind::lost
                                            : step.kind != Step::Kind::transaction;
        if (parts_void && applier.in_transaction()) {
            applier.abandon(committer.open_batch());
            stats.in_flight = 0;
        }
        if (step.kind == Step::Kind::end) {
            // (A source may end its step early for a graceful stop inside
            // a transaction in parts: a JetStream worker whose next part is
            // long in coming, the binlog inside a huge one.)
            stopped = watch.stop_requested();
            break;
        }
        if (step.kind == Step::Kind::lost) {
            lost = std::string(step.text);
            break;
        }
        switch (step.kind) {
            case Step::Kind::transaction: {
                const auto outcome = apply(step.text, [&] { source.read_transaction_again(mapper); });
                ++stats.source_transactions;
                count(stats, stats.row_changes, mapper, outcome);
                committer.source_commit_time(step.timestamp);
                // Replayed: the sink has it already (at or before the stored position).
                const bool replayed =
                    gated && (source.before_stored() || source.position() == start.resume->stored_position);
                watch.source_transaction(mapper.changes(), outcome.late, outcome.rejected, step.timestamp, replayed);
                break;
            }
            case Step::Kind::snapshot_rows: {
                // The whole snapshot is one Tideweave transaction: its rows
                // come in key order, not in time, so no watermark moves
                // inside it. Each chunk is applied as a part now (its text
                // goes at the next step).
                if (!in_snapshot) {
                    mapper.begin();
                    spill.begin();
                    in_snapshot = true;
                }
                for (const SourceChange& c : step.rows) {
                    spill.add(c);
                    mapper.add(c);
                }
                mapper.end_part();
                break;
            }
            case Step::Kind::snapshot_done: {
                if (!in_snapshot) {  // no rows: an empty transaction
                    mapper.begin();
                    spill.begin();
                }
                in_snapshot = false;
                // Refused: read again from the spill file, a part at a time.
                auto read_again = [&] {
                    mapper.begin();
                    spill.read_back(o.part_changes, [&](std::span<const SourceChange> rows) {
                        for (const SourceChange& c : rows) mapper.add(c);
                        mapper.end_part();
                    });
                };
                const auto outcome = apply("snapshot:" + std::string(step.text), read_again);
                count(stats, stats.snapshot_rows, mapper, outcome);
                watch.snapshot_applied(mapper.changes(), outcome.late, outcome.rejected);
                break;
            }
            case Step::Kind::snapshot_aborted:
                // Its parts were abandoned above (nothing of it stays).
                in_snapshot = false;
                mapper.begin();
                break;
            default: break;  // skipped, idle: nothing to apply
        }
        if (step.kind != Step::Kind::idle) committer.moved();
        if (!source.resumable()) continue;
        if (watch.stop_requested()) {  // graceful stop: commit below what is applied
            stopped = true;
            break;
        }
        if (gated) {
            if (source.before_stored()) continue;
            gated = false;
        }
        // A quiet moment (a binlog heartbeat, a poll that found nothing): a
        // sink PostgreSQL ended meanwhile is found now, not at the next
        // commit, which may be long in coming.
        if (step.kind == Step::Kind::idle) committer.check_idle_sink();
        if (committer.due(source.input_pending(), step.quiet)) committer.commit(source.position());
        progress_line(false);
    }
    // A source that ended inside a transaction given in parts (a JetStream
    // worker stopped between them): nothing of it is applied.
    applier.abandon(committer.open_batch());
    stats.in_flight = 0;
    // Short of the stored position (replaying): nothing may be committed,
    // which would move the state row back. A graceful stop there commits
    // nothing; any other end there is an error.
    const bool short_of_stored = gated && source.before_stored();
    if (short_of_stored && !stopped) throw source.ended_before_stored();
    // --until-end: everything the source held at the start is applied.
    // (Positions can move without a step: other tables' transactions.)
    const std::string end = source.position();
    if (!short_of_stored && committer.behind(end)) committer.commit(end);
    committer.finish();
    progress_line(true);
    // A lost source: what was read is committed; the next attempt goes on
    // from the sink's state (unless a stop was asked for meanwhile).
    if (lost && !watch.stop_requested()) throw Error(ErrorKind::source_ended, *lost);
}

}  // namespace sluice::pipeline
