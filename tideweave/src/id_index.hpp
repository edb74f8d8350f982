// The identity index: event id -> (key, ts) for every event inserted
// and not retracted. It holds millions of entries and is consulted once per
// mutation, so its layout matters more than anything else in the shell.
//
// std::unordered_map spends one allocation per id and three dependent cache
// misses per lookup (bucket, node, string), and most inserts are of new ids,
// i.e. unsuccessful lookups. Here the entries (28 bytes: the id as a SmallId,
// inline up to 15 bytes, and key, ts) sit densely in chunks of 2 MiB
// (only the first chunk grows by copying, up to its full size, so a large
// index copies almost no entry and touches almost no page twice), and an
// open-addressing table of 8-byte slots (entry position + the hash's upper
// 32 bits) finds them: one miss in the table, which callers can prefetch
// ahead (prefetch()), one in the entry, and a different id is almost always
// rejected by the hash bits without touching its entry. The hash itself is
// not stored (8 bytes per entry): the few places that need an entry's slot
// (erase moving the last entry, a rebuild) hash its id again.
//
// A slot's home is the hash's top bits, which the slot's tag holds: growing
// (each old slot lands at twice its home, or after) and the backward shift
// of deletions read slots only, never an entry, and the table grows in
// place (grow()): no second table, so the memory of the earlier, smaller
// tables is not fresh memory the kernel clears again.
//
// Linear probing, at most half full, with backward-shift deletion: no
// tombstones, so retractions never lengthen later probes. Erasing moves the
// last entry into the hole, which keeps the entries dense.
//
// The chunks are GrowableArrays (zero bytes when new: memory fresh from the
// kernel, or the heap's cleared in bulk for a small first chunk), and an
// entry's id is a SmallIdBytes, whose zero bytes are the empty id: entries
// are never constructed (that was ~20 instructions per insert, a byte
// written per entry in groups made ahead). The index owns the ids' heap
// copies itself: every entry at or past size() holds none (erase and the
// sweep free them), so a new entry is set without a test, and dropping a
// chunk frees nothing but its memory.

#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "session_engine.hpp"
#include "growable_array.hpp"
#include "huge_pages.hpp"
#include "small_id.hpp"
#include "string_hash.hpp"

namespace sluice::tideweave {

// Packed (12 bytes, byte-aligned; x86 loads unaligned fields at no cost):
// with the 16-byte SmallId (also byte-aligned) an index entry is 28 bytes,
// not 32 with the padding after `key`. At millions of events held, that is
// 4 bytes less of fresh memory per event (docs/tideweave.md, "Memory layout").
// No value: the event's leaf holds it, and a retraction reads it there
// (SessionEngine::retract returns it): 8 bytes less per event.
struct [[gnu::packed]] IdEntry {
    KeyId key;
    std::int64_t ts;
};
static_assert(sizeof(IdEntry) == 12 && alignof(IdEntry) == 1);

class IdIndex {
public:
    std::size_t size() const { return size_; }
    bool contains(std::string_view id) const { return find(id) != nullptr; }

    // Inline (GCC kept it out of line in apply()'s hashing loop: a call and
    // the loop's spills, ~10 instructions per insert).
    [[gnu::always_inline]] static std::uint64_t hash(std::string_view id) { return hash_string(id); }
    // The same, ORing the id's bytes into `bits` (string_hash.hpp).
    [[gnu::always_inline]] static std::uint64_t hash(std::string_view id, std::uint64_t& bits) {
        return hash_string(id, bits);
    }

    // Starts loading the table slot where a lookup of this hash begins (a
    // prefetch never faults: with no table yet, home() is 0 and data() may
    // be null). GCC 12 silently drops the prefetch behind an emptiness test.
    void prefetch(std::uint64_t h) const { __builtin_prefetch(slots_.data() + home(tag(h))); }

    const IdEntry* find(std::string_view id) const {
        if (slots_.empty()) return nullptr;
        const Slot& s = slots_[probe(id, hash(id))];
        return s.entry == 0 ? nullptr : &entry(s.entry - 1).value;
    }
    IdEntry* find(std::string_view id) { return const_cast<IdEntry*>(std::as_const(*this).find(id)); }

    // Inserts (id, value) unless the id is there; returns its entry and
    // whether it is new. The pointer is valid until the next insert or erase.
    std::pair<IdEntry*, bool> try_emplace(std::string_view id, const IdEntry& value) {
        return try_emplace(id, hash(id), value);
    }
    [[gnu::always_inline]] std::pair<IdEntry*, bool> try_emplace(std::string_view id, std::uint64_t h,
                                                                 const IdEntry& value) {
        const auto [entry, inserted] = emplace_id(id, h);
        if (inserted) *entry = value;
        return {entry, inserted};
    }
    // The id's entry, inserted if new; a new entry's IdEntry is unset (any
    // bytes): the caller writes it before anything reads it. For the insert
    // path, which writes the entry once it knows the key. Inline: it runs
    // once per insert; growing and new chunks are calls.
    [[gnu::always_inline]] std::pair<IdEntry*, bool> emplace_id(std::string_view id, std::uint64_t h) {
        if (size_ >= grow_at_) [[unlikely]]
            grow();
        Slot& s = slots_[probe(id, h)];
        if (s.entry != 0) return {&entry(s.entry - 1).value, false};
        Entry& e = new_entry();
        e.id.set(id);
        ++size_;
        s = Slot{static_cast<std::uint32_t>(size_), tag(h)};
        return {&e.value, true};
    }

