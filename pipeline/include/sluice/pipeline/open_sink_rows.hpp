#pragma once
// The (key, start) rows of NAME that the sink holds and that can still
// change: those written with final = false. A final row never changes
// again (the engine seals it; later mutations of it are late), and a row
// the sink does not hold needs no upsert: so a batch's net changes split
// into
//   insert  rows the sink does not hold: COPY straight into NAME;
//   upsert  open rows it holds: staged, INSERT ... ON CONFLICT DO UPDATE;
//   remove  open rows it holds that the batch removed: DELETE;
// and a row created and removed within one batch is not written at all.
// Most rows of a catch-up are new, and a plain COPY costs PostgreSQL a
// fraction of the staged upsert (docs/pipeline.md, "Writing rows").
//
// Exactly once: the set is loaded from the sink itself at every start
// (`select key, start from NAME where not final`, at the stored state k),
// and updated only after a commit succeeded, so it mirrors the sink. A
// replayed batch (source transactions the sink already holds, after a
// checkpoint older than the state) may put rows the sink holds as final:
// plan it `idempotent`, every put an upsert and every removal a delete.
// If the set were ever wrong, a direct COPY would fail on NAME's primary
// key (an error, never a wrong row).
//
// Rows put final ahead of their commit (SinkBatch::put_final_ahead, a huge
// transaction's slices) are held too, marked `ahead`, until that commit: a
// later change of the session removes or upserts them like open rows, and
// the commit's finalization of one it did not change (a `finalized_only`
// net change) writes nothing, the row being in NAME already. So a session
// per row of a huge transaction is written once, not open and then final.
// At the commit none is left ahead (the sink sets any back to open first:
// left_ahead()).
//
// Two sorted vectors (key bytes, then start: the order of SinkBatch::net()),
// a main one and the rows added since it was last rebuilt, merged into it
// once they are an eighth of it; a row no longer held is marked gone in
// place until then. So a slice of a huge transaction (thousands of rows
// among hundreds of thousands held) costs binary searches and a merge of
// its own size, not a rewrite of the whole set (which, once per slice,
// was quadratic in the transaction). No hashing. Sans-I/O; used by the
// sink's thread only.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sluice/pipeline/sink_batch.hpp"

namespace sluice::pipeline {

class OpenSinkRows {
public:
    // Any order; duplicates are kept once.
    void add(std::string_view key, std::int64_t start);
    bool holds(std::string_view key, std::int64_t start);
    std::size_t size();

    struct Plan {
        std::vector<const SessionRow*> insert, upsert, remove;
        std::size_t in_place = 0;  // finalized rows held final ahead: nothing to write
    };
    // `net` as SinkBatch::net() gives it (each (key, start) once, sorted);
    // the plan keeps its order.
    Plan plan(const std::vector<NetChange>& net, bool idempotent);
    // After `net` is written (a slice) or committed: rows put open, or
    // final ahead, are held; rows put final, and removed rows, are not.
    void committed(const std::vector<NetChange>& net);
    // The rows that would still be held final ahead after `net`: at a
    // commit, none should be (the commit's finalization reaches every one);
    // the sink sets any back to open before it commits.
    std::vector<std::pair<std::string, std::int64_t>> left_ahead(const std::vector<NetChange>& net);
    // After a commit: every row held is open (final = false in NAME).
    void none_ahead();

private:
    struct Row {
        std::string key;
        std::int64_t start = 0;
        bool ahead = false;  // held with final = true, inside the open sink transaction
        bool gone = false;   // no longer held: dropped at the next rebuild
    };
    // Sorts and dedupes what add() appended; merges recent_ into main_ and
    // drops gone rows once they are many (or `rebuild`).
    void settle(bool rebuild = false);
    struct Cursor {
        std::size_t at[2] = {0, 0};  // into main_, recent_
    };
    Row* find(std::string_view key, std::int64_t start, Cursor& from);
    std::vector<Row> main_, recent_;  // each sorted; no (key, start) in both
    bool settled_ = true;             // main_ is sorted
    std::size_t gone_ = 0, ahead_ = 0;  // rows marked so, in both vectors
};

}  // namespace sluice::pipeline
