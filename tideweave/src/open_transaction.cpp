// One transaction given in parts (Engine::begin_transaction, engine.hpp;
// apply_part() is in engine.cpp, beside the checks it shares with apply()):
// each part is checked and applied as apply() would apply it inside the
// whole transaction, and each applied mutation leaves an undo record (its
// kind, key, ts, id and a retraction's value) instead of the mutation, so
// that the caller need not hold the parts: a 3M-row source transaction is
// applied in bounded memory beyond the engine's own state (the undo log,
// 24 bytes plus the id per mutation, keeps one 1 MiB chunk in memory and
// the rest in a temporary file: undo_log.hpp).
//
// The horizon does not move while a transaction is open (advance_watermark
// and forget refuse), so lateness is decided per mutation as apply() does,
// and the session engine's changes() gathers the before images of every
// part until the commit, or until take_changes() hands them out as a slice
// (a transaction changing a session per row would otherwise hold a before
// and an after row per session until its commit: ~2 KiB each, with the
// sink's copy). A slice ends the session engine's transaction, not this
// one: undo_open() takes the mutations back from the state any slices left.
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine_impl.hpp"
#include "messages.hpp"

namespace sluice::tideweave {

void Engine::Impl::require_closed(const char* call) const {
    if (open_)
        throw std::logic_error(std::string("tideweave: ") + call +
                               "() while a transaction is open (commit_transaction or rollback_transaction first)");
}

void Engine::Impl::begin_transaction() {
    require_closed("begin_transaction");
    open_ = true;
    open_given_ = 0;
    undo_.clear();
    new_keys_.clear();
}

Result<Changes> Engine::Impl::commit_transaction() {
    if (!open_) throw std::logic_error("tideweave: commit_transaction() without begin_transaction()");
    before_.clear();
    after_.clear();
    sessions_->changes(before_, after_);
    for (const SessionRow& r : after_) {
        if (std::isfinite(r.sum)) continue;
        Error error = messages::sum_overflow(key_names_.name(r.key), r.start);
        undo_open();
        return error;
    }
    open_ = false;
    open_given_ = 0;
    // Late items were each part's; the log's file is emptied (a huge
    // transaction's log is not kept for the next one).
    undo_.clear();
    late_out_.clear();
    return accept();
}

std::optional<Changes> Engine::Impl::take_changes() {
    if (!open_) throw std::logic_error("tideweave: take_changes() without begin_transaction()");
    before_.clear();
    after_.clear();
    sessions_->changes(before_, after_);
    for (const SessionRow& r : after_)
        if (!std::isfinite(r.sum)) return std::nullopt;  // decided at the commit (engine.hpp)
    // Ends the session engine's transaction, not the Engine's: the next
    // change to a session records its row as of this slice, and the undo
    // log (the Engine's) still reaches back to begin_transaction().
    sessions_->commit();
    cancel_unchanged();
    publish(before_, before_out_);
    publish(after_, after_out_);
    late_out_.clear();
    return Changes{version_, before_out_, after_out_, late_out_};
}

void Engine::Impl::rollback_transaction() {
    if (!open_) throw std::logic_error("tideweave: rollback_transaction() without begin_transaction()");
    undo_open();
}

void Engine::Impl::undo_open() {
    undo_.take_back([&](const UndoLog::Record& u) {
        if (u.kind == Mutation::Kind::insert) {
            sessions_->retract(u.key, u.ts, u.id);
            ids_.erase(u.id);
        } else {
            sessions_->insert(u.key, u.ts, u.id, u.value);
            ids_.try_emplace(u.id, IdEntry{u.key, u.ts});
        }
    });
    sessions_->commit();
    // Keys the transaction named first leave no trace, as after apply()'s undo.
    for (KeyId key : new_keys_)
        if (!sessions_->holds_key(key)) release_key(key);
    new_keys_.clear();
    open_ = false;
    open_given_ = 0;
}

}  // namespace sluice::tideweave
