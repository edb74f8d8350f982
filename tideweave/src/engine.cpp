// The typed engine: the transaction rules of docs/tideweave.md
// ("Transactions", "Semantics notes and choices") over a session engine.
#include "sluice/tideweave/engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "engine_impl.hpp"
#include "limits.hpp"
#include "messages.hpp"

namespace sluice::tideweave {

Engine::Impl::Impl(Config config, EngineKind kind)
    : config_(config),
      sessions_(kind == EngineKind::naive ? make_naive_engine(config) : make_incremental_engine(config)) {}

void Engine::Impl::release_key(KeyId key) { key_names_.release(key); }

// By (key, start), never equal for two rows of one list (distinct sessions),
// so the order is unique. The sort moves small (prefix, start, key, index)
// items, comparing the key's 8-byte prefix held in the item (no lookup per
// comparison; the names only when prefixes tie), then places each row once,
// instead of comparing and moving the 64-byte rows themselves.
void Engine::Impl::sort_rows(std::vector<SessionRow>& rows) {
    if (rows.size() < 2) return;
    row_order_.clear();
    for (std::size_t i = 0; i < rows.size(); ++i)
        row_order_.push_back(RowOrder{key_names_.prefix(rows[i].key), rows[i].start, rows[i].key, i});
    std::sort(row_order_.begin(), row_order_.end(), [this](const RowOrder& a, const RowOrder& b) {
        if (a.prefix != b.prefix) return a.prefix < b.prefix;
        if (a.key != b.key) return key_less(a.key, b.key);
        return a.start < b.start;
    });
    // Placed in place, one cycle of the permutation at a time (each row
    // moves once; a second row buffer would be scratch as large as the
    // largest result, kept between calls: +1.8 MB of the CLI's VmRSS on the
    // memory benchmark, whose watermarks finalize ~6k rows each).
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (row_order_[i].at == i) continue;
        const SessionRow first = rows[i];
        std::size_t to = i;
        for (std::size_t from = row_order_[to].at; from != i; from = row_order_[to].at) {
            rows[to] = rows[from];
            row_order_[to].at = to;
            to = from;
        }
        rows[to] = first;
        row_order_[to].at = to;
    }
}

void Engine::Impl::publish(const std::vector<SessionRow>& from, std::vector<Row>& to) const {
    to.clear();
    for (const SessionRow& r : from)
        to.push_back(Row{key_names_.name(r.key), r.start, r.end, r.count, r.sum, r.min, r.max, r.final});
}

namespace {

// Ids and keys are JSON strings in every output and checkpoint, so they must
// be UTF-8. ASCII strings (the usual ids and keys) are settled without a
// call: their bytes ORed together, eight at a time (overlapping reads cover
// the ends), have no high bit.
[[gnu::always_inline]] inline bool ascii(std::string_view s) {
    const char* p = s.data();
    const std::size_t n = s.size();
    const auto read8 = [](const char* at) {
        std::uint64_t v = 0;
        std::memcpy(&v, at, sizeof v);
        return v;
    };
    const auto read4 = [](const char* at) {
        std::uint32_t v = 0;
        std::memcpy(&v, at, sizeof v);
        return std::uint64_t{v};
    };
    std::uint64_t bits = 0;
    if (n >= 8) {
        for (std::size_t i = 0; i + 8 <= n; i += 8) bits |= read8(p + i);
        bits |= read8(p + n - 8);
    } else if (n >= 4) {
        bits = read4(p) | read4(p + n - 4);
    } else if (n > 0) {  // 1 to 3 bytes: first, middle and last cover them, without a loop
        bits = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n >> 1]) |
               static_cast<unsigned char>(p[n - 1]);
    }
    return (bits & 0x8080808080808080ULL) == 0;
}

[[gnu::always_inline]] inline bool valid_utf8(std::string_view s) {
    return ascii(s) || simdjson::validate_utf8(s);
}

