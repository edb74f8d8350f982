#pragma once
// Applying one mapped source transaction to the engine and gathering what
// it changed into the sink batch, then advancing the watermark by the rule.
// Sans-I/O: engine and batch in memory.
//
//   SessionApplier applier(engine, rule);                    // every key
//   SessionApplier worker(engine, rule, Partition{1, 3});    // --partition 1/3
//   applier.apply(mapper, "0-1-42", batch);
//
// A transaction the engine refuses (an identity error: a retraction of an
// event it never saw, an insert of an id it holds; a sum beyond the double
// range) changes nothing in the engine; all its changes go to NAME_rejected
// with the engine's message, and the watermark does not move for it.
//
// One partition of the keys (--partition I/N; all keys are partition 0 of
// 1): the transaction is cut to the mutations whose key this run owns,
// those go to its engine as one Tideweave transaction, and the watermark
// rule observes the WHOLE transaction's after images, so every worker moves
// its watermark exactly as the single process does. Late rows keep their
// index in the whole transaction (NAME_late's seq), rejected rows go to the
// partition of their key (NULL key: partition 0), so N workers write
// disjoint rows whose union is the single process's. Where that can differ
// from one process (docs/pipeline.md, "Scaling out"): a transaction
// Tideweave refuses as a whole is refused only by the workers whose part of
// it is wrong; the others apply theirs.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/pipeline/key_partition.hpp"
#include "sluice/pipeline/sink_batch.hpp"
#include "sluice/pipeline/transaction_mapper.hpp"
#include "sluice/pipeline/watermark_rule.hpp"
#include "sluice/tideweave/engine.hpp"

namespace sluice::pipeline {

// Where a transaction in parts sends the session rows it changed while it
// is open (BatchCommitter: into the sink's open transaction; docs/
// pipeline.md, "Huge transactions").
class SliceOut {
public:
    virtual ~SliceOut() = default;
    // The session rows `batch` logged so far go to the sink now (its late
    // and rejected rows stay for the commit); a savepoint in it
    // (SinkBatch::savepoint) marks where the open transaction's rows begin.
    virtual void send_slice(SinkBatch& batch) = 0;
    // The rows sent since the last savepoint are taken back (the engine
    // refused the transaction, or its source abandoned it).
    virtual void take_back_slices() = 0;
};

class SessionApplier {
public:
    SessionApplier(tideweave::Engine& engine, WatermarkRule& rule, Partition partition = {})
        : engine_(&engine), rule_(&rule), partition_(partition) {}

    struct Outcome {
        bool accepted = true;
        std::size_t late = 0;
        std::size_t rejected = 0;
    };
    Outcome apply(TransactionMapper& mapped, std::string_view gtid, SinkBatch& batch);

    // A source transaction in parts (issue 25; docs/pipeline.md, "Huge
    // transactions"): apply_part() for every part but the last (the
    // mapper's part handler, TransactionMapper::split_into_parts), then
    // finish() with the last. The parts go into one open engine
    // transaction (Engine::begin_transaction), so it stays atomic; their
    // late and rejected rows go into the batch at once, named with the GTID
    // at finish(), and the session rows when the engine commits.
    //
    // A transaction the engine refuses (in any part, or at the commit):
    // every part is taken back, and finish() returns nullopt; the caller
    // reads the transaction's changes again from its first (the earlier
    // parts are gone) and gives them as parts again, which then go to
    // NAME_rejected with the engine's message, and finish() of that
    // reading gives the Outcome (accepted = false).
    void apply_part(TransactionMapper& part, SinkBatch& batch);
    std::optional<Outcome> finish(TransactionMapper& last, std::string_view gtid, SinkBatch& batch);
    // A part was applied and the transaction is not finished.
    bool in_transaction() const { return parts_; }
    // Once a transaction in parts has changed `sessions` sessions since its
    // start or its last slice, what it changed (the engine's
    // take_changes(): before rows removed, after rows put) is logged into
    // the batch and sent to `out` (a savepoint before the first slice), so
    // that memory stays bounded however many sessions it changes; a refusal
    // or abandon takes the slices back. A watermark move that finalizes
    // more than `sessions` sessions (such a transaction's commit) is taken
    // in steps of about `sessions` rows (Engine::watermark_step), the batch
    // sent as a slice once it holds `sessions` rows, so that it holds at
    // most about twice that. Without this call, nothing is sent before the
    // commit and a watermark move is one step.
    void slice_into(SliceOut& out, std::size_t sessions) {
        slices_ = &out;
        slice_sessions_ = sessions;
    }
    // The transaction will not be finished (its source ended inside it):
    // takes back its parts.
    void abandon(SinkBatch& batch);

private:
    void refuse(const std::string& reason, SinkBatch& batch);
    void end_parts();
    void slice(SinkBatch& batch, std::optional<std::int64_t> commit_watermark_floor);
    void advance_watermark(std::int64_t w, SinkBatch& batch);
    void put_commit_rows(SinkBatch& batch, const tideweave::Changes& changes,
                         std::optional<std::int64_t> commit_watermark);
    void take_back_slices();
    bool owns(const RejectedRow& r) const { return r.key ? partition_.owns(*r.key) : partition_.index == 0; }
    // The mutations of `all` this run owns (all of them for one partition).
    std::span<const tideweave::Mutation> owned(std::span<const tideweave::Mutation> all);
    // The index in the whole transaction of owned mutation `i`.
    std::size_t whole_index(std::size_t i) const { return partition_.count == 1 ? i : whole_index_[i]; }

    tideweave::Engine* engine_;
    WatermarkRule* rule_;
    Partition partition_;
    std::vector<tideweave::Mutation> mine_;
    std::vector<std::size_t> whole_index_;  // mine_[i] is mutation whole_index_[i] of the transaction

    // The transaction in parts.
    bool parts_ = false;
    SinkBatch::Mark mark_;            // where its late and rejected rows start
    std::size_t mutations_before_ = 0;  // the mutations of its earlier parts
    std::size_t owned_before_ = 0;      // of those, the ones given to the engine
    Outcome part_outcome_;
    std::optional<std::string> refused_;  // the engine's reason, once it refused
    bool reading_again_ = false;           // the parts come again, to be rejected
    SliceOut* slices_ = nullptr;           // where slices go (none: nothing before the commit)
    std::size_t slice_sessions_ = 0;
    bool sliced_ = false;                  // slices of this transaction were sent
    // Rows of the open transaction's sessions that its slices held back, not
    // yet sure to be final at its commit (slice()); sorted by (key, start),
    // at most a slice's worth.
    std::vector<SessionRow> held_, held_next_;
};

}  // namespace sluice::pipeline
