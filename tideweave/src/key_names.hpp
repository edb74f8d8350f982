// The engine's keys: name <-> KeyId. Every mutation looks its key up here,
// so this is a flat open-addressing table over the names, not a
// std::unordered_map<std::string, KeyId> (a modulo by a prime, a node and a
// second string per lookup: ~130 instructions per mutation on the typed
// API's batched stream). Linear probing, backward-shift
// deletion (no tombstones). Released ids are reused by later keys.
//
// A slot holds the key's first eight bytes (`word`, read in whatever order
// is cheapest: it only has to tell keys of one length apart) and its length
// beside the id, so a key of up to eight bytes (the usual ones) is found by
// comparing two integers in the slot, without reading its name; longer keys
// compare the rest of the name too. Such a key's home is one multiply of
// its word: no hash call (on the batched stream intern() fell from ~76
// instructions per insert, with the order's prefix below and a wyhash of
// it out of line, to ~37). At most a quarter full (keys are few, a slot is
// 16 bytes): a lookup reads ~1.2 slots, not ~1.5 at half load.
//
// The order of names (every result is sorted by (key, start)) uses a
// different integer, kept by id: the first eight bytes big-endian, whose
// integer order is the names' byte order wherever two prefixes differ. It is
// computed once per new key, off the lookup path.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "session_engine.hpp"
#include "string_hash.hpp"

namespace sluice::tideweave {

class KeyNames {
public:
    // The id of `name`, registered first if it is new (then `added` is true).
    // The table is never empty and grows only when a key is added (add()),
    // so a lookup tests nothing but its slots; the loop is probe()'s, with
    // the found id returned from inside it.
    [[gnu::always_inline]] KeyId intern(std::string_view name, bool& added) {
        return intern(name, word_of(name), added);
    }
    // The same, with word_of(name) computed by the caller.
    [[gnu::always_inline]] KeyId intern(std::string_view name, std::uint64_t word, bool& added) {
        const auto size_plus_one = static_cast<std::uint32_t>(name.size() + 1);
        for (std::size_t i = home(name, word);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (matches(s, name, word, size_plus_one)) [[likely]] {
                added = false;
                return s.id;
            }
            if (s.size_plus_one == 0) {
                added = true;
                return add(name, word, i);
            }
        }
    }

    const std::string& name(KeyId id) const { return names_[id]; }
    // The name's first eight bytes as a big-endian integer (zero-padded):
    // names of different prefixes are in the order of their prefixes.
    std::uint64_t prefix(KeyId id) const { return prefixes_[id]; }
    // Byte order of the names (std::string's order).
    bool less(KeyId a, KeyId b) const {
        if (prefixes_[a] != prefixes_[b]) return prefixes_[a] < prefixes_[b];
        return names_[a] < names_[b];
    }
    std::size_t size() const { return count_; }

    // Forgets the key (its memory too); its id goes to a later new key.
    void release(KeyId id) {
        const std::string_view name = names_[id];
        const std::size_t at = probe(name, word_of(name));
        if (slots_[at].size_plus_one == 0 || slots_[at].id != id) return;
        unlink(at);
        --count_;
        names_[id].clear();
        names_[id].shrink_to_fit();
        free_.push_back(id);
    }

private:
    static constexpr std::size_t min_capacity = 16;

    // Registers a new name at its empty slot `at` (found again if the table
    // grows first).
    [[gnu::noinline]] KeyId add(std::string_view name, std::uint64_t word, std::size_t at) {
        if ((count_ + 1) * 4 > slots_.size()) {
            grow();
            at = probe(name, word);
        }
        KeyId id = 0;
        if (!free_.empty()) {
            id = free_.back();
            free_.pop_back();
            names_[id].assign(name);
            prefixes_[id] = prefix_of(name);
        } else {
            id = static_cast<KeyId>(names_.size());
            names_.emplace_back(name);
            prefixes_.push_back(prefix_of(name));
        }
        slots_[at] = Slot{word, id, static_cast<std::uint32_t>(name.size() + 1)};
        ++count_;
        return id;
    }