// Whether a typed mutation is within the contract's ranges: the test on
// every mutation, with the wording of what is wrong (shape_error) kept off
// that path. The caller has read the bytes already: `ids_ascii` says every
// id of the transaction is ASCII (the hashing pass ORed their bytes), and
// `key_word` is KeyNames::word_of(m.key), which holds every byte of a key
// of up to eight bytes. Ranges are tested as one unsigned comparison each.
[[gnu::always_inline]] inline bool shape_ok(const Mutation& m, bool ids_ascii, std::uint64_t key_word) {
    constexpr std::uint64_t high_bits = 0x8080808080808080ULL;
    // (A short key with a high bit set may still be valid UTF-8: "é".)
    const bool key_ok = (m.key.size() <= 8 && (key_word & high_bits) == 0) || valid_utf8(m.key);
    return m.id.size() - 1 < max_id_bytes && m.key.size() <= max_key_bytes &&
           static_cast<std::uint64_t>(m.ts) + static_cast<std::uint64_t>(max_abs_ts) <=
               2 * static_cast<std::uint64_t>(max_abs_ts) &&
           ((m.kind != Mutation::Kind::insert && !m.check_value) || std::isfinite(m.value)) &&
           (ids_ascii || valid_utf8(m.id)) && key_ok;
}

// The contract's ranges for a typed mutation (the NDJSON codec has checked
// them already, with the member names of the line).
[[gnu::noinline, gnu::cold]] std::optional<Error> shape_error(const Mutation& m, std::size_t index) {
    if (m.id.empty() || m.id.size() > max_id_bytes)
        return messages::bad_field(index, m.kind, "id", "expected a non-empty string of at most 256 bytes");
    if (m.key.size() > max_key_bytes)
        return messages::bad_field(index, m.kind, "key", "expected a string of at most 256 bytes");
    if (!valid_utf8(m.id)) return messages::bad_field(index, m.kind, "id", "not valid UTF-8");
    if (!valid_utf8(m.key)) return messages::bad_field(index, m.kind, "key", "not valid UTF-8");
    if (m.ts < -max_abs_ts || m.ts > max_abs_ts)
        return messages::bad_field(index, m.kind, "ts", "expected an integer in [-2^60, 2^60]");
    if ((m.kind == Mutation::Kind::insert || m.check_value) && !std::isfinite(m.value))
        return messages::bad_field(index, m.kind, "value", "expected a finite number");
    return std::nullopt;
}

}  // namespace

// Checks the mutation's identity against the events held (earlier mutations
// of the same transaction included, since they are already applied) and
// applies it. Returns false with the error, having changed nothing, if the
// identity is wrong (`error` is written only then: an optional<Error> built
// and tested per mutation cost ~7 instructions of the insert path).
bool Engine::Impl::apply_checked(const Mutation& m, std::size_t index, std::uint64_t hash, std::uint64_t key_word,
                                 std::int64_t h, double& retracted_value, std::optional<Error>& error) {
    const double value = m.value + 0.0;  // -0.0 is held as 0 (docs/tideweave.md)
    if (m.kind == Mutation::Kind::insert) {
        // One lookup; an entry already there is an error unless its event is
        // sealed (its id may then be used again). The entry is written once,
        // with its key.
        const auto [entry, inserted] = ids_.emplace_id(m.id, hash);
        if (!inserted && entry->ts >= h) [[unlikely]] {
            error = messages::duplicate_id(index, m.id, key_names_.name(entry->key), entry->ts);
            return false;
        }
        const KeyId key = intern(m.key, key_word);
        *entry = IdEntry{key, m.ts};
        sessions_->insert(key, m.ts, m.id, value);
        return true;
    }
    const IdEntry* found = ids_.find(m.id);
    if (found == nullptr || found->ts < h) {
        error = messages::no_such_event(index, m.id);
        return false;
    }
    const IdEntry held = *found;
    if (key_names_.name(held.key) != m.key) {
        error = messages::retract_mismatch(index, m.id, "key", messages::quoted(key_names_.name(held.key)),
                                           messages::quoted(m.key));
        return false;
    }
    if (held.ts != m.ts) {
        error = messages::retract_mismatch(index, m.id, "ts", std::to_string(held.ts), std::to_string(m.ts));
        return false;
    }
    // The value is the leaf's (the index holds none, id_index.hpp): the
    // session engine's retraction returns it, and a value that was to match
    // and does not puts the event back (the transaction is then undone, so
    // the sessions are as before either way). Retractions without a value
    // cost nothing more; the index is left alone until the check passed.
    const double held_value = sessions_->retract(held.key, m.ts, m.id);
    if (m.check_value && held_value != value) [[unlikely]] {
        sessions_->insert(held.key, m.ts, m.id, held_value);
        error = messages::retract_mismatch(index, m.id, "value", messages::number(held_value), messages::number(value));
        return false;
    }
    retracted_value = held_value;
    ids_.erase(m.id);
    return true;
}

