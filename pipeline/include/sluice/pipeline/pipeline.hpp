#pragma once
// The pipeline: a MariaDB table's row changes (binlog CDC) -> Tideweave
// session windows -> PostgreSQL, exactly once (docs/pipeline.md).
//
//   Options o{...};
//   int status = run_with_retries(o, std::cerr);
//
// run_once() is one attempt: restore from the sink (or start as --from-*
// says when the sink holds no state for NAME), follow the binlog, commit
// batches; it throws on any failure. run_with_retries() retries lost
// connections with backoff (each retry restores from the sink again, so
// resuming is exact) and turns the rest into a message and an exit status.
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "sluice/pipeline/key_partition.hpp"
#include "sluice/pipeline/mapping.hpp"

namespace sluice::pipeline {

class RunObserver;  // run_observer.hpp

enum class StartMode { from_start, from_gtid, from_now, snapshot };

struct Options {
    std::string source_url;  // mariadb://..., or nats://HOST:PORT?stream=NAME (stream_worker.hpp)
    std::string db, table;   // --table DB.TABLE
    ColumnNames columns;     // --id --key --ts --value
    std::string sink_url;    // postgresql://...
    std::string sink_table;  // NAME
    std::int64_t gap = 10;
    std::int64_t lateness = 20;
    std::optional<std::int64_t> watermark_lag;  // default: the gap
    StartMode start = StartMode::snapshot;
    std::string from_gtid;
    bool until_end = false;
    // A full checkpoint goes with every Nth sink commit (and the first);
    // the others store only the GTID state, and a restart replays from the
    // last checkpoint's position (idempotent, docs/pipeline.md).
    std::size_t checkpoint_every = 16;
    // Sink transaction size limits (row changes / age of the batch). A
    // batch is also cut whenever the binlog has nothing more waiting, so
    // the age only cuts batches while the source keeps the pipeline busy.
    // While catching up (the newest source transaction read committed more
    // than catch_up_behind ago, by the binlog's clock against ours) the
    // age is catch_up_batch_age: every cut costs PostgreSQL an upsert of
    // each session open at the cut (~13 us a row against ~3 for a new
    // row), and with 200 ms PostgreSQL's CPU in the catch-up benchmark was
    // ~40% higher; 1 s is more than a full batch takes to build. While
    // following, batch_age keeps the lag short when the pipeline falls
    // behind for a moment.
    std::size_t batch_row_changes = 100000;
    std::chrono::milliseconds batch_age{200};
    std::chrono::milliseconds catch_up_batch_age{1000};
    std::chrono::seconds catch_up_behind{2};
    // Keep retrying lost connections this long since the last progress.
    std::chrono::milliseconds retry_for{std::chrono::minutes(5)};
    // At start (before every connection of the run has worked once), keep
    // retrying failed connections this long; 0: fail at the first
    // (start_failure.hpp, issue 32).
    std::chrono::milliseconds connect_timeout{0};
    bool progress = true;  // a line on stderr at most once a second
    // --partition I/N (a nats:// source only): apply the keys of partition I.
    Partition partition;
    // --metrics and graceful stop (run_observer.hpp); null: none. Not a
    // setting of the sink's tables.
    RunObserver* observer = nullptr;
};

// The arguments that shape the sink's tables, stored with the state: a
// restart with different ones is refused rather than mixing two mappings.
std::string settings_text(const Options& o);

struct RunStats {
    std::uint64_t source_transactions = 0;
    std::uint64_t row_changes = 0;    // of source transactions
    std::uint64_t snapshot_rows = 0;  // of snapshots (not row changes: rows as they were, issue 32)
    std::uint64_t sink_commits = 0;
    std::uint64_t late = 0;
    std::uint64_t rejected = 0;
    double sink_seconds = 0;  // wall time inside sink commits (the rest: reading, decoding, the engine)
    bool connected = false;   // every connection of the run (source, sink, NATS) has worked once
};

// One attempt; throws. `stats` accumulates across attempts.
void run_once(const Options& options, RunStats& stats, std::ostream& log);

// Exit status: 0 done (--until-end), 1 a failure (message on `log`), 2 a
// usage error found on the way (an option the URL cannot have, ...).
int run_with_retries(const Options& options, std::ostream& log);

}  // namespace sluice::pipeline
