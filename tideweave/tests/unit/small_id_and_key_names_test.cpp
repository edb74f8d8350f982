// The engine's compact id (SmallId: inline up to 15 bytes, else on the heap)
// and its key table (KeyNames: open addressing, released ids reused), each
// against the std:: type it replaced.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "key_names.hpp"
#include "small_id.hpp"

namespace sluice::tideweave {
namespace {

TEST(SmallId, HoldsInlineAndHeapIdsThroughCopiesAndMoves) {
    for (const std::string& s : {std::string(), std::string("e1"), std::string(15, 'a'), std::string(16, 'b'),
                                std::string(256, 'c'), std::string("with\0nul", 8)}) {
        SmallId id(s);
        EXPECT_EQ(id.view(), s);
        SmallId copy = id;
        EXPECT_EQ(copy.view(), s);
        SmallId moved = std::move(copy);
        EXPECT_EQ(moved.view(), s);
        EXPECT_EQ(copy.view(), "");  // NOLINT: a moved-from SmallId is empty, by contract
        SmallId target("something else entirely, on the heap");
        target = std::move(moved);
        EXPECT_EQ(target.view(), s);
        target = id;
        EXPECT_EQ(target.view(), s);
        target.assign("short");
        EXPECT_EQ(target.view(), "short");
        target.clear();
        EXPECT_EQ(target.view(), "");
    }
}

TEST(KeyNames, AgreesWithAMapUnderInternAndRelease) {
    std::mt19937_64 rng(3);
    KeyNames names;
    std::map<std::string, KeyId> model;
    for (int op = 0; op < 40000; ++op) {
        const std::string name = "key-" + std::to_string(rng() % 3000) + (rng() % 5 == 0 ? std::string(30, 'z') : "");
        if (rng() % 4 != 0 || model.count(name) == 0) {
            bool added = false;
            const KeyId id = names.intern(name, added);
            const auto it = model.find(name);
            ASSERT_EQ(added, it == model.end()) << name;
            if (it != model.end()) {
                ASSERT_EQ(id, it->second) << name;
            }
            model[name] = id;
            ASSERT_EQ(names.name(id), name);
        } else {
            names.release(model[name]);
            model.erase(name);
        }
        ASSERT_EQ(names.size(), model.size());
    }
    for (const auto& [name, id] : model) {
        bool added = true;
        EXPECT_EQ(names.intern(name, added), id) << name;
        EXPECT_FALSE(added);
    }
    // Ids stay distinct while held (released ones are reused, never shared).
    std::map<KeyId, std::string> by_id;
    for (const auto& [name, id] : model) EXPECT_TRUE(by_id.emplace(id, name).second) << name;
}

TEST(KeyNames, OrdersNamesAsStdStringDoes) {
    // Shared eight-byte prefixes, prefixes of each other, NUL and high bytes
    // (compared unsigned, as std::string's char_traits do).
    const std::vector<std::string> samples = {"", "a", "ab", std::string("ab\0", 3), "abcdefgh", "abcdefgh1",
                                              "abcdefgh2", "abcdefgi", "b", "\xc3\xa9t\xc3\xa9", "\xff",
                                              "customer-000123", "customer-000124", "customer-00012", "Z"};
    KeyNames names;
    std::vector<KeyId> ids;
    for (const std::string& s : samples) {
        bool added = false;
        ids.push_back(names.intern(s, added));
        ASSERT_TRUE(added) << s;
    }
    for (std::size_t i = 0; i < samples.size(); ++i) {
        for (std::size_t j = 0; j < samples.size(); ++j)
            EXPECT_EQ(names.less(ids[i], ids[j]), samples[i] < samples[j]) << i << " " << j;
        bool added = true;
        EXPECT_EQ(names.intern(samples[i], added), ids[i]);
        EXPECT_FALSE(added);
    }
}

// Keys of up to eight bytes are found by (first eight bytes read in probe
// order, length) alone: every short key over a small alphabet (NUL
// included, so that zero padding and a NUL byte differ only by length),
// interned through several growths of the table, is its own key, found
// again after releases of others, and ordered as std::string orders.
TEST(KeyNames, TellsApartEveryShortKeyOfASmallAlphabet) {
    std::vector<std::string> keys = {""};
    for (std::size_t begin = 0, length = 1; length <= 9; ++length) {
        const std::size_t end = keys.size();
        for (std::size_t k = begin; k < end; ++k)
            for (char c : {'\0', 'a', 'b'}) keys.push_back(keys[k] + c);
        begin = end;
        if (keys.size() > 4000) break;
    }
    // Hand-picked twins: the same bytes read at 1..3 bytes ("ab" reads
    // a,b,b like "abb"), overlapping 4-byte reads, long keys sharing their
    // first eight bytes.
    for (const char* twin : {"abb", "abbb", "abcde", "abcdbcde", "abcdefgh", "abcdefghX", "abcdefghY", "abcdefgh\0"})
        keys.emplace_back(twin);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());

    KeyNames names;
    std::map<std::string, KeyId> ids;
    for (const std::string& k : keys) {
        bool added = false;
        const KeyId id = names.intern(k, added);
        ASSERT_TRUE(added) << k.size();
        ids[k] = id;
    }
    ASSERT_EQ(names.size(), keys.size());
    // Release every third key, then look all up again: the released ones
    // come back as new (reusing ids), the rest as they were.
    for (std::size_t i = 0; i < keys.size(); i += 3) names.release(ids[keys[i]]);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        bool added = false;
        const KeyId id = names.intern(keys[i], added);
        EXPECT_EQ(added, i % 3 == 0) << i;
        if (i % 3 != 0) {
            EXPECT_EQ(id, ids[keys[i]]) << i;
        }
        ids[keys[i]] = id;
        EXPECT_EQ(names.name(id), keys[i]);
    }
    ASSERT_EQ(names.size(), keys.size());
    for (std::size_t i = 1; i < keys.size(); ++i) {
        EXPECT_TRUE(names.less(ids[keys[i - 1]], ids[keys[i]])) << i;
        EXPECT_FALSE(names.less(ids[keys[i]], ids[keys[i - 1]])) << i;
    }
}

}  // namespace
}  // namespace sluice::tideweave
