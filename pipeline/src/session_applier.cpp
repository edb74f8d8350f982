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
    if (auto w = rule_->advance()) advance_watermark(*w, batch);
    return out;
}

void SessionApplier::advance_watermark(std::int64_t w, SinkBatch& batch) {
    // Without slices the rows go into the batch in one step, as before.
    for (;;) {
        const std::int64_t step = slices_ ? engine_->watermark_step(w, slice_sessions_) : w;
        auto finalized = engine_->advance_watermark(step);
        // The rule only moves forward and stays in range: an error here is a bug.
        if (!finalized)
            throw std::logic_error("pipeline: watermark " + std::to_string(step) + ": " + finalized.error().message);
        for (const tw::Row& r : finalized->rows) batch.finalize(r);
        if (step == w) return;
        // A jump that finalizes many sessions (the commit of a transaction
        // that held a session per row open): what the batch holds goes into
        // the open sink transaction, as a huge transaction's slices do, so
        // that neither the engine's step nor the batch holds a row per
        // finalized session. These rows are committed engine state (no
        // savepoint: nothing can take them back but the sink transaction's
        // own failure).
        if (batch.logged() >= slice_sessions_) slices_->send_slice(batch);
    }
}

void SessionApplier::apply_part(TransactionMapper& part, SinkBatch& batch) {
    if (!parts_) {
        parts_ = true;
        mark_ = batch.mark();
        mutations_before_ = 0;
        owned_before_ = 0;
        part_outcome_ = {};
    }
    if (reading_again_) {
        for (RejectedRow& r : part.reject_all(*refused_)) {
            if (!owns(r)) continue;
            batch.reject(std::string(), std::move(r));
            ++part_outcome_.rejected;
        }
        return;
    }
    if (refused_) return;  // the rest of this reading: it is read again
    const std::span<const tw::Mutation> mine = owned(part.mutations());
    if (!mine.empty() || partition_.count == 1) {
        if (!engine_->in_transaction()) engine_->begin_transaction();
        auto late = engine_->apply_part(mine);
        if (!late) return refuse("transaction rejected by Tideweave: " + late.error().message, batch);
        for (const tw::LateItem& l : *late) {
            const std::size_t in_part = l.index - owned_before_;
            const tw::Mutation& m = mine[in_part];
            batch.late(LateRow{std::string(l.id), std::string(l.key), l.ts, std::string(),
                               static_cast<std::int64_t>(mutations_before_ + whole_index(in_part)),
                               m.kind == tw::Mutation::Kind::insert ? "insert" : "retract", m.value});
            ++part_outcome_.late;
        }
    }
    owned_before_ += mine.size();
    mutations_before_ += part.mutations().size();
    if (slices_ && engine_->in_transaction() && engine_->changed_sessions() >= slice_sessions_)
        slice(batch, rule_->floor_after(part.max_after_ts()));
    for (RejectedRow& r : part.rejected()) {
        if (!owns(r)) continue;
        batch.reject(std::string(), std::move(r));
        ++part_outcome_.rejected;
    }
}

namespace {

tw::Row row_of(const SessionRow& r) { return {r.key, r.start, r.end, r.count, r.sum, r.min, r.max, r.final}; }

}  // namespace

