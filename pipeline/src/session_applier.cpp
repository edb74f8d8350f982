#include "sluice/pipeline/session_applier.hpp"

#include <stdexcept>
#include <string>

namespace sluice::pipeline {

namespace tw = sluice::tideweave;

SessionApplier::Outcome SessionApplier::apply(TransactionMapper& mapped, std::string_view gtid, SinkBatch& batch) {
    Outcome out;
    batch.count_source_transaction(mapped.changes());
    auto changes = engine_->apply(mapped.mutations());
    if (!changes) {
        const std::string reason = "transaction rejected by Tideweave: " + changes.error().message;
        for (RejectedRow& r : mapped.reject_all(reason)) {
            batch.reject(std::string(gtid), std::move(r));
            ++out.rejected;
        }
        out.accepted = false;
        return out;
    }
    for (const tw::Row& r : changes->before) batch.remove(r);
    for (const tw::Row& r : changes->after) batch.put(r);
    const auto mutations = mapped.mutations();
    for (const tw::LateItem& l : changes->late) {
        const tw::Mutation& m = mutations[l.index];
        batch.late(LateRow{std::string(l.id), std::string(l.key), l.ts, std::string(gtid),
                           static_cast<std::int64_t>(l.index),
                           m.kind == tw::Mutation::Kind::insert ? "insert" : "retract", m.value});
        ++out.late;
    }
    for (RejectedRow& r : mapped.rejected()) {
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
