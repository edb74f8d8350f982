// CompactSum against ExactSum, side by side: after every operation the
// compact form must hold exactly the full form's value (to_full() equal limb
// for limb) and round to the same double, whatever the values: every
// exponent, subnormals, +-0, +-huge, cancellation, retraction, sums of
// different windows combined, spilling out of line and coming back.
#include "compact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace sluice::tideweave {
namespace {

// The same value in both forms.
struct Pair {
    CompactSum compact;
    ExactSum full;
};

::testing::AssertionResult same(const Pair& p) {
    if (!(p.compact.to_full() == p.full)) return ::testing::AssertionFailure() << "values differ";
    const double c = p.compact.to_double();
    const double f = p.full.to_double();
    if (std::bit_cast<std::uint64_t>(c) != std::bit_cast<std::uint64_t>(f))
        return ::testing::AssertionFailure() << "to_double " << c << " vs " << f;
    if (p.compact.is_zero() != p.full.is_zero()) return ::testing::AssertionFailure() << "is_zero differs";
    return ::testing::AssertionSuccess();
}

// Values that sit on the edges: of the default window (exponents -62/-63,
// 65/66), of the double range, of subnormals, zeros.
std::vector<double> edge_values() {
    std::vector<double> v = {0.0,
                             -0.0,
                             5e-324,
                             -5e-324,
                             DBL_MIN,
                             -DBL_MIN,
                             DBL_MIN - 5e-324,
                             DBL_MAX,
                             -DBL_MAX,
                             1.0,
                             -1.0,
                             0.1,
                             std::nextafter(1.0, 2.0),
                             0x1p-1074 * 3,
                             0x1p-1022 * 0.5};
    for (int e : {-63, -62, -61, 63, 64, 65, 66, 67, 140, 141, 142, -120, -127, -128, 200, 500, 1000, 1023, -900, -1000})
        for (double m : {1.0, 1.9999999999999998, 1.5})
            for (double sign : {1.0, -1.0}) v.push_back(sign * std::ldexp(m, e));
    return v;
}

// A random double of a random class: any finite bit pattern, a narrow
// exponent range (the common case), a subnormal, or an edge value.
double random_value(std::mt19937_64& rng, const std::vector<double>& edges) {
    switch (rng() % 4) {
    case 0: {
        for (;;) {
            const double v = std::bit_cast<double>(rng());
            if (std::isfinite(v)) return v;
        }
    }
    case 1: {
        std::uniform_real_distribution<double> mantissa(-1, 1);
        std::uniform_int_distribution<int> exponent(-80, 150);
        return std::ldexp(mantissa(rng), exponent(rng));
    }
    case 2: return std::bit_cast<double>(rng() & 0x800FFFFFFFFFFFFFULL);  // subnormal or +-0
    default: return edges[rng() % edges.size()];
    }
}

TEST(CompactSum, RandomOperationsMatchTheFullForm) {
    std::mt19937_64 rng(12);
    const std::vector<double> edges = edge_values();
    std::array<Pair, 4> pairs;
    int spills = 0;
    int rebased = 0;
    for (int step = 0; step < 60000; ++step) {
        Pair& p = pairs[rng() % pairs.size()];
        const Pair& q = pairs[rng() % pairs.size()];  // may be p itself
        const unsigned op = static_cast<unsigned>(rng() % 16);
        if (op < 6) {
            const double v = random_value(rng, edges);
            p.compact.add(v);
            p.full.add(v);
        } else if (op < 12) {
            const double v = random_value(rng, edges);
            p.compact.subtract(v);
            p.full.subtract(v);
        } else if (op < 14) {
            const ExactSum other = q.full;
            p.compact.add(q.compact);
            p.full.add(other);
        } else if (op < 15) {
            const ExactSum other = q.full;
            p.compact.subtract(q.compact);
            p.full.subtract(other);
        } else {
            p.compact.clear();
            p.full.clear();
        }
        ASSERT_TRUE(same(p)) << "step " << step << " op " << op;
        spills += p.compact.spilled() ? 1 : 0;
        rebased += !p.compact.spilled() && p.compact.window_base() != CompactSum::default_base ? 1 : 0;
        const Pair& a = pairs[rng() % pairs.size()];
        const Pair& b = pairs[rng() % pairs.size()];
        ExactSum both = a.full;
        both.add(b.full);
        ASSERT_EQ(std::bit_cast<std::uint64_t>(CompactSum::rounded_sum(a.compact, b.compact)),
                  std::bit_cast<std::uint64_t>(both.to_double()))
            << "step " << step;
    }
    // The run went through every form: spilled, re-based, default.
    EXPECT_GT(spills, 0);
    EXPECT_GT(rebased, 0);
}

// The common case, values of one magnitude: sums of different windows only
// when a value moved them, and the combined sums stay exact.
TEST(CompactSum, NarrowRangeTreeLikeCombinations) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> value(-300, 300);
    std::vector<Pair> leaves(64);
    for (auto& leaf : leaves)
        for (int i = 0; i < 32; ++i) {
            const double v = value(rng);
            leaf.compact.add(v);
            leaf.full.add(v);
        }
    Pair total;
    for (const auto& leaf : leaves) {
        total.compact.add(leaf.compact);
        total.full.add(leaf.full);
        ASSERT_TRUE(same(total));
        EXPECT_FALSE(total.compact.spilled());
        EXPECT_EQ(total.compact.window_base(), CompactSum::default_base);
    }
    for (const auto& leaf : leaves) {
        total.compact.subtract(leaf.compact);
        total.full.subtract(leaf.full);
        ASSERT_TRUE(same(total));
    }
    EXPECT_TRUE(total.compact.is_zero());
}