void SessionApplier::slice(SinkBatch& batch, std::optional<std::int64_t> commit_watermark_floor) {
    auto changes = engine_->take_changes();
    if (!changes) return;  // a sum out of range for now: it stays for the next slice, or the commit
    if (!sliced_) batch.savepoint();
    sliced_ = true;
    for (const tw::Row& r : changes->before) batch.remove(r);
    // A row ending below the horizon of the watermark the commit moves to at
    // least (a row is final once end < watermark - lateness) is final at the
    // commit, unless a later part changes its session, which removes this
    // row first: put it final now, so that the commit's finalization finds
    // it in NAME and a transaction holding a session per row writes each
    // once, not open and then final (OpenSinkRows). The watermark only moves
    // after each source transaction, so no later part can make an event of
    // it late. A row not yet below it (the newest, within the lag, the
    // lateness and the gap of the largest ts so far) is held back to be
    // judged again at the next slice, up to a slice's worth; past that, or
    // at the commit, it is put as it is. The rows held back that a later
    // part changed (this slice's before rows) are gone: never written.
    const std::optional<std::int64_t> horizon =
        commit_watermark_floor ? std::optional(engine_->horizon_at(*commit_watermark_floor)) : std::nullopt;
    held_next_.clear();
    auto judge = [&](const tw::Row& r) {
        if (horizon && r.end < *horizon) batch.put_final_ahead(r);
        else if (held_next_.size() < slice_sessions_) held_next_.push_back(session_row(r));
        else batch.put(r);
    };
    const std::span<const tw::Row> before = changes->before, after = changes->after;
    std::size_t b = 0, a = 0;
    for (const SessionRow& h : held_) {
        while (b < before.size() && compare_rows(before[b].key, before[b].start, h.key, h.start) < 0) ++b;
        if (b < before.size() && compare_rows(before[b].key, before[b].start, h.key, h.start) == 0) continue;  // changed
        for (; a < after.size() && compare_rows(after[a].key, after[a].start, h.key, h.start) < 0; ++a) judge(after[a]);
        judge(row_of(h));
    }
    for (; a < after.size(); ++a) judge(after[a]);
    std::swap(held_, held_next_);
    slices_->send_slice(batch);
}

// At the commit of a transaction that sent slices, the rows held back and
// the commit's own after rows are judged by the watermark it moves to (known
// now): the watermark's steps may send the newest of them in a slice before
// the step that finalizes them, and put final ahead they are then left in
// place, not upserted. The held rows go first: the commit's before rows
// remove those a later part changed.
void SessionApplier::put_commit_rows(SinkBatch& batch, const tw::Changes& changes,
                                     std::optional<std::int64_t> commit_watermark) {
    const bool judge = sliced_ && commit_watermark;
    const std::int64_t horizon = judge ? engine_->horizon_at(*commit_watermark) : 0;
    auto put = [&](const tw::Row& r) {
        if (judge && r.end < horizon) batch.put_final_ahead(r);
        else batch.put(r);
    };
    for (const SessionRow& h : held_) put(row_of(h));
    held_.clear();
    for (const tw::Row& r : changes.before) batch.remove(r);
    for (const tw::Row& r : changes.after) put(r);
}

void SessionApplier::take_back_slices() {
    if (sliced_) slices_->take_back_slices();
    sliced_ = false;
    held_.clear();
}

void SessionApplier::refuse(const std::string& reason, SinkBatch& batch) {
    // (The engine has taken back every part already.)
    take_back_slices();
    batch.take_back_to(mark_);
    part_outcome_ = {};
    refused_ = reason;
}

std::optional<SessionApplier::Outcome> SessionApplier::finish(TransactionMapper& last, std::string_view gtid,
                                                              SinkBatch& batch) {
    apply_part(last, batch);
    if (reading_again_) {
        Outcome out = part_outcome_;
        out.accepted = false;
        batch.name_gtid_from(mark_, std::string(gtid));
        batch.count_source_transaction(last.changes());
        end_parts();
        return out;
    }
    if (!refused_ && engine_->in_transaction()) {
        auto changes = engine_->commit_transaction();
        if (!changes) {
            refuse("transaction rejected by Tideweave: " + changes.error().message, batch);
        } else {
            put_commit_rows(batch, *changes, rule_->floor_after(last.max_after_ts()));
        }
    }
    if (refused_) {  // read it again, to reject every change
        reading_again_ = true;
        return std::nullopt;
    }
    Outcome out = part_outcome_;
    batch.name_gtid_from(mark_, std::string(gtid));
    batch.count_source_transaction(last.changes());
    end_parts();
    rule_->observe(last.max_after_ts());
    if (auto w = rule_->advance()) advance_watermark(*w, batch);
    return out;
}

void SessionApplier::abandon(SinkBatch& batch) {
    if (!parts_) return;
    if (engine_->in_transaction()) engine_->rollback_transaction();
    take_back_slices();
    batch.take_back_to(mark_);
    end_parts();
}

void SessionApplier::end_parts() {
    parts_ = false;
    refused_.reset();
    reading_again_ = false;
    part_outcome_ = {};
    sliced_ = false;
    held_.clear();
}

}  // namespace sluice::pipeline
