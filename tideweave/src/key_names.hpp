// The engine's keys: name <-> KeyId. Every mutation looks its key up here,
// so this is a flat open-addressing table over the names, not a
// std::unordered_map<std::string, KeyId> (a modulo by a prime, a node and a
// second string per lookup: ~130 instructions per mutation on the typed
// API's batched stream). Linear probing, at most half full, backward-shift
// deletion (no tombstones). Released ids are reused by later keys.
//
// A slot holds the key's first eight bytes as a big-endian integer and its
// length beside the id, so a key of up to eight bytes (the usual ones) is
// found by comparing two integers in the slot, without reading its name;
// longer keys compare the rest of the name too. The same prefix decides
// most comparisons when rows are sorted by key (every result is sorted by
// (key, start)) without a call to memcmp.
#pragma once

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
    [[gnu::always_inline]] KeyId intern(std::string_view name, bool& added) {
        if ((count_ + 1) * 2 > slots_.size()) grow();
        const std::uint64_t prefix = prefix_of(name);
        const std::size_t at = probe(name, prefix);
        added = slots_[at].id_plus_one == 0;
        if (!added) [[likely]]
            return slots_[at].id_plus_one - 1;
        return add(name, prefix, at);
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
        if (slots_.empty()) return;
        const std::size_t at = probe(names_[id], prefixes_[id]);
        if (slots_[at].id_plus_one != id + 1) return;
        unlink(at);
        --count_;
        names_[id].clear();
        names_[id].shrink_to_fit();
        free_.push_back(id);
    }

private:
    // Registers a new name at its empty slot `at`.
    [[gnu::noinline]] KeyId add(std::string_view name, std::uint64_t prefix, std::size_t at) {
        KeyId id = 0;
        if (!free_.empty()) {
            id = free_.back();
            free_.pop_back();
            names_[id].assign(name);
            prefixes_[id] = prefix;
        } else {
            id = static_cast<KeyId>(names_.size());
            names_.emplace_back(name);
            prefixes_.push_back(prefix);
        }
        slots_[at] = Slot{prefix, id + 1, static_cast<std::uint32_t>(name.size())};
        ++count_;
        return id;
    }

    struct Slot {
        std::uint64_t prefix = 0;       // prefix_of(the name)
        std::uint32_t id_plus_one = 0;  // 0: empty
        std::uint32_t size = 0;         // the name's length
    };

    // The first eight bytes, big-endian, zero-padded: integer order is byte
    // order wherever two prefixes differ.
    static std::uint64_t prefix_of(std::string_view s) {
        const char* p = s.data();
        const std::size_t n = s.size();
        const auto read4 = [](const char* at) {
            std::uint32_t v = 0;
            std::memcpy(&v, at, sizeof v);
            return std::uint64_t{__builtin_bswap32(v)};
        };
        if (n >= 8) {
            std::uint64_t v = 0;
            std::memcpy(&v, p, sizeof v);
            return __builtin_bswap64(v);
        }
        if (n >= 4)  // two overlapping reads; the bytes they share land on the same bits
            return (read4(p) << 32) | (read4(p + n - 4) << (64 - 8 * n));
        if (n == 0) return 0;
        const auto byte = [&](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(p[i])} << (56 - 8 * i); };
        return byte(0) | byte(n >> 1) | byte(n - 1);  // 1 to 3 bytes, without a loop
    }

    // A key of up to eight bytes is its prefix and length: hashed from them
    // (one multiply), without reading it again.
    static std::uint64_t hash_of(std::string_view name, std::uint64_t prefix) {
        using namespace string_hash_detail;
        if (name.size() > 8) return hash_string(name);
        return fold_multiply(prefix ^ k1, name.size() ^ k0);
    }
    std::size_t home(std::string_view name, std::uint64_t prefix) const {
        return static_cast<std::size_t>(hash_of(name, prefix) >> 32) & mask_;
    }
    std::size_t home_of(const Slot& s) const { return home(names_[s.id_plus_one - 1], s.prefix); }

    // The slot holding `name`, else the empty slot where it would go.
    [[gnu::always_inline]] std::size_t probe(std::string_view name, std::uint64_t prefix) const {
        const auto size = static_cast<std::uint32_t>(name.size());
        for (std::size_t i = home(name, prefix);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.id_plus_one == 0) return i;
            if (s.prefix == prefix && s.size == size &&
                (size <= 8 || std::string_view(names_[s.id_plus_one - 1]).substr(8) == name.substr(8)))
                return i;
        }
    }

    void unlink(std::size_t at) {
        std::size_t hole = at;
        for (std::size_t j = (at + 1) & mask_; slots_[j].id_plus_one != 0; j = (j + 1) & mask_) {
            const std::size_t from_home = (j - home_of(slots_[j])) & mask_;
            if (from_home >= ((j - hole) & mask_)) {
                slots_[hole] = slots_[j];
                hole = j;
            }
        }
        slots_[hole] = Slot{};
    }

    void grow() {
        std::vector<Slot> old(slots_.empty() ? 16 : slots_.size() * 2);
        old.swap(slots_);
        mask_ = slots_.size() - 1;
        for (const Slot& s : old) {
            if (s.id_plus_one == 0) continue;
            std::size_t i = home_of(s);
            while (slots_[i].id_plus_one != 0) i = (i + 1) & mask_;
            slots_[i] = s;
        }
    }

    std::vector<std::string> names_;       // by id; released ones empty
    std::vector<std::uint64_t> prefixes_;  // by id: prefix_of(names_[id])
    std::vector<KeyId> free_;
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    std::size_t count_ = 0;
};

}  // namespace sluice::tideweave