    struct Slot {
        std::uint64_t word = 0;           // word_of(the name)
        KeyId id = 0;
        std::uint32_t size_plus_one = 0;  // the name's length + 1; 0: empty
    };
    static_assert(sizeof(KeyId) == 4);

public:
    // The first eight bytes (zero-padded), for a key of up to eight bytes a
    // one-to-one function of its bytes given its length: 4 to 8 bytes are
    // two overlapping 4-byte reads, 1 to 3 the first, middle and last byte
    // (which are all three bytes for 3, and repeat one for 1 and 2). For
    // such a key every byte is in the word, at a byte boundary: the key is
    // ASCII if no 0x80 bit is set (the engine's shape check uses that).
    [[gnu::always_inline]] static std::uint64_t word_of(std::string_view s) {
        using string_hash_detail::read4;
        using string_hash_detail::read8;
        const char* p = s.data();
        const std::size_t n = s.size();
        if (n >= 8) return read8(p);
        if (n >= 4) return read4(p) | (read4(p + n - 4) << 32);
        if (n == 0) return 0;
        return std::uint64_t{static_cast<unsigned char>(p[0])} |
               (std::uint64_t{static_cast<unsigned char>(p[n >> 1])} << 8) |
               (std::uint64_t{static_cast<unsigned char>(p[n - 1])} << 16);
    }

private:
    // The first eight bytes, big-endian, zero-padded: integer order is byte
    // order wherever two prefixes differ.
    static std::uint64_t prefix_of(std::string_view s) {
        std::uint64_t v = 0;
        std::memcpy(&v, s.data(), std::min<std::size_t>(s.size(), sizeof v));
        return __builtin_bswap64(v);
    }

    // A key of up to eight bytes is its word and length: its home is the top
    // bits of one multiply (Fibonacci hashing: the top bits of a product by
    // an odd constant depend on every bit of the word; the length is XORed
    // in first, so that keys of one word and different lengths, which the
    // slot tells apart, rarely share a home). Longer keys share their first eight bytes often
    // ("customer-000123"), so their whole name is hashed.
    [[gnu::always_inline]] std::size_t home(std::string_view name, std::uint64_t word) const {
        using namespace string_hash_detail;
        const std::uint64_t mixed = name.size() <= 8 ? (word ^ name.size()) * k0 : long_hash(name);
        return static_cast<std::size_t>(mixed >> shift_);
    }
    [[gnu::noinline]] static std::uint64_t long_hash(std::string_view name) { return hash_string(name); }
    std::size_t home_of(const Slot& s) const { return home(names_[s.id], s.word); }

    [[gnu::always_inline]] bool matches(const Slot& s, std::string_view name, std::uint64_t word,
                                        std::uint32_t size_plus_one) const {
        return s.word == word && s.size_plus_one == size_plus_one &&
               (size_plus_one <= 9 || std::string_view(names_[s.id]).substr(8) == name.substr(8));
    }

    // The slot holding `name`, else the empty slot where it would go.
    std::size_t probe(std::string_view name, std::uint64_t word) const {
        const auto size_plus_one = static_cast<std::uint32_t>(name.size() + 1);
        for (std::size_t i = home(name, word);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (matches(s, name, word, size_plus_one) || s.size_plus_one == 0) return i;
        }
    }

    void unlink(std::size_t at) {
        std::size_t hole = at;
        for (std::size_t j = (at + 1) & mask_; slots_[j].size_plus_one != 0; j = (j + 1) & mask_) {
            const std::size_t from_home = (j - home_of(slots_[j])) & mask_;
            if (from_home >= ((j - hole) & mask_)) {
                slots_[hole] = slots_[j];
                hole = j;
            }
        }
        slots_[hole] = Slot{};
    }

    void set_capacity(std::size_t capacity) {
        mask_ = capacity - 1;
        shift_ = 64 - std::countr_zero(capacity);
    }

    void grow() {
        std::vector<Slot> old(slots_.size() * 2);
        old.swap(slots_);
        set_capacity(slots_.size());
        for (const Slot& s : old) {
            if (s.size_plus_one == 0) continue;
            std::size_t i = home_of(s);
            while (slots_[i].size_plus_one != 0) i = (i + 1) & mask_;
            slots_[i] = s;
        }
    }

    std::vector<std::string> names_;       // by id; released ones empty
    std::vector<std::uint64_t> prefixes_;  // by id: prefix_of(names_[id])
    std::vector<KeyId> free_;
    std::vector<Slot> slots_ = std::vector<Slot>(min_capacity);
    std::size_t mask_ = min_capacity - 1;
    int shift_ = 64 - std::countr_zero(min_capacity);
    std::size_t count_ = 0;
};

}  // namespace sluice::tideweave
