#include "sluice/pipeline/session_applier.hpp"

#include <stdexcept>
#include <string>

namespace sluice::pipeline {

namespace tw = sluice::tideweave;

std::span<const tw::Mutation> SessionApplier::owned(std::span<const tw::Mutation> all) {
    if (partition_.count == 1) return all;  // no copy for the single process
    mine_.clear();
    whole_index_.clear();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (!partition_.owns(all[i].key)) continue;
        mine_.push_back(all[i]);
        whole_index_.push_back(i);
    }
    return mine_;
}

SessionApplier::Outcome SessionApplier::apply(TransactionMapper& mapped, std::string_view gtid, SinkBatch& batch) {
    Outcome out;
    batch.count_source_transaction(mapped.changes());
    const std::span<const tw::Mutation> mine = owned(mapped.mutations());
    // One process gives the engine every transaction, an empty one too (its
    // version counts them, and the checkpoint stores it); a worker only
    // those with keys of its own.
    if (!mine.empty() || partition_.count == 1) {
        auto changes = engine_->apply(mine);
        if (!changes) {
            const std::string reason = "transaction rejected by Tideweave: " + changes.error().message;
            for (RejectedRow& r : mapped.reject_all(reason)) {
                if (!owns(r)) continue;
                batch.reject(std::string(gtid), std::move(r));
                ++out.rejected;
            }
            out.accepted = false;
            return out;
        }
        for (const tw::Row& r : changes->before) batch.remove(r);
        for (const tw::Row& r : changes->after) batch.put(r);
        for (const tw::LateItem& l : changes->late) {
            const tw::Mutation& m = mine[l.index];
            batch.late(LateRow{std::string(l.id), std::string(l.key), l.ts, std::string(gtid),
                               static_cast<std::int64_t>(whole_index(l.index)),
                               m.kind == tw::Mutation::Kind::insert ? "insert" : "retract", m.value});
            ++out.late;
        }
    }
    for (RejectedRow& r : mapped.rejected()) {
        if (!owns(r)) continue;
        batch.reject(std::string(gtid), std::move(r));
        ++out.rejected;
    }
    rule_->observe(mapped.max_after_ts());
    if (auto w = rule_->advance()) {
        auto finalized = engine_->advance_watermark(*w);
        // The rule only moves forward and stays in range: an error here is a bug.
        if (!finalized) throw std::logic_error("pipeline: watermark " + std::to_string(*w) + ": " + finalized.error().message);
        for (const tw::Row& r : finalized->rows) batch.put(r);
    }
    return out;
}

}  // namespace sluice::pipeline