void Engine::Impl::undo_applied(std::span<const Mutation> mutations, std::size_t applied) {
    // A mutation was late (left alone) iff its ts is below the horizon,
    // which apply() does not move.
    const std::int64_t h = horizon();
    for (std::size_t i = applied; i-- > 0;)
        if (mutations[i].ts >= h) unapply(mutations[i], retracted_values_[i]);
    sessions_->commit();
    // A key this transaction named first is forgotten again: the rejected
    // transaction leaves no trace, in memory either.
    for (KeyId key : new_keys_)
        if (!sessions_->holds_key(key)) release_key(key);
    new_keys_.clear();
}

void Engine::Impl::unapply(const Mutation& m, double retracted_value) {
    const KeyId key = intern(m.key);
    if (m.kind == Mutation::Kind::insert) {
        sessions_->retract(key, m.ts, m.id);
        ids_.erase(m.id);
    } else {
        sessions_->insert(key, m.ts, m.id, retracted_value);
        ids_.try_emplace(m.id, IdEntry{key, m.ts});
    }
}

// Rows both before and after (a session the transaction left as it was) are
// no change: cancel them, keeping the rest sorted by (key, start).
void Engine::Impl::cancel_unchanged() {
    sort_rows(before_);
    sort_rows(after_);
    std::size_t b = 0, a = 0, kept_b = 0, kept_a = 0;
    while (b < before_.size() || a < after_.size()) {
        if (b < before_.size() && a < after_.size() && before_[b].same_fields(after_[a])) {
            ++b;
            ++a;
            continue;
        }
        const bool take_before =
            a == after_.size() ||
            (b < before_.size() && (before_[b].key == after_[a].key ? before_[b].start <= after_[a].start
                                                                    : key_less(before_[b].key, after_[a].key)));
        if (take_before) {
            before_[kept_b++] = before_[b++];
        } else {
            after_[kept_a++] = after_[a++];
        }
    }
    before_.resize(kept_b);
    after_.resize(kept_a);
}

Result<Changes> Engine::Impl::apply(std::span<const Mutation> mutations, const std::optional<Error>& trailing) {
    const std::size_t n = mutations.size();
    new_keys_.clear();
    // The ids' hashes, ahead of the loop below so that it can prefetch; the
    // bytes read for them also tell whether every id is ASCII. Past the
    // last, prefetch_distance zeros: the loop prefetches without a test
    // (a zero hash is a valid slot's, prefetching it is harmless).
    constexpr std::size_t prefetch_distance = 8;
    hashes_.resize(n + prefetch_distance);
    std::uint64_t id_bits = 0;
    for (std::size_t i = 0; i < n; ++i) hashes_[i] = IdIndex::hash(mutations[i].id, id_bits);
    std::fill(hashes_.begin() + static_cast<std::ptrdiff_t>(n), hashes_.end(), std::uint64_t{0});
    const bool ids_ascii = (id_bits & 0x8080808080808080ULL) == 0;
    // Sized, not cleared (a memset of ~8 bytes per mutation): an entry is
    // read only to undo a retraction, which sets it when applied. Whether a
    // mutation is late is not stored: it is its ts below the horizon, which
    // nothing here moves (a byte store per mutation, which as a char store
    // also made the compiler reload every member after it).
    retracted_values_.resize(n);
    const std::int64_t h = horizon();
    std::size_t late_count = 0;
    // Applied as checked, mutation by mutation; an error undoes them, newest
    // first, so that the state and version are as before. The identity
    // index's slot of the mutation a few ahead is prefetched (each lookup is
    // otherwise a cache miss).
    const std::uint64_t* const hashes = hashes_.data();
    std::optional<Error> identity_error;
    for (std::size_t i = 0; i < n; ++i) {
        ids_.prefetch(hashes[i + prefetch_distance]);
        const Mutation& m = mutations[i];
        const std::uint64_t key_word = KeyNames::word_of(m.key);
        if (!shape_ok(m, ids_ascii, key_word)) [[unlikely]] {
            // (shape_error names what shape_ok found; if the two ever
            // disagreed, the mutation would go on as a valid one.)
            if (std::optional<Error> shape = shape_error(m, i)) {
                undo_applied(mutations, i);
                return std::move(*shape);
            }
        }
        if (m.ts < h) [[unlikely]] {
            ++late_count;
            continue;
        }
        if (!apply_checked(m, i, hashes[i], key_word, h, retracted_values_[i], identity_error)) [[unlikely]] {
            undo_applied(mutations, i);
            return std::move(*identity_error);
        }
    }
    if (trailing) {
        undo_applied(mutations, n);
        return *trailing;
    }
    before_.clear();
    after_.clear();
    sessions_->changes(before_, after_);
    for (const SessionRow& r : after_) {
        if (std::isfinite(r.sum)) continue;
        // The exact sum is beyond the double range: undo, newest first.
        Error error = messages::sum_overflow(key_names_.name(r.key), r.start);
        undo_applied(mutations, n);
        return error;
    }
    late_out_.clear();
    if (late_count != 0)
        for (std::size_t i = 0; i < n; ++i)
            if (mutations[i].ts < h) late_out_.push_back(LateItem{i, mutations[i].id, mutations[i].key, mutations[i].ts});
    return accept();
}

