#pragma once
// Where a run's row changes come from. run() (run.hpp) drives every source
// the same way; a source only reads, maps its input to SourceChanges and
// says where it is:
//   - BinlogSource: the binlog of a MariaDB server (mariadb://...), through
//     mariadb's ChangeStream; positions are GTID states.
//   - JetStreamSource: a NATS JetStream stream that `sluice-mariadb cdc --to`
//     fills (nats://...?stream=NAME), one CDC line a message, read by every
//     worker of a partitioned pipeline; positions are
//     "jetstream:STREAM:SEQ".
// make_source() picks one from the URL.
//
//   std::unique_ptr<Source> source = make_source(options);
//   source->check();                       // before the sink is touched
//   Sink sink = Sink::open(url, name, source->state_name());
//   source->open(resume);                  // the stored positions, if any
//   for (;;) { Step s = source->next(mapper, holding); ... source->position() ... }
//
// A run holds its commits back while the source is before the stored
// position (a replay after a checkpoint older than the state row), and cuts
// commits only where the source is resumable (never inside a snapshot).
//
// Failures: a source throws the errors of what it reads (mariadb::Error,
// pipeline::Error); a source that is lost and worth reading again from the
// sink's state says so with a transient error (or a `lost` step, after
// which run() commits what it holds and throws Error{source_ended}).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "sluice/pipeline/commit_policy.hpp"
#include "sluice/pipeline/error.hpp"
#include "sluice/pipeline/key_partition.hpp"
#include "sluice/pipeline/pipeline.hpp"
#include "sluice/pipeline/source_change.hpp"
#include "sluice/pipeline/transaction_mapper.hpp"

namespace sluice::pipeline {

// Where a run with stored state resumes: the position its checkpoint was
// taken at (reading goes on from there) and the state row's position (what
// the sink holds; ahead of the checkpoint's when the run must replay).
struct Resume {
    std::string checkpoint_position;
    std::string stored_position;
};

// One thing a source read.
struct Step {
    enum class Kind {
        transaction,       // a source transaction of the table: the mapper holds its changes (its last part)
        snapshot_rows,     // rows of the table's snapshot (`rows`), applied as they come
        snapshot_done,     // the snapshot is complete: its rows are one transaction, committed now
        snapshot_aborted,  // the snapshot will never complete (its publisher was killed): its rows are taken back
        skipped,           // the position moved past input without rows of the table (other tables, DDL)
        idle,              // nothing arrived while waiting; the position did not move
        end,               // --until-end: everything the source held at the start is read
        lost,              // the source went away (its server shut down): `text` says so
    };
    Kind kind = Kind::idle;
    // transaction: its GTID (D-S-N); snapshot_done: the snapshot's GTID
    // state; lost: what happened. Valid until the next call of next().
    std::string_view text;
    std::uint32_t timestamp = 0;  // transaction: its commit time at the source (seconds since the epoch)
    // snapshot_rows: valid until the next call of next() (the run applies
    // a snapshot's rows as they come, issue 25; a snapshot refused by
    // Tideweave is read again from the run's spill file, not the source).
    std::span<const SourceChange> rows;
    // Nothing more had arrived by the time this step was read: a source
    // that blocks for input (the binlog) always, a polling one (JetStream)
    // after a poll that found nothing. (Commits wait for the sink writer
    // only then, rather than leave a batch for input that may not come.)
    bool quiet = true;
};

class Source {
public:
    Source() = default;
    Source(const Source&) = delete;
    Source& operator=(const Source&) = delete;
    virtual ~Source();

    // The sluice_pipeline_state row this source's runs keep: NAME, or a
    // partition's NAME#I/N.
    virtual std::string state_name() const = 0;
    // The keys this run applies (all of them: partition 0 of 1).
    virtual Partition partition() const = 0;
    // Several runs (a partitioned pipeline's workers) share NAME's tables,
    // each with a state row of its own: they race to create them.
    virtual bool shares_sink_tables() const = 0;
    // `asked` as this source cuts batches (a source without a catch-up
    // mode cuts at the one age).
    virtual BatchLimits batch_limits(const BatchLimits& asked) const = 0;

    // Checks the source before the sink is opened (the table and its
    // columns, the stream and its subjects).
    virtual void check() = 0;
    // Starts reading after `resume`'s checkpoint position, or, without
    // one, where a fresh run starts. Error{sink_state} for a stored
    // position this source cannot resume from.
    virtual void open(const std::optional<Resume>& resume) = 0;
    // Not yet past the stored position of open()'s `resume`.
    virtual bool before_stored() const = 0;
    // The failure of a source that ended before_stored().
    virtual Error ended_before_stored() const = 0;

    // The next step. A transaction's changes go into `mapper` (begun
    // anew). `holding`: the run has something to commit (a polling source
    // waits less for input then).
    virtual Step next(TransactionMapper& mapper, bool holding) = 0;
    // Maps the changes of the last transaction step again into `mapper`
    // (begun anew, its part handler called as in next()): the engine
    // refused a transaction given in parts, whose earlier parts are gone
    // (SessionApplier::finish). Only right after that step.
    virtual void read_transaction_again(TransactionMapper& mapper) = 0;
    // A commit may be cut here (not inside a snapshot).
    virtual bool resumable() const = 0;
    // The position as the state row stores it: everything read so far
    // (but an open snapshot).
    virtual std::string position() const = 0;
    // More input already arrived: reading on will not block.
    virtual bool input_pending() const = 0;

    // What the progress line says before its counts ("" or "partition
    // 0/2: stream sequence 42, "), and whether it shows the time spent in
    // sink commits.
    virtual std::string progress_where() const = 0;
    virtual bool progress_shows_sink_time() const = 0;
};

// The source `options.source_url` names: nats://... a JetStreamSource,
// anything else a BinlogSource (a bad URL is Error{usage} or
// mariadb::Error{usage}).
std::unique_ptr<Source> make_source(const Options& options);

}  // namespace sluice::pipeline
