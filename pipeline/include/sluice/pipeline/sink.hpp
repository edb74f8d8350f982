#pragma once
// The PostgreSQL sink: the tables of one pipeline NAME and its stored state.
//
//   NAME          (key text, start bigint, "end" bigint, count bigint, sum, min, max
//                  double precision, final boolean, PRIMARY KEY (key, start))
//   NAME_late     (id text, key text, ts bigint, gtid text, seq bigint, op text,
//                  value double precision, PRIMARY KEY (gtid, seq))
//   NAME_rejected (gtid text, seq bigint, image text, id text, key text, ts text,
//                  value text, reason text, PRIMARY KEY (gtid, seq))
//   sluice_pipeline_state (name text PRIMARY KEY, gtid text, checkpoint bytea,
//                  settings text)
//
// open() connects and checks every existing table's columns (a mismatch is
// Error{sink_schema}); it creates nothing, so that a run whose source then
// fails (a missing privilege) leaves no empty tables. load() reads the state
// (none while the tables do not exist yet); create_tables() creates the
// missing ones in one transaction, once the source is open. commit() writes a SinkBatch, the GTID state and
// (when given) the binary Tideweave checkpoint in ONE transaction; rows new
// to NAME are COPYed into it directly (open_sink_rows.hpp).
//
// Failures of PostgreSQL itself are sluice::postgres::Error (a lost
// connection: kind connection); the caller retries from the stored state.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/pipeline/open_sink_rows.hpp"
#include "sluice/pipeline/sink_batch.hpp"
#include "sluice/postgres/connection.hpp"
#include "sluice/postgres/copy.hpp"
#include "sluice/postgres/transaction.hpp"

namespace sluice::pipeline {

struct StoredState {
    std::string gtid;        // the GTID state the sink's tables correspond to
    std::string checkpoint;  // binary Tideweave checkpoint (its source position may be older: replay)
    std::string settings;    // the arguments that shape the tables (settings_text)
};

// A NAME that the sink accepts: [A-Za-z_][A-Za-z0-9_]*, at most 54 bytes (so
// NAME_rejected fits PostgreSQL's 63-byte identifiers). Error{usage} else.
void check_sink_name(const std::string& name);

class Sink {
public:
    // `state_name`: the sluice_pipeline_state row (default: NAME); the
    // workers of a partitioned pipeline share NAME's tables, each with a row
    // of its own.
    static Sink open(const std::string& url, const std::string& name, const std::string& state_name = {});

    // The stored state, and (read with it, at the same state) the open
    // rows NAME holds: call before the first commit. Tables that do not
    // exist yet hold nothing (no state, no rows).
    std::optional<StoredState> load();
    // Creates the tables that are missing (one transaction) and this
    // session's staging tables: call after load(), before commit().
    // `shared`: other processes may create the same tables at the same
    // moment (the workers of one stream); the loser of that race creates
    // again (up to five times). Unshared, a concurrent creator's duplicate
    // is a postgres::Error.
    void create_tables(bool shared = false);
    // Error{connection} (postgres) when PostgreSQL has ended the connection
    // since its last statement (postgres::Connection::check_not_ended):
    // called while nothing is being committed, so a sink lost during a
    // quiet spell is retried then, not at the next commit.
    void check_connection() { conn_.check_not_ended(); }
    // One PostgreSQL transaction: the batch's net rows, late and rejected
    // rows, and the state (gtid, settings, and checkpoint when given).
    // `previous_gtid` is the state's gtid before (nullopt: no state yet);
    // if another writer moved it, Error{sink_moved} and nothing is written.
    // `replay`: the batch holds source transactions the sink already has
    // (open_sink_rows.hpp): every row is upserted or deleted.
    void commit(const SinkBatch& batch, const std::optional<std::string>& previous_gtid, const std::string& gtid,
                const std::string* checkpoint, const std::string& settings, bool replay);

    // A huge source transaction in slices (issue 25; docs/pipeline.md,
    // "Huge transactions"): write_slice() writes a batch's session rows
    // into the open sink transaction, beginning it if none is open (the
    // state row, at `previous_gtid`, is locked then, so that a writer that
    // moved it is found before any row is written: Error{sink_moved}); the
    // next commit() finishes that transaction. A slice with a savepoint
    // (SinkBatch::savepoint_at) writes the rows before it, sets a
    // SAVEPOINT, then writes the rest; take_back_slices() rolls back to it
    // (the engine refused the transaction): the rows before it, of the
    // earlier source transactions, stay for the commit. A failure leaves
    // the transaction to be rolled back with the Sink (the retry opens a
    // new one).
    void write_slice(const SinkBatch& slice, const std::optional<std::string>& previous_gtid, bool replay);
    void take_back_slices();

    postgres::Connection& connection() { return conn_; }

    // Rows a slice put final ahead of their commit (SinkBatch::put_final_ahead)
    // that the commit's finalization then found in place, and those it did
    // not reach, set back to open at the commit (none while the run's
    // prediction holds). Since this Sink opened.
    std::uint64_t rows_final_in_place() const { return in_place_; }
    std::uint64_t rows_reopened() const { return reopened_; }

private:
    Sink(postgres::Connection conn, std::string name, std::string state_name);
    void create_tables_once();
    void prepare_statements();
    // The net changes' rows, as the open-rows plan sorts them: COPY, staged
    // upsert, staged delete. `reuse_stages`: the staging tables are emptied
    // after use (the transaction goes on: ON COMMIT DELETE ROWS has not run).
    // `keep_copy`: new rows go on in slice_copy_, left open if nothing else
    // is written (a slice).
    void write_rows(const std::vector<NetChange>& net, bool idempotent, bool reuse_stages, bool keep_copy = false);
    void begin_transaction(const std::optional<std::string>& previous_gtid);
    // Rows still held final ahead after `net` (OpenSinkRows::left_ahead)
    // are set back to final = false in NAME. The run's prediction
    // (SessionApplier::slice) leaves none; this is what keeps a wrong one
    // from showing an open row as final, or from hiding it from the open
    // rows read back after a rollback to the savepoint.
    void reopen_left_ahead(const std::vector<NetChange>& net);

    postgres::Connection conn_;
    std::string name_;
    std::string state_name_;
    OpenSinkRows open_;     // what NAME holds open, as of the last load or commit
    bool trusted_ = false;  // open_ is all NAME holds that a batch may touch (else: upsert everything)
    std::optional<postgres::Statement> upsert_, remove_, reopen_, late_, reject_, state_insert_, state_update_,
        state_update_checkpoint_, state_lock_;
    std::uint64_t in_place_ = 0, reopened_ = 0;
    // The transaction slices went into, until commit() (declared after
    // conn_: it rolls back before the connection goes).
    std::unique_ptr<postgres::Transaction> open_tx_;
    bool savepoint_ = false;  // the open transaction has the savepoint of a transaction in slices
    // The COPY into NAME that slices of new rows go on writing: one
    // statement for a run of slices, so that PostgreSQL works on one
    // slice's rows while the writer plans the next (a COPY a slice, it
    // waited for each; 18% of a session-per-row transaction's COPY time).
    // Ended (its errors surfacing then) before any other statement:
    // end_slice_copy(). Declared last: abandoned before the transaction
    // rolls back.
    std::optional<postgres::CopyIn> slice_copy_;
    void end_slice_copy();
};

}  // namespace sluice::pipeline
