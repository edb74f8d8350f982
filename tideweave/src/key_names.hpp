// The engine's keys: name <-> KeyId. Every mutation looks its key up here,
// so this is a flat open-addressing table of 8-byte slots (id + the hash's
// upper half) over the names, not a std::unordered_map<std::string, KeyId>
// (a modulo by a prime, a node and a second string per lookup: measured at
// ~130 instructions per mutation on the typed API's batched stream, against
// ~30 here). Linear probing, at most half full, backward-shift deletion (no
// tombstones). Released ids are reused by later keys.
//
// Each key's first eight bytes are also kept as a big-endian integer: equal
// keys of up to eight bytes (the usual ones) are recognised, and sorting
// rows by key (every result is sorted by (key, start)) mostly decided, by
// one integer comparison instead of a call to memcmp.
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
    KeyId intern(std::string_view name, bool& added) {
        const std::uint64_t prefix = prefix_of(name);
        if ((count_ + 1) * 2 > slots_.size()) grow();
        const std::size_t at = probe(name, prefix);
        added = slots_[at].id_plus_one == 0;
        if (!added) return slots_[at].id_plus_one - 1;
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
        slots_[at] = Slot{id + 1, tag(hash_of(name, prefix))};
        ++count_;
        return id;
    }

    const std::string& name(KeyId id) const { return names_[id]; }
    // Byte order of the names (std::string's order).
    bool less(KeyId a, KeyId b) const {
        if (prefixes_[a] != prefixes_[b]) return prefixes_[a] < prefixes_[b];
        return names_[a] < names_[b];
    }
    std::size_t size() const { return count_; }

    // Forgets the key (its memory too); its id goes to a later new key.
    void release(KeyId id) {
        const std::size_t at = probe(names_[id], prefixes_[id]);
        if (slots_.empty() || slots_[at].id_plus_one != id + 1) return;
        unlink(at);
        --count_;
        names_[id].clear();
        names_[id].shrink_to_fit();
        free_.push_back(id);
    }

private:
    struct Slot {
        std::uint32_t id_plus_one = 0;  // 0: empty
        std::uint32_t tag = 0;          // the hash's upper half
    };

    static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }

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
    static std::uint64_t hash_of(std::string_view s, std::uint64_t prefix) {
        if (s.size() > 8) return hash_string(s);
        using namespace string_hash_detail;
        return fold_multiply(prefix ^ k1, s.size() ^ k0);
    }
    bool same(KeyId id, std::string_view name, std::uint64_t prefix) const {
        if (prefixes_[id] != prefix || names_[id].size() != name.size()) return false;
        return name.size() <= 8 || std::string_view(names_[id]).substr(8) == name.substr(8);
    }
    std::size_t home(std::uint32_t t) const { return t & mask_; }

    // The slot holding `name`, else the empty slot where it would go.
    std::size_t probe(std::string_view name, std::uint64_t prefix) const {
        if (slots_.empty()) return 0;
        const std::uint32_t t = tag(hash_of(name, prefix));
        for (std::size_t i = home(t);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.id_plus_one == 0 || (s.tag == t && same(s.id_plus_one - 1, name, prefix))) return i;
        }
    }

    void unlink(std::size_t at) {
        std::size_t hole = at;
        for (std::size_t j = (at + 1) & mask_; slots_[j].id_plus_one != 0; j = (j + 1) & mask_) {
            const std::size_t from_home = (j - home(slots_[j].tag)) & mask_;
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
            std::size_t i = home(s.tag);
            while (slots_[i].id_plus_one != 0) i = (i + 1) & mask_;
            slots_[i] = s;
        }
    }

    std::vector<std::string> names_;  // by id; released ones empty
    std::vector<std::uint64_t> prefixes_;  // by id: prefix_of(names_[id])
    std::vector<KeyId> free_;
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
    std::size_t count_ = 0;
};

}  // namespace sluice::tideweave
