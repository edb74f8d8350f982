// The identity index: event id -> (key, ts, value) for every event inserted
// and not retracted. It holds millions of entries and is consulted once per
// mutation, so its layout matters more than anything else in the shell.
//
// std::unordered_map spends one allocation per id and three dependent cache
// misses per lookup (bucket, node, string), and most inserts are of new ids,
// i.e. unsuccessful lookups. Here the entries sit densely in one vector (an id
// of up to 15 bytes stays inline, in std::string's small buffer), and an
// open-addressing table of 8-byte slots (entry position + 32 bits of the
// hash) finds them: one miss in the table, one in the entry, and a different
// id is almost always rejected by the hash bits without touching its entry.
//
// Linear probing, at most half full, with backward-shift deletion: no
// tombstones, so retractions never lengthen later probes. Erasing moves the
// last entry into the hole, which keeps the entries dense.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine.hpp"

namespace sluice::tideweave {

struct IdEntry {
    KeyId key;
    std::int64_t ts;
    double value;
};

class IdIndex {
public:
    std::size_t size() const { return entries_.size(); }
    bool contains(std::string_view id) const { return find(id) != nullptr; }

    const IdEntry* find(std::string_view id) const {
        if (slots_.empty()) return nullptr;
        const Slot& s = slots_[probe(id, hash(id))];
        return s.entry == 0 ? nullptr : &entries_[s.entry - 1].value;
    }
    IdEntry* find(std::string_view id) { return const_cast<IdEntry*>(std::as_const(*this).find(id)); }

    // Inserts (id, value) unless the id is there; returns its entry and
    // whether it is new. The pointer is valid until the next insert or erase.
    std::pair<IdEntry*, bool> try_emplace(std::string_view id, const IdEntry& value) {
        if ((entries_.size() + 1) * 2 > slots_.size()) grow();
        const std::uint64_t h = hash(id);
        Slot& s = slots_[probe(id, h)];
        if (s.entry != 0) return {&entries_[s.entry - 1].value, false};
        if (entries_.size() >= max_entries) throw std::length_error("tideweave: too many events held");
        entries_.push_back(Entry{std::string(id), value, h});
        s = Slot{static_cast<std::uint32_t>(entries_.size()), tag(h)};
        return {&entries_.back().value, true};
    }

    // Removes the id if present.
    void erase(std::string_view id) {
        if (slots_.empty()) return;
        const std::size_t at = probe(id, hash(id));
        if (slots_[at].entry == 0) return;
        const std::uint32_t position = slots_[at].entry - 1;
        unlink_slot(at);
        const auto last = static_cast<std::uint32_t>(entries_.size() - 1);
        if (position != last) {
            slots_[slot_of_entry(last)].entry = position + 1;
            entries_[position] = std::move(entries_[last]);
        }
        entries_.pop_back();
    }

private:
    static constexpr std::size_t max_entries = 0xFFFFFFFEU;  // slot positions are 32-bit

    struct Entry {
        std::string id;
        IdEntry value;
        std::uint64_t hash;  // kept so that growing never rehashes a string
    };
    struct Slot {
        std::uint32_t entry = 0;  // position in entries_ + 1; 0: empty
        std::uint32_t tag = 0;    // the hash's upper half
    };

    static std::uint64_t hash(std::string_view id) { return std::hash<std::string_view>{}(id); }
    static std::uint32_t tag(std::uint64_t h) { return static_cast<std::uint32_t>(h >> 32); }
    std::size_t home(std::uint64_t h) const { return static_cast<std::size_t>(h) & mask_; }

    // The slot holding `id`, else the empty slot where it would go.
    std::size_t probe(std::string_view id, std::uint64_t h) const {
        const std::uint32_t t = tag(h);
        for (std::size_t i = home(h);; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.entry == 0 || (s.tag == t && entries_[s.entry - 1].id == id)) return i;
        }
    }

    std::size_t slot_of_entry(std::uint32_t position) const {
        for (std::size_t i = home(entries_[position].hash);; i = (i + 1) & mask_)
            if (slots_[i].entry == position + 1) return i;
    }

    // Empties slot `at`, shifting back later members of its probe run that
    // may not stay behind a hole (their home lies at or before it).
    void unlink_slot(std::size_t at) {
        std::size_t hole = at;
        for (std::size_t j = (at + 1) & mask_; slots_[j].entry != 0; j = (j + 1) & mask_) {
            const std::size_t from_home = (j - home(entries_[slots_[j].entry - 1].hash)) & mask_;
            if (from_home >= ((j - hole) & mask_)) {
                slots_[hole] = slots_[j];
                hole = j;
            }
        }
        slots_[hole] = Slot{};
    }

    void grow() {
        const std::size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
        slots_.assign(capacity, Slot{});
        mask_ = capacity - 1;
        for (std::size_t p = 0; p < entries_.size(); ++p) {
            std::size_t i = home(entries_[p].hash);
            while (slots_[i].entry != 0) i = (i + 1) & mask_;
            slots_[i] = Slot{static_cast<std::uint32_t>(p + 1), tag(entries_[p].hash)};
        }
    }

    std::vector<Entry> entries_;
    std::vector<Slot> slots_;
    std::size_t mask_ = 0;
};

}  // namespace sluice::tideweave