Changes Engine::Impl::accept() {
    sessions_->commit();
    ++version_;
    cancel_unchanged();
    publish(before_, before_out_);
    publish(after_, after_out_);
    return Changes{version_, before_out_, after_out_, late_out_};
}

// A part of the open transaction (open_transaction.cpp has the rest): here
// beside apply() for the checks they share. Each applied mutation leaves an
// undo record; an error takes back every part.
Result<std::span<const LateItem>> Engine::Impl::apply_part(std::span<const Mutation> part) {
    if (!open_) throw std::logic_error("tideweave: apply_part() without begin_transaction()");
    const std::size_t base = open_given_;
    open_given_ += part.size();
    late_out_.clear();
    const std::int64_t h = horizon();
    std::uint64_t id_bits = 0;
    hashes_.resize(part.size());
    for (std::size_t i = 0; i < part.size(); ++i) hashes_[i] = IdIndex::hash(part[i].id, id_bits);
    const bool ids_ascii = (id_bits & 0x8080808080808080ULL) == 0;
    std::optional<Error> identity_error;
    for (std::size_t i = 0; i < part.size(); ++i) {
        const Mutation& m = part[i];
        const std::size_t index = base + i;  // in the whole transaction
        const std::uint64_t key_word = KeyNames::word_of(m.key);
        if (!shape_ok(m, ids_ascii, key_word)) [[unlikely]] {
            if (std::optional<Error> shape = shape_error(m, index)) {
                undo_open();
                return std::move(*shape);
            }
        }
        if (m.ts < h) {
            late_out_.push_back(LateItem{index, m.id, m.key, m.ts});
            continue;
        }
        double retracted = 0;
        if (!apply_checked(m, index, hashes_[i], key_word, h, retracted, identity_error)) {
            undo_open();
            return std::move(*identity_error);
        }
        // The key is interned (an insert registered it; a retraction's
        // matched the held event's), so this finds it without adding.
        const KeyId key = intern(m.key, key_word);
        undo_.append(m.ts, retracted, key, m.kind, m.id);
    }
    return std::span<const LateItem>(late_out_);
}

Result<Finalized> Engine::Impl::advance_watermark(std::int64_t w) {
    if (w < -max_abs_ts || w > max_abs_ts)
        return Error{ErrorKind::watermark_range, std::nullopt, "watermark: expected an integer in [-2^60, 2^60]"};
    if (has_watermark_ && w < watermark_) return messages::watermark_behind(w, watermark_);
    has_watermark_ = true;
    watermark_ = w;
    rows_.clear();
    sessions_->finalize(horizon(), rows_);
    sort_rows(rows_);
    publish(rows_, rows_out_);
    return Finalized{version_, watermark_, rows_out_};
}

std::int64_t Engine::Impl::watermark_step(std::int64_t w, std::size_t rows) const {
    if (w < -max_abs_ts || w > max_abs_ts || (has_watermark_ && w <= watermark_)) return w;
    // horizon() of w, and back: the lateness is at most max_abs_ts (Config
    // checks), so neither overflows.
    const std::int64_t target = w - config_.lateness;
    const std::int64_t step = sessions_->bounded_horizon(target, std::max<std::size_t>(rows, 1));
    return step >= target ? w : step + config_.lateness;
}

