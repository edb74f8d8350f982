// GrowableArray: contents kept and new elements zero through every way it
// resizes (on the heap; heap to mapping; mapping extended or moved; mapping
// shrunk and grown again; back to the heap).
#include "growable_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace sluice::tideweave {
namespace {

// Elements [0, filled) hold i * 3 + 1, [filled, size) hold zero.
void expect_filled(const GrowableArray<std::uint64_t>& a, std::size_t filled) {
    for (std::size_t i = 0; i < a.size(); ++i) {
        const std::uint64_t want = i < filled ? i * 3 + 1 : 0;
        if (a[i] != want) {
            ADD_FAILURE() << "element " << i << " of " << a.size() << ": " << a[i] << ", expected " << want;
            return;
        }
    }
}

void fill(GrowableArray<std::uint64_t>& a) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = i * 3 + 1;
}

TEST(GrowableArray, KeepsContentsAndZeroesNewElementsWhileDoubling) {
    GrowableArray<std::uint64_t> a;
    EXPECT_TRUE(a.empty());
    // 16 elements up to 2^21 (16 MiB): the heap, then a mapping from 1 MiB.
    for (std::size_t n = 16; n <= (std::size_t{1} << 21); n *= 2) {
        const std::size_t before = a.size();
        a.resize(n);
        ASSERT_EQ(a.size(), n);
        expect_filled(a, before);
        fill(a);
    }
    // A mapping shrunk keeps its start; what grows back reads as zero.
    a.resize(200000);
    expect_filled(a, 200000);
    a.resize(std::size_t{1} << 21);
    expect_filled(a, 200000);
    // Back to the heap, and empty.
    fill(a);
    a.resize(1000);
    expect_filled(a, 1000);
    a.resize(0);
    EXPECT_TRUE(a.empty());
    EXPECT_EQ(a.data(), nullptr);
}

TEST(GrowableArray, AssignZeroEmptiesAndMovesTakeTheMemory) {
    GrowableArray<std::uint64_t> a;
    a.resize(300000);  // mapped
    fill(a);
    a.assign_zero(300000);
    expect_filled(a, 0);
    fill(a);
    GrowableArray<std::uint64_t> b(std::move(a));
    EXPECT_TRUE(a.empty());  // NOLINT: a moved-from array is empty, by contract
    ASSERT_EQ(b.size(), 300000U);
    expect_filled(b, 300000);
    GrowableArray<std::uint64_t> c;
    c.resize(10);
    c = std::move(b);
    ASSERT_EQ(c.size(), 300000U);
    expect_filled(c, 300000);
}

}  // namespace
}  // namespace sluice::tideweave