TEST(CompactSum, RetractionCancelsToExactZero) {
    std::mt19937_64 rng(9);
    const std::vector<double> edges = edge_values();
    for (int round = 0; round < 300; ++round) {
        std::vector<double> values;
        CompactSum s;
        for (int i = 0; i < 50; ++i) {
            values.push_back(random_value(rng, edges));
            s.add(values.back());
        }
        std::shuffle(values.begin(), values.end(), rng);
        for (double v : values) s.subtract(v);
        EXPECT_TRUE(s.is_zero()) << "round " << round;
        // Zero in whatever window the last value left (a window that held
        // the sum holds zero); never out of line.
        EXPECT_FALSE(s.spilled());
        EXPECT_EQ(s.to_double(), 0.0);
        EXPECT_FALSE(std::signbit(s.to_double()));
    }
}

TEST(CompactSum, SpillsAndComesBack) {
    Pair p;
    for (double v : {1e300, 1e-300}) {
        p.compact.add(v);
        p.full.add(v);
    }
    EXPECT_TRUE(p.compact.spilled());
    ASSERT_TRUE(same(p));
    // A copy of a spilled sum is its own.
    Pair copy = p;
    copy.compact.subtract(1e-300);
    copy.full.subtract(1e-300);
    ASSERT_TRUE(same(copy));
    ASSERT_TRUE(same(p));
    EXPECT_FALSE(copy.compact.spilled());
    EXPECT_NE(copy.compact.window_base(), CompactSum::default_base);
    p.compact.subtract(1e300);
    p.full.subtract(1e300);
    EXPECT_FALSE(p.compact.spilled());
    ASSERT_TRUE(same(p));
    EXPECT_EQ(p.compact.to_double(), 1e-300);
    // Moving leaves the source zero and the target the value.
    CompactSum moved = std::move(copy.compact);
    EXPECT_TRUE(copy.compact.is_zero());  // NOLINT(bugprone-use-after-move): the documented moved-from state
    EXPECT_TRUE(moved.to_full() == copy.full);
}

// A carry out of the value's limbs: a sum crossing zero (two's complement:
// every limb flips) and a sum outgrowing the default window.
TEST(CompactSum, CarriesAcrossZeroAndOutOfTheWindow) {
    Pair p;
    for (int i = 0; i < 200; ++i) {
        const double v = (i % 2 == 0 ? 1.0 : -1.0) * (0.75 + i);
        p.compact.add(v);
        p.full.add(v);
        ASSERT_TRUE(same(p)) << i;
    }
    Pair big;
    for (int i = 0; i < 100; ++i) {
        big.compact.add(0x1p139 * 1.5);
        big.full.add(0x1p139 * 1.5);
        ASSERT_TRUE(same(big)) << i;
    }
    EXPECT_NE(big.compact.window_base(), CompactSum::default_base);
    // Subtracting what was added: back to zero through every window.
    for (int i = 0; i < 100; ++i) {
        big.compact.subtract(0x1p139 * 1.5);
        big.full.subtract(0x1p139 * 1.5);
        ASSERT_TRUE(same(big)) << i;
    }
    EXPECT_TRUE(big.compact.is_zero());
}

TEST(CompactSum, RoundsLikeFsum) {
    // The cases of ExactSum's fsum test, through the compact form.
    const auto sum = [](std::initializer_list<double> values) {
        CompactSum s;
        for (double v : values) s.add(v);
        return s.to_double();
    };
    EXPECT_EQ(sum({1e16, 1, -1e16}), 1.0);
    EXPECT_EQ(sum({0x1p53, 1}), 9007199254740992.0);
    EXPECT_EQ(sum({0x1p53, 3}), 9007199254740996.0);
    EXPECT_EQ(sum({1.0, 0x1p-53}), 1.0);
    EXPECT_EQ(sum({1.0, 0x1p-53, 0x1p-106}), 1.0000000000000002);
    EXPECT_EQ(sum({0.1, 0.2, 0.3}), 0.6);
    EXPECT_EQ(sum({-0.1, -0.2}), -0.30000000000000004);
    EXPECT_EQ(sum({1e-300, 1e300, -1e300}), 1e-300);
    EXPECT_EQ(sum({5e-324, 5e-324}), 1e-323);
    EXPECT_EQ(sum({DBL_MAX, DBL_MAX}), INFINITY);
    EXPECT_EQ(sum({-DBL_MAX, -DBL_MAX}), -INFINITY);
    EXPECT_EQ(sum({DBL_MAX, DBL_MAX, -DBL_MAX}), DBL_MAX);
    EXPECT_EQ(sum({-0.0, -0.0}), 0.0);
}

}  // namespace
}  // namespace sluice::tideweave