Forgotten Engine::Impl::forget() {
    std::vector<KeyId> emptied;
    // Released ids leave the identity index one by one when they are few;
    // when they may be more than an eighth of the index, one sweep drops
    // every entry below the horizon instead (after forget exactly those are
    // gone: each such event was either in a final row or sealed and folded),
    // without the random accesses per id. The session engine bounds the
    // count beforehand, so a large forget does not first erase an eighth of
    // the index one by one.
    const std::int64_t h = horizon();
    const bool sweep = sessions_->forget_bound(h) > ids_.size() / 8;
    ReleaseFn release;
    if (!sweep) {
        release = [&](std::string_view id, KeyId key, std::int64_t ts) {
            const IdEntry* held = ids_.find(id);
            if (held != nullptr && held->key == key && held->ts == ts) ids_.erase(id);
        };
    }
    const ForgetTally counts = sessions_->forget(h, release, emptied);
    if (sweep) ids_.erase_older_than(h);
    for (KeyId key : emptied) release_key(key);
    return Forgotten{version_, counts.rows_dropped, counts.events_folded};
}

Snapshot Engine::Impl::snapshot() {
    rows_.clear();
    sessions_->all_rows(rows_);
    sort_rows(rows_);
    publish(rows_, rows_out_);
    return Snapshot{version_, watermark(), rows_out_};
}

Checkpoint Engine::Impl::checkpoint(std::string_view source_position) const {
    Checkpoint c;
    c.config = config_;
    c.version = version_;
    c.watermark = watermark();
    c.source_position.assign(source_position);
    std::vector<KeyId> keys = sessions_->keys();
    std::sort(keys.begin(), keys.end(), [this](KeyId a, KeyId b) { return key_less(a, b); });
    c.keys.reserve(keys.size());
    KeyExport held;
    for (const KeyId key : keys) {
        held.blocks.clear();
        held.events.clear();
        held.final_starts.clear();
        sessions_->export_key(key, held);
        CheckpointKey& out = c.keys.emplace_back();
        out.key = key_names_.name(key);
        for (const Block& b : held.blocks)
            out.blocks.push_back(CheckpointBlock{b.first_ts, b.last_ts, b.count, b.min, b.max, b.sum.to_parts()});
        out.events.reserve(held.events.size());
        for (const auto& e : held.events) out.events.push_back(CheckpointEvent{e.ts, std::string(e.id), e.value});
        out.final_starts = held.final_starts;
    }
    return c;
}

