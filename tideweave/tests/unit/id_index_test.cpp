// The identity index against std::unordered_map under random inserts,
// erases, lookups and sweeps, across many table doublings and halvings (the
// table's homes come from the hash's top bits, growing re-places slots
// without reading entries, and erasing shifts probe runs back: each is easy
// to get subtly wrong).
#include "id_index.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <unordered_map>

namespace sluice::tideweave {
namespace {

std::string id_of(int i) {
    std::string id = "id-" + std::to_string(i);
    if (i % 3 == 0) id += std::string(20, 'L');  // beyond std::string's small buffer
    return id;
}

void expect_same(const IdIndex& index, const std::unordered_map<std::string, IdEntry>& model, int universe) {
    ASSERT_EQ(index.size(), model.size());
    for (int i = 0; i < universe; ++i) {
        const std::string id = id_of(i);
        const IdEntry* found = index.find(id);
        const auto it = model.find(id);
        ASSERT_EQ(found != nullptr, it != model.end()) << id;
        if (found == nullptr) continue;
        EXPECT_EQ(found->key, it->second.key) << id;
        EXPECT_EQ(found->ts, it->second.ts) << id;
    }
}

TEST(IdIndex, AgreesWithAMapUnderRandomOperations) {
    std::mt19937_64 rng(7);
    IdIndex index;
    std::unordered_map<std::string, IdEntry> model;
    // A universe larger than one chunk of entries, with long ids too (held
    // outside std::string's small buffer).
    const int universe = 50000;
    for (int round = 0; round < 6; ++round) {
        for (int op = 0; op < 60000; ++op) {
            const int i = static_cast<int>(rng() % universe);
            const std::string id = id_of(i);
            const auto roll = rng() % 10;
            if (roll < 6) {
                const IdEntry value{static_cast<KeyId>(i % 7), static_cast<std::int64_t>(rng() % 1000)};
                const auto [entry, inserted] = index.try_emplace(id, value);
                const auto [it, model_inserted] = model.try_emplace(id, value);
                ASSERT_EQ(inserted, model_inserted) << id;
                EXPECT_EQ(entry->ts, it->second.ts) << id;
            } else if (roll < 9) {
                index.erase(id);
                model.erase(id);
            } else {
                EXPECT_EQ(index.contains(id), model.count(id) == 1) << id;
            }
        }
        expect_same(index, model, universe);
        // Sweep everything below a horizon: a large part of the index.
        const std::int64_t horizon = 200 + 150 * round;
        index.erase_older_than(horizon);
        std::erase_if(model, [&](const auto& item) { return item.second.ts < horizon; });
        expect_same(index, model, universe);
    }
    // Down to nothing, and up again: the table shrinks and grows back.
    index.erase_older_than(std::numeric_limits<std::int64_t>::max());
    model.clear();
    expect_same(index, model, universe);
    for (int i = 0; i < 1000; ++i) {
        index.try_emplace(id_of(i) + std::string(40, 'x'), IdEntry{1, i});
        model.try_emplace(id_of(i) + std::string(40, 'x'), IdEntry{1, i});
    }
    ASSERT_EQ(index.size(), model.size());
    for (const auto& [id, value] : model) {
        const IdEntry* found = index.find(id);
        ASSERT_NE(found, nullptr) << id;
        EXPECT_EQ(found->ts, value.ts);
    }
    EXPECT_EQ(index.find(id_of(1)), nullptr);
}

// Past two chunks of entries (a chunk is one huge page, 74,898 entries):
// the first chunk grows from small up to exactly a chunk and no further,
// and its memory is zero, never constructed; an index that filled its first
// chunk's doublings past 32k entries once wrote past its chunks.
TEST(IdIndex, HoldsEntriesAcrossSeveralChunks) {
    IdIndex index;
    const int count = 160000;
    for (int i = 0; i < count; ++i) {
        const auto [entry, inserted] = index.try_emplace("e" + std::to_string(i), IdEntry{1, i});
        ASSERT_TRUE(inserted) << i;
        ASSERT_EQ(entry->ts, i);
    }
    ASSERT_EQ(index.size(), static_cast<std::size_t>(count));
    for (int i = 0; i < count; i += 7) {
        const IdEntry* found = index.find("e" + std::to_string(i));
        ASSERT_NE(found, nullptr) << i;
        EXPECT_EQ(found->ts, i);
        EXPECT_EQ(found->key, 1U);
    }
    // Erase every other one (the last entry fills each hole), then sweep the
    // lower half, then grow back past where the entries were.
    for (int i = 0; i < count; i += 2) index.erase("e" + std::to_string(i));
    ASSERT_EQ(index.size(), static_cast<std::size_t>(count / 2));
    index.erase_older_than(count / 2);
    ASSERT_EQ(index.size(), static_cast<std::size_t>(count / 4));
    for (int i = count; i < 2 * count; ++i) {
        ASSERT_TRUE(index.try_emplace("e" + std::to_string(i), IdEntry{2, i}).second) << i;
    }
    for (int i = 0; i < 2 * count; i += 3) {
        const IdEntry* found = index.find("e" + std::to_string(i));
        const bool held = i >= count || (i >= count / 2 && i % 2 == 1);
        ASSERT_EQ(found != nullptr, held) << i;
        if (found != nullptr) {
            EXPECT_EQ(found->ts, i);
        }
    }
}

// The table doubles in place (grow()): after each doubling every id held is
// found, and ids not held are not. 300k ids take the table from 16 slots to
// 2^20, through the heap and a growing mapping.
TEST(IdIndex, FindsEveryIdAfterEachDoublingInPlace) {
    IdIndex index;
    const int count = 300000;
    int next_check = 8;
    for (int i = 0; i < count; ++i) {
        ASSERT_TRUE(index.try_emplace("d" + std::to_string(i), IdEntry{3, i}).second) << i;
        if (i + 1 != next_check) continue;  // at 8, 16, 32, ...: once between two doublings
        next_check *= 2;
        for (int j = 0; j <= i; ++j) {
            const IdEntry* found = index.find("d" + std::to_string(j));
            ASSERT_NE(found, nullptr) << j << " of " << i + 1;
            ASSERT_EQ(found->ts, j);
        }
        for (int j = i + 1; j < i + 100; ++j) ASSERT_EQ(index.find("d" + std::to_string(j)), nullptr) << j;
    }
}

// Entries are never constructed: a chunk's memory is zero when new, and an
// entry at or past size() holds no heap copy (erase and the sweep free it).
// Reused after a sweep and after erases, an entry that held a long id (on
// the heap) or a longer inline one takes a shorter id cleanly: the old
// bytes left behind it are never part of the new id, no heap copy leaks
// (the sanitizer build's leak check) or is freed twice, and the ids held
// when the index is destroyed are freed with it.
TEST(IdIndex, ReusesSweptAndErasedEntriesWithoutStaleBytes) {
    IdIndex index;
    const int count = 90000;  // past the first chunk (74,898 entries)
    const auto old_id = [](int i) {
        return i % 2 == 0 ? "long-id-on-the-heap-" + std::to_string(i) : "inline15-" + std::to_string(100000 + i);
    };
    for (int i = 0; i < count; ++i) ASSERT_TRUE(index.try_emplace(old_id(i), IdEntry{1, i % 10}).second) << i;
    // Drop nine in ten (all positions reused below), and erase a few more
    // one by one (the last entry moves into each hole).
    index.erase_older_than(9);
    ASSERT_EQ(index.size(), static_cast<std::size_t>(count / 10));
    for (int i = 9; i < 2000; i += 10) index.erase(old_id(i));
    const std::size_t left = index.size();
    // New short ids fill the freed positions and more.
    for (int i = 0; i < count; ++i)
        ASSERT_TRUE(index.try_emplace("n" + std::to_string(i), IdEntry{2, 100 + i}).second) << i;
    ASSERT_EQ(index.size(), left + count);
    for (int i = 0; i < count; ++i) {
        const IdEntry* found = index.find("n" + std::to_string(i));
        ASSERT_NE(found, nullptr) << i;
        ASSERT_EQ(found->ts, 100 + i) << i;
        const IdEntry* old = index.find(old_id(i));
        const bool held = i % 10 == 9 && i >= 2000;
        ASSERT_EQ(old != nullptr, held) << old_id(i);
    }
    // An index of long ids destroyed while holding them frees them all.
    IdIndex other;
    for (int i = 0; i < 1000; ++i) other.try_emplace(old_id(2 * i), IdEntry{3, i});
    EXPECT_EQ(other.size(), 1000U);
}

TEST(IdIndex, PrefetchIsHarmlessOnAnEmptyIndex) {
    IdIndex index;
    index.prefetch(IdIndex::hash("x"));
    EXPECT_EQ(index.find("x"), nullptr);
    EXPECT_FALSE(index.contains("x"));
}

// A sweep of an index that never made its table (an engine restored with
// only sealed events, then forget) left a shift of -32 behind, undefined in
// the next prefetch (the sanitizer build stops on it); then it grows as new.
TEST(IdIndex, ASweepBeforeAnyInsertLeavesAUsableEmptyIndex) {
    IdIndex index;
    index.erase_older_than(0);
    index.prefetch(IdIndex::hash("x"));
    EXPECT_EQ(index.find("x"), nullptr);
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(index.try_emplace("x" + std::to_string(i), IdEntry{1, i}).second);
    for (int i = 0; i < 100; ++i) {
        const IdEntry* found = index.find("x" + std::to_string(i));
        ASSERT_NE(found, nullptr) << i;
        EXPECT_EQ(found->ts, i);
    }
}

}  // namespace
}  // namespace sluice::tideweave
