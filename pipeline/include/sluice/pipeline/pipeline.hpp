#pragma once
// The pipeline: a MariaDB table's row changes (binlog CDC, or the NATS
// JetStream stream the CDC publisher fills) -> Tideweave session windows ->
// PostgreSQL, exactly once (docs/pipeline.md).
//
//   Options o{...};
//   int status = run_with_retries(o, std::cerr);
//
// run_once() is one attempt: make the source the URL names (source.hpp),
// open the sink, and run() (run.hpp): restore from the sink (or start as
// --from-* says when the sink holds no state for NAME), follow the source,
// commit batches; it throws on any failure. run_with_retries() retries lost
// connections with backoff (each retry restores from the sink again, so
// resuming is exact) and turns the rest into a message and an exit status.
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>

#include "sluice/pipeline/commit_policy.hpp"
#include "sluice/pipeline/key_partition.hpp"
#include "sluice/pipeline/mapping.hpp"

namespace sluice::pipeline {

class RunObserver;  // run_observer.hpp

// What every run has, whatever its source: the table and its mapping, the
// engine's settings, the sink and how it is committed to.
struct RunOptions {
    std::string db, table;   // --table DB.TABLE
    ColumnNames columns;     // --id --key --ts --value
    std::string sink_url;    // postgresql://...
    std::string sink_table;  // NAME
    std::int64_t gap = 10;
    std::int64_t lateness = 20;
    std::optional<std::int64_t> watermark_lag;  // default: the gap
    bool until_end = false;
    // A full checkpoint goes with every Nth sink commit (and the first);
    // the others store only the position, and a restart replays from the
    // last checkpoint's position (idempotent, docs/pipeline.md).
    std::size_t checkpoint_every = 16;
    // Sink transaction size limits (row changes / age of the batch). A
    // batch is also cut whenever the source has nothing more waiting, so
    // the age only cuts batches while the source keeps the pipeline busy.
    // While catching up (the newest source transaction read committed more
    // than catch_up_behind ago, by the source's clock against ours) the
    // age is catch_up_age: every cut costs PostgreSQL an upsert of each
    // session open at the cut (~13 us a row against ~3 for a new row), and
    // with 200 ms PostgreSQL's CPU in the catch-up benchmark was ~40%
    // higher; 1 s is more than a full batch takes to build. While
    // following, the age keeps the lag short when the pipeline falls
    // behind for a moment. (A source without a catch-up mode, a JetStream
    // worker, cuts at the one age.)
    BatchLimits batch;
    // A source transaction (or snapshot) of more row changes than this is
    // mapped and applied a part of this many at a time, into one open
    // Tideweave transaction (issue 25, docs/pipeline.md "Huge
    // transactions"): the mapped changes held stay bounded by the part.
    std::size_t part_changes = 8192;
    // Keep retrying lost connections this long since the last progress.
    std::chrono::milliseconds retry_for{std::chrono::minutes(5)};
    // At start (before every connection of the run has worked once), keep
    // retrying failed connections this long; 0: fail at the first
    // (start_failure.hpp, issue 32).
    std::chrono::milliseconds connect_timeout{0};
    bool progress = true;  // a line on stderr at most once a second
    // --metrics and graceful stop (run_observer.hpp); null: none. Not a
    // setting of the sink's tables.
    RunObserver* observer = nullptr;

    // The watermark rule's lag: --watermark-lag, else the gap.
    std::int64_t lag() const { return watermark_lag.value_or(gap); }
};

enum class StartMode { from_start, from_gtid, from_now, snapshot };

// A mariadb:// source's own: where a fresh sink starts (--from-*).
struct BinlogOptions {
    StartMode start = StartMode::snapshot;
    std::string from_gtid;
    // With several servers in the source URL (issue 26): a lost server not
    // back within this long is left for the next (--failover-after), and a
    // server that lacks applied transactions stops the run unless
    // continue_after_lost (--on-lost-transactions continue).
    std::chrono::milliseconds failover_after{10000};
    bool continue_after_lost = false;
};

// A nats:// source's own (stream_source.hpp).
struct JetStreamOptions {
    // --partition I/N: apply the keys of partition I.
    Partition partition;
};

struct Options {
    std::string source_url;  // mariadb://..., or nats://HOST:PORT?stream=NAME (stream_source.hpp)
    RunOptions run;
    BinlogOptions binlog;
    JetStreamOptions jetstream;
};

// The arguments that shape the sink's tables, stored with the state: a
// restart with different ones is refused rather than mixing two mappings.
std::string settings_text(const RunOptions& o);

struct RunStats {
    std::uint64_t source_transactions = 0;
    std::uint64_t row_changes = 0;    // of source transactions
    std::uint64_t snapshot_rows = 0;  // of snapshots (not row changes: rows as they were, issue 32)
    std::uint64_t sink_commits = 0;
    std::uint64_t late = 0;
    std::uint64_t rejected = 0;
    // Row changes of the source transaction being applied in parts, read
    // so far (0 between transactions): the progress line shows that a
    // long transaction is moving.
    std::uint64_t in_flight = 0;
    double sink_seconds = 0;  // wall time inside sink commits (the rest: reading, decoding, the engine)
    bool connected = false;   // every connection of the run (source, sink, NATS) has worked once
    // The source (its check: MariaDB, or NATS and the stream) and the sink
    // (Sink::open) each answered once: a later failure of that side is an
    // outage, retried, even before `connected` (start_failure.hpp).
    bool source_reached = false;
    bool sink_reached = false;
};

// One attempt; throws. `stats` accumulates across attempts.
void run_once(const Options& options, RunStats& stats, std::ostream& log);

// Exit status: 0 done (--until-end), 1 a failure (message on `log`), 2 a
// usage error found on the way (an option the URL cannot have, ...).
int run_with_retries(const Options& options, std::ostream& log);

}  // namespace sluice::pipeline
