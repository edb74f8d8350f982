#pragma once
// SessionApplier's work for one partition of the keys (--partition I/N):
// the mapped source transaction is cut to the mutations whose key this
// worker owns, those go to its engine as one Tideweave transaction, and the
// watermark rule observes the WHOLE transaction's after images, so every
// worker moves its watermark exactly as the single process does. Late rows
// keep their index in the whole transaction (NAME_late's seq), rejected rows
// go to the partition of their key (NULL key: partition 0), so N workers
// write disjoint rows whose union is the single process's.
//
// Where it can differ from one process (docs/pipeline.md, "Scaling out"):
// a transaction Tideweave refuses as a whole (an identity error) is refused
// only by the workers whose part of it is wrong; the others apply theirs.
#include <string_view>
#include <vector>

#include "sluice/pipeline/key_partition.hpp"
#include "sluice/pipeline/session_applier.hpp"

namespace sluice::pipeline {

class PartitionApplier {
public:
    PartitionApplier(tideweave::Engine& engine, WatermarkRule& rule, Partition partition)
        : engine_(&engine), rule_(&rule), partition_(partition) {}

    SessionApplier::Outcome apply(TransactionMapper& mapped, std::string_view gtid, SinkBatch& batch);

private:
    bool owns(const RejectedRow& r) const { return r.key ? partition_.owns(*r.key) : partition_.index == 0; }

    tideweave::Engine* engine_;
    WatermarkRule* rule_;
    Partition partition_;
    std::vector<tideweave::Mutation> mine_;
    std::vector<std::size_t> whole_index_;  // mine_[i] is mutation whole_index_[i] of the transaction
};

}  // namespace sluice::pipeline