// Restore checks the checkpoint for consistency (order, ranges, sealed blocks
// at session starts, unique unsealed ids, final sessions below the horizon),
// so a restored engine is in a state the uninterrupted run could have reached.
std::optional<Error> Engine::Impl::load(const Checkpoint& c) {
    using messages::checkpoint_error;
    const auto ts_ok = [](std::int64_t v) { return v >= -max_abs_ts && v <= max_abs_ts; };
    const std::string ts_problem = "expected an integer in [-2^60, 2^60]";
    // (The JSON reader admits integers in [-2^60, 2^60] only; the binary one
    // any 64-bit integer: both meet the same bounds here.)
    if (c.version < 0 || c.version > max_abs_ts)
        return checkpoint_error("version", c.version < 0 ? "expected a non-negative integer" : ts_problem);
    if (c.line < 0 || c.line > max_abs_ts)
        return checkpoint_error("line", c.line < 0 ? "expected a non-negative integer" : ts_problem);
    if (c.watermark && !ts_ok(*c.watermark)) return checkpoint_error("watermark", ts_problem);
    version_ = c.version;
    source_position_ = c.source_position;
    if (c.watermark) {
        has_watermark_ = true;
        watermark_ = *c.watermark;
    }
    const std::int64_t h = horizon();

    std::vector<std::pair<KeyId, std::int64_t>> finals;
    for (std::size_t k = 0; k < c.keys.size(); ++k) {
        const CheckpointKey& ck = c.keys[k];
        const std::string at = "keys[" + std::to_string(k) + "]";
        if (ck.key.size() > max_key_bytes) return checkpoint_error(at + ".key", "expected a string of at most 256 bytes");
        if (!valid_utf8(ck.key)) return checkpoint_error(at + ".key", "not valid UTF-8");
        if (k != 0 && c.keys[k - 1].key >= ck.key)
            return checkpoint_error(at + ".key", "keys must be unique and in byte order");
        const KeyId key = intern(ck.key);

        // Blocks and events interleaved by first timestamp, to check that
        // every block is sealed and starts its session.
        struct Item {
            std::int64_t first, last;
            bool block;
        };
        std::vector<Item> items;
        std::vector<Block> blocks;
        for (std::size_t i = 0; i < ck.blocks.size(); ++i) {
            const CheckpointBlock& cb = ck.blocks[i];
            const std::string bat = at + ".blocks[" + std::to_string(i) + "]";
            if (!ts_ok(cb.first)) return checkpoint_error(bat + ".first", ts_problem);
            if (!ts_ok(cb.last)) return checkpoint_error(bat + ".last", ts_problem);
            if (!ts_ok(cb.count)) return checkpoint_error(bat + ".count", ts_problem);
            if (!std::isfinite(cb.min) || !std::isfinite(cb.max))
                return checkpoint_error(bat, "min and max must be finite numbers");
            Block block;
            block.first_ts = cb.first;
            block.last_ts = cb.last;
            block.count = cb.count;
            block.min = cb.min + 0.0;
            block.max = cb.max + 0.0;
            for (std::size_t p = 0; p < cb.sum_parts.size(); ++p) {
                if (!std::isfinite(cb.sum_parts[p]))
                    return checkpoint_error(bat + ".sum[" + std::to_string(p) + "]", "expected a finite number");
                block.sum.add(cb.sum_parts[p]);
            }
            if (block.first_ts > block.last_ts || block.last_ts >= h)
                return checkpoint_error(bat, "a block must satisfy first <= last < horizon");
            if (block.count < 1 || block.min > block.max)
                return checkpoint_error(bat, "count must be positive and min <= max");
            if (!blocks.empty() && blocks.back().last_ts >= block.first_ts)
                return checkpoint_error(bat, "blocks must be in order");
            items.push_back({block.first_ts, block.last_ts, true});
            blocks.push_back(block);
        }
        for (std::size_t i = 0; i < ck.events.size(); ++i) {
            const CheckpointEvent& ev = ck.events[i];
            const std::string eat = at + ".events[" + std::to_string(i) + "]";
            if (!ts_ok(ev.ts)) return checkpoint_error(eat + "[0]", ts_problem);
            if (ev.id.empty() || ev.id.size() > max_id_bytes)
                return checkpoint_error(eat + "[1]", "expected a non-empty string of at most 256 bytes");
            if (!valid_utf8(ev.id)) return checkpoint_error(eat + "[1]", "not valid UTF-8");
            if (!std::isfinite(ev.value)) return checkpoint_error(eat + "[2]", "expected a finite number");
            if (i != 0) {
                const CheckpointEvent& prev = ck.events[i - 1];
                if (!(prev.ts < ev.ts || (prev.ts == ev.ts && prev.id < ev.id)))
                    return checkpoint_error(eat, "events must be in (ts, id) order, without repeats");
            }
            items.push_back({ev.ts, ev.ts, false});
        }
        std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
            return a.first < b.first || (a.first == b.first && a.block && !b.block);
        });
        for (std::size_t j = 0; j < items.size(); ++j) {
            if (!items[j].block) continue;
            if (j > 0 && items[j].first - items[j - 1].last <= config_.gap)
                return checkpoint_error(at + ".blocks", "a block must start its session");
            if (j + 1 < items.size() && items[j + 1].first <= items[j].last)
                return checkpoint_error(at + ".blocks", "no event may lie inside a block");
        }
        for (const Block& block : blocks) sessions_->insert_block(key, block);
        for (const CheckpointEvent& ev : ck.events) {
            const double value = ev.value + 0.0;
            if (ev.ts >= h) {
                if (ids_.contains(ev.id)) return checkpoint_error(at + ".events", "id \"" + ev.id + "\" is held twice");
                ids_.try_emplace(ev.id, IdEntry{key, ev.ts});
            }
            sessions_->insert(key, ev.ts, ev.id, value);
        }
        for (std::size_t i = 0; i < ck.final_starts.size(); ++i) {
            if (!ts_ok(ck.final_starts[i]))
                return checkpoint_error(at + ".final[" + std::to_string(i) + "]", ts_problem);
            finals.emplace_back(key, ck.final_starts[i]);
        }
    }
    before_.clear();
    after_.clear();
    sessions_->changes(before_, after_);
    sessions_->commit();
    new_keys_.clear();
    for (const auto& [key, start] : finals)
        if (!sessions_->mark_final(key, start))
            return checkpoint_error("final", "no session of key \"" + key_names_.name(key) + "\" starts at " +
                                                 std::to_string(start));
    rows_.clear();
    sessions_->all_rows(rows_);
    for (const SessionRow& r : rows_) {
        if (r.final && r.end >= h) return checkpoint_error("final", "a final session must end before the horizon");
        if (!std::isfinite(r.sum)) return checkpoint_error("keys", "a session's sum exceeds the double range");
    }
    return std::nullopt;
}

