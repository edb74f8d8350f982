// The engine's compact id (SmallId: inline up to 15 bytes, else on the heap)
// and its key table (KeyNames: open addressing, released ids reused), each
// against the std:: type it replaced.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sluice::tideweave
