#pragma once
// What one sink transaction writes, gathered from one or more source
// transactions: the net effect on NAME per (key, start) (a row put, or a
// row removed), the late mutations for NAME_late and the rejected rows for
// NAME_rejected. Sans-I/O: the sink (sink.hpp) turns it into SQL.
//
// Net effect: the changelog's before rows are removed and its after rows
// (and finalized rows, final = true) put, in order; only the last thing
// done to a (key, start) is kept, so a session that grows a thousand times
// in a batch is written once. Applying the same changes to a table that
// already holds their result leaves it as it is (the replay argument in
// docs/pipeline.md).
//
// put() and remove() only append to a log (they run on the thread that
// reads the binlog and drives the engine, the pipeline's busiest); net()
// settles it by sorting, on the sink's thread.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/pipeline/transaction_mapper.hpp"
#include "sluice/tideweave/types.hpp"

namespace sluice::pipeline {

struct SessionRow {
    std::string key;
    std::int64_t start = 0;
    std::int64_t end = 0;
    std::int64_t count = 0;
    double sum = 0;
    double min = 0;
    double max = 0;
    bool final = false;
    friend bool operator==(const SessionRow&, const SessionRow&) = default;
};

SessionRow session_row(const tideweave::Row& r);

struct LateRow {
    std::string id;
    std::string key;
    std::int64_t ts = 0;
    std::string gtid;         // the source transaction's GTID
    std::int64_t seq = 0;     // the mutation's position in its Tideweave transaction
    std::string op;           // "insert" or "retract"
    double value = 0;         // the inserted value, or the retracted before image's
    friend bool operator==(const LateRow&, const LateRow&) = default;
};

struct RejectedSinkRow {
    std::string gtid;
    RejectedRow row;
};

// The order of net() (and of the engine's Changes, and of NAME's primary
// key under a bytewise collation): key bytes (std::string_view compares as
// unsigned char), then start. Negative, zero or positive.
inline int compare_rows(std::string_view key, std::int64_t start, std::string_view other_key,
                        std::int64_t other_start) {
    if (const int c = key.compare(other_key); c != 0) return c;
    return start < other_start ? -1 : start > other_start ? 1 : 0;
}

// The last thing a batch did to one (key, start): `row` holds the row to
// keep (put) or, removed, the (key, start) to drop. Points into the batch.
struct NetChange {
    const SessionRow* row = nullptr;
    bool removed = false;
    // Put final ahead of its commit (SinkBatch::put_final_ahead): row->final
    // is true, and the sink holds the row as it holds an open one until the
    // commit's finalization (OpenSinkRows).
    bool ahead = false;
    // Every change the range logged of this (key, start) was a finalization
    // (SinkBatch::finalize): the engine's row is the one it held before,
    // final now. A row the sink holds final ahead needs no write.
    bool finalized_only = false;
};

class SinkBatch {
public:
    void remove(const tideweave::Row& row);
    void put(const tideweave::Row& row);
    // A row the engine made final (Engine::advance_watermark): a put, told
    // apart so that a row the sink already holds final ahead is not
    // written again.
    void finalize(const tideweave::Row& row);
    // An open transaction's row that its commit will make final (its end is
    // below the watermark the commit moves to at least, and only a later
    // change of the session, which removes this row, can stop that): put
    // with final = true, so that the commit's finalization need not write
    // it again (SessionApplier::slice, docs/pipeline.md "Huge
    // transactions"). Nobody sees it before the commit: it goes into the
    // open sink transaction.
    void put_final_ahead(const tideweave::Row& row);
    void late(LateRow row) { late_.push_back(std::move(row)); }
    void reject(std::string gtid, RejectedRow row) { rejected_.push_back({std::move(gtid), std::move(row)}); }
    void count_source_transaction(std::size_t row_changes) {
        ++source_transactions_;
        row_changes_ += row_changes;
    }

    // A transaction given in parts (SessionApplier::apply_part) adds late
    // and rejected rows before its GTID is known and before it is known to
    // be accepted: from a mark, they are named (its last part gives the
    // GTID) or taken back (the engine refused it).
    struct Mark {
        std::size_t late = 0;
        std::size_t rejected = 0;
    };
    Mark mark() const { return {late_.size(), rejected_.size()}; }
    void take_back_to(Mark m);
    void name_gtid_from(Mark m, const std::string& gtid);

    // A huge transaction's session rows go to the sink in slices while it
    // is open (SessionApplier, docs/pipeline.md "Huge transactions"), so
    // that neither the engine nor the batch holds a row per session it
    // changes until the commit. savepoint(): the rows logged from here on
    // belong to a transaction that may yet be refused (the sink sets a
    // savepoint before writing them). move_sessions_to(): the session rows
    // logged so far, and the savepoint, go to `slice` (emptied first); the
    // late and rejected rows and the counts stay for the commit.
    void savepoint() { savepoint_ = used_; }
    std::optional<std::size_t> savepoint_at() const { return savepoint_; }
    void move_sessions_to(SinkBatch& slice);

    // The net effect: one change per (key, start), ordered by key (bytes)
    // then start: the order of NAME's primary key under a bytewise
    // collation, so that PostgreSQL's index takes the rows in order (random
    // order cost it over twice the CPU). Valid until the batch changes.
    std::vector<NetChange> net() const { return net(0, used_); }
    // The net effect of the changes logged in [from, to) (a slice's rows
    // before its savepoint, and after).
    std::vector<NetChange> net(std::size_t from, std::size_t to) const;
    // Changes logged (before netting).
    std::size_t logged() const { return used_; }
    const std::vector<LateRow>& late_rows() const { return late_; }
    const std::vector<RejectedSinkRow>& rejected_rows() const { return rejected_; }
    std::size_t source_transactions() const { return source_transactions_; }
    std::size_t row_changes() const { return row_changes_; }
    bool empty() const { return used_ == 0 && late_.empty() && rejected_.empty() && source_transactions_ == 0; }
    // Empties the batch, keeping its memory for the next one.
    void clear();

private:
    enum class Kind : std::uint8_t { put, remove, finalize, ahead };
    struct Logged {
        SessionRow row;
        Kind kind = Kind::put;
    };
    void log(const tideweave::Row& row, Kind kind);

    std::vector<Logged> log_;
    std::size_t used_ = 0;  // log_[0, used_) is this batch; the rest is kept for reuse
    std::optional<std::size_t> savepoint_;
    std::vector<LateRow> late_;
    std::vector<RejectedSinkRow> rejected_;
    std::size_t source_transactions_ = 0;
    std::size_t row_changes_ = 0;
};

}  // namespace sluice::pipeline