// ---- Engine ----

Engine::Engine(Config config, EngineKind kind) {
    if (config.gap <= 0 || config.gap > max_abs_ts)
        throw std::invalid_argument("tideweave: gap must be an integer in (0, 2^60]");
    if (config.lateness < 0 || config.lateness > max_abs_ts)
        throw std::invalid_argument("tideweave: lateness must be an integer in [0, 2^60]");
    impl_ = std::make_unique<Impl>(config, kind);
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;
Engine& Engine::operator=(Engine&&) noexcept = default;

Result<Changes> Engine::apply(std::span<const Mutation> mutations) {
    impl_->require_closed("apply");
    return impl_->apply(mutations);
}
Result<Finalized> Engine::advance_watermark(std::int64_t watermark) {
    impl_->require_closed("advance_watermark");
    return impl_->advance_watermark(watermark);
}
std::int64_t Engine::watermark_step(std::int64_t watermark, std::size_t rows) const {
    impl_->require_closed("watermark_step");
    return impl_->watermark_step(watermark, rows);
}
Forgotten Engine::forget() {
    impl_->require_closed("forget");
    return impl_->forget();
}
Snapshot Engine::snapshot() {
    impl_->require_closed("snapshot");
    return impl_->snapshot();
}
Checkpoint Engine::checkpoint(std::string_view source_position) const {
    impl_->require_closed("checkpoint");
    return impl_->checkpoint(source_position);
}

Result<Engine> Engine::restore(const Checkpoint& checkpoint, EngineKind kind) {
    const Config& config = checkpoint.config;
    if (config.gap <= 0 || config.gap > max_abs_ts)
        return messages::checkpoint_error("gap", "expected an integer in (0, 2^60]");
    if (config.lateness < 0 || config.lateness > max_abs_ts)
        return messages::checkpoint_error("lateness", "expected an integer in [0, 2^60]");
    auto impl = std::make_unique<Impl>(config, kind);
    if (auto error = impl->load(checkpoint)) return std::move(*error);
    return Engine(std::move(impl));
}

std::int64_t Engine::version() const { return impl_->version(); }
std::optional<std::int64_t> Engine::watermark() const { return impl_->watermark(); }
std::string_view Engine::source_position() const { return impl_->source_position(); }
std::int64_t Engine::horizon_at(std::int64_t watermark) const { return impl_->horizon_at(watermark); }
const Config& Engine::config() const { return impl_->config(); }
std::size_t Engine::active_events() const { return impl_->sessions().active_events(); }
std::size_t Engine::row_count() const { return impl_->sessions().row_count(); }
std::size_t Engine::key_count() const { return impl_->key_count(); }

void Engine::begin_transaction() { impl_->begin_transaction(); }
Result<std::span<const LateItem>> Engine::apply_part(std::span<const Mutation> part) { return impl_->apply_part(part); }
Result<Changes> Engine::commit_transaction() { return impl_->commit_transaction(); }
void Engine::rollback_transaction() { impl_->rollback_transaction(); }
bool Engine::in_transaction() const { return impl_->in_transaction(); }
std::size_t Engine::transaction_mutations() const { return impl_->transaction_mutations(); }
std::optional<Changes> Engine::take_changes() { return impl_->take_changes(); }
std::size_t Engine::changed_sessions() const { return impl_->changed_sessions(); }

}  // namespace sluice::tideweave