    // Removes the id if present.
    void erase(std::string_view id) {
        if (slots_.empty()) return;
        const std::size_t at = probe(id, hash(id));
        if (slots_[at].entry == 0) return;
        const std::uint32_t position = slots_[at].entry - 1;
        unlink_slot(at);
        const auto last = static_cast<std::uint32_t>(size_ - 1);
        entry(position).id.release();  // frees a long id's heap copy now
        if (position != last) {
            slots_[slot_of_entry(last)].entry = position + 1;
            entry(position) = entry(last);  // the heap copy, if any, moves with it
            entry(last).id.set_empty();
        }
        --size_;
        forget_tail();
    }

    // Removes every entry with ts < horizon, in one pass over the entries
    // and one over the table: for forgetting a large part of the index, far
    // cheaper than erasing ids one by one (each a random access).
    [[gnu::noinline]] void erase_older_than(std::int64_t horizon) {
        std::size_t kept = 0;
        // Chunk by chunk (no division per entry); positions [kept, p) hold
        // dropped entries, already freed.
        for (std::size_t c = 0, base = 0; base < size_; ++c, base += chunk_size) {
            Entry* e = chunks_[c].data();
            const std::size_t n = std::min(chunk_size, size_ - base);
            for (std::size_t i = 0; i < n; ++i) {
                if (e[i].value.ts < horizon) {
                    e[i].id.release();
                    continue;
                }
                if (kept != base + i) {
                    entry(kept) = e[i];
                    e[i].id.set_empty();
                }
                ++kept;
            }
        }
        size_ = kept;
        forget_tail();
        // Chunks past the entries held go, but one spare (its entries hold
        // no heap copy: dropping it frees only its memory).
        chunks_.resize(std::min(chunks_.size(), (size_ + chunk_size - 1) / chunk_size + 1));
        // Halve the table while it would stay at most a quarter full, so
        // that a forgotten peak does not keep its memory.
        std::size_t capacity = slots_.size();
        while (capacity > min_capacity && size_ * 4 <= capacity / 2) capacity /= 2;
        rebuild(capacity);
    }

    IdIndex() = default;
    IdIndex(const IdIndex&) = delete;
    IdIndex& operator=(const IdIndex&) = delete;
    ~IdIndex() {
        for (std::size_t p = 0; p < size_; ++p) entry(p).id.release();
    }

private:
    static constexpr std::size_t max_entries = 0x7FFFFFFFU;  // the table's size stays within 2^32
    static constexpr std::size_t min_capacity = 16;
    static constexpr std::size_t first_chunk_size = 256;

    // Both members byte-aligned: 28 bytes, no padding. Trivially copyable,
    // and all zero bytes are an empty entry (GrowableArray's new elements).
    struct Entry {
        SmallIdBytes id;
        IdEntry value;
    };
    static_assert(sizeof(Entry) == 28, "the id and IdEntry, no padding");
    static_assert(std::is_trivially_copyable_v<Entry>);
    static constexpr std::size_t chunk_size = huge_page_bytes / sizeof(Entry);  // one huge page
    struct Slot {
        std::uint32_t entry = 0;  // position in the entries + 1; 0: empty
        std::uint32_t tag = 0;    // the hash's upper half; its top bits are the home slot
    };

    Entry& entry(std::size_t p) { return chunks_[p / chunk_size][p % chunk_size]; }
    const Entry& entry(std::size_t p) const { return chunks_[p / chunk_size][p % chunk_size]; }

    // The entry at position size_, taken from [tail_, tail_end_): the zeroed
    // entries of size_'s chunk from size_ on (an insert neither divides by
    // the chunk size nor tests the chunk's size). Erasing empties that
    // range (forget_tail()), the next insert finds it again.
    [[gnu::always_inline]] Entry& new_entry() {
        if (tail_ != tail_end_) [[likely]]
            return *tail_++;
        return next_entries();
    }
    // The first chunk grows from small (doubling, up to a full chunk; the
    // others are made whole), so that a small index touches little memory.
    [[gnu::noinline]] Entry& next_entries() {
        if (size_ >= max_entries) throw std::length_error("tideweave: too many events held");
        const std::size_t c = size_ / chunk_size;
        const std::size_t at = size_ % chunk_size;
        if (c == chunks_.size()) chunks_.emplace_back().resize(c == 0 ? first_chunk_size : chunk_size);
        Chunk& chunk = chunks_[c];
        if (at == chunk.size()) chunk.resize(std::min(2 * chunk.size(), chunk_size));
        tail_ = chunk.data() + at;
        tail_end_ = chunk.data() + chunk.size();
        return *tail_++;
    }
    void forget_tail() { tail_ = tail_end_ = nullptr; }

