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
#include <span>
#include <string_view>
#include <vector>

#include "sluice/pipeline/key_partition.hpp"
#include "sluice/pipeline/sink_batch.hpp"
#include "sluice/pipeline/transaction_mapper.hpp"
#include "sluice/pipeline/watermark_rule.hpp"
#include "sluice/tideweave/engine.hpp"

namespace sluice::pipeline {

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

private:
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
};

}  // namespace sluice::pipeline