    static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }
    // shift_ is 32 - log2(capacity), up to 32 (then every home is 0): a
    // 64-bit shift of the 32-bit tag needs no test for that.
    std::size_t home(std::uint32_t t) const { return static_cast<std::size_t>(std::uint64_t{t} >> shift_); }

    // The slot holding `id`, else the empty slot where it would go.
    std::size_t probe(std::string_view id, std::uint64_t h) const {
        const std::uint32_t t = tag(h);
        for (std::size_t i = home(t);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.entry == 0 || (s.tag == t && entry(s.entry - 1).id.view() == id)) return i;
        }
    }

    std::size_t slot_of_entry(std::uint32_t position) const {
        for (std::size_t i = home(tag(hash(entry(position).id.view())));; i = (i + 1) & mask_)
            if (slots_[i].entry == position + 1) return i;
    }

    // Empties slot `at`, shifting back later members of its probe run that
    // may not stay behind a hole (their home lies at or before it).
    void unlink_slot(std::size_t at) {
        std::size_t hole = at;
        for (std::size_t j = (at + 1) & mask_; slots_[j].entry != 0; j = (j + 1) & mask_) {
            const std::size_t from_home = (j - home(slots_[j].tag)) & mask_;
            if (from_home >= ((j - hole) & mask_)) {
                slots_[hole] = slots_[j];
                hole = j;
            }
        }
        slots_[hole] = Slot{};
    }

    // Capacity 0 (a sweep of an index that never made its table) keeps the
    // empty table's shift of 32: countr_zero(0) is 64, and a shift of -32
    // in home() was undefined (prefetch() runs on an empty table too).
    void set_capacity(std::size_t capacity) {
        mask_ = capacity == 0 ? 0 : capacity - 1;
        shift_ = capacity == 0 ? 32 : 32 - std::countr_zero(capacity);
        grow_at_ = capacity / 2;
    }

    // Doubles the table in place: the old slots stay in the first half (no
    // second table, growable_array.hpp), and each moves to its new position
    // from the top down. A slot with home h lands at 2h or after, so when
    // slot p is taken out, every slot above p holds a moved slot or none:
    // a slot whose new home is at or above p probes only moved slots and
    // empty ones, and the slots below p, not yet moved, are never in the way
    // of one already placed. The few that would probe below p (a run longer
    // than its home's index, or one wrapping past the end) wait in `stash_`
    // and go in last, with ordinary probing.
    [[gnu::noinline]] void grow() {
        if (slots_.empty()) {
            slots_.assign_zero(min_capacity);
            set_capacity(min_capacity);
            return;
        }
        const std::size_t old_capacity = slots_.size();
        const std::size_t capacity = 2 * old_capacity;
        slots_.resize(capacity);
        set_capacity(capacity);
        Slot* t = slots_.data();
        stash_.clear();
        // The shift in a local: the slots' 32-bit stores may alias the int
        // member as far as the compiler knows, and it reloaded it for every
        // slot moved.
        const int shift = shift_;
        for (std::size_t p = old_capacity; p-- > 0;) {
            const Slot s = t[p];
            if (s.entry == 0) continue;
            t[p] = Slot{};
            std::size_t i = static_cast<std::size_t>(std::uint64_t{s.tag} >> shift);
            if (i >= p) {
                while (i < capacity && t[i].entry != 0) ++i;
                if (i < capacity) {
                    t[i] = s;
                    continue;
                }
            }
            stash_.push_back(s);
        }
        for (const Slot& s : stash_) {
            std::size_t i = home(s.tag);
            while (t[i].entry != 0) i = (i + 1) & mask_;
            t[i] = s;
        }
    }

    // A table of `capacity` slots for the entries held, in entry order.
    void rebuild(std::size_t capacity) {
        slots_.assign_zero(capacity);
        set_capacity(capacity);
        for (std::size_t p = 0; p < size_; ++p) {
            const std::uint32_t t = tag(hash(entry(p).id.view()));
            std::size_t i = home(t);
            while (slots_[i].entry != 0) i = (i + 1) & mask_;
            slots_[i] = Slot{static_cast<std::uint32_t>(p + 1), t};
        }
    }

    using Chunk = GrowableArray<Entry>;
    using Table = GrowableArray<Slot>;

    std::vector<Chunk> chunks_;
    std::size_t size_ = 0;
    Entry* tail_ = nullptr;  // new_entry()'s range
    Entry* tail_end_ = nullptr;
    Table slots_;
    std::size_t mask_ = 0;
    int shift_ = 32;
    std::size_t grow_at_ = 0;  // size() at which an insert doubles the table first (half its capacity)
    std::vector<Slot> stash_;  // grow()'s slots that go in last
};

}  // namespace sluice::tideweave
