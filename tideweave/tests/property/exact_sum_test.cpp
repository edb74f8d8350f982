// The model's exact summation against sums whose correctly rounded value is
// known by hand (and agrees with Python's math.fsum).
#include "exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <limits>
#include <vector>

namespace sluice::tideweave::model {
namespace {

double sum_of(const std::vector<double>& values) {
    ExactSum s;
    for (const double v : values) s.add(v);
    return s.rounded();
}

TEST(ModelExactSum, EmptyAndCancellingSumsAreZero) {
    EXPECT_EQ(sum_of({}), 0.0);
    EXPECT_FALSE(std::signbit(sum_of({1.5, -1.5})));
    EXPECT_EQ(sum_of({1e308, -1e308, 5e-324, -5e-324}), 0.0);
}

TEST(ModelExactSum, CancellationKeepsTheSmallTerm) {
    EXPECT_EQ(sum_of({1e16, 1.0, -1e16}), 1.0);
    EXPECT_EQ(sum_of({1e100, 1.0, -1e100, 1e-100}), 1.0 + 1e-100);
    EXPECT_EQ(sum_of({1e308, 1e-308, -1e308}), 1e-308);
    EXPECT_EQ(sum_of({5e-324, 1e308, -1e308}), 5e-324);
}

TEST(ModelExactSum, RoundsOnceToNearest) {
    // fsum([0.1]*10) == 1.0, while naive summation gives 0.9999999999999999.
    EXPECT_EQ(sum_of(std::vector<double>(10, 0.1)), 1.0);
    // 2^53 + 1 is a tie between 2^53 and 2^53 + 2: even mantissa wins.
    EXPECT_EQ(sum_of({9007199254740992.0, 1.0}), 9007199254740992.0);
    // 2^53 + 3 ties between 2^53 + 2 and 2^53 + 4: 2^53 + 4 has the even mantissa.
    EXPECT_EQ(sum_of({9007199254740992.0, 3.0}), 9007199254740996.0);
    // Just above the tie rounds up.
    EXPECT_EQ(sum_of({9007199254740992.0, 1.0, 1e-300}), 9007199254740994.0);
    // fsum([1e16, 1.0, 1e-16]) == 1.0000000000000002e16
    EXPECT_EQ(sum_of({1e16, 1.0, 1e-16}), 10000000000000002.0);
}

TEST(ModelExactSum, SubnormalsAreExact) {
    const double tiny = std::numeric_limits<double>::denorm_min();
    EXPECT_EQ(sum_of({tiny, tiny, tiny}), 3 * tiny);
    EXPECT_EQ(sum_of({std::numeric_limits<double>::min(), -tiny}),
              std::nextafter(std::numeric_limits<double>::min(), 0.0));
    EXPECT_EQ(sum_of({-tiny}), -tiny);
}

TEST(ModelExactSum, NegativeSumsMirrorPositiveOnes) {
    EXPECT_EQ(sum_of({-0.1, -0.2}), -0.30000000000000004);
    EXPECT_EQ(sum_of({-1e16, -1.0, 1e16}), -1.0);
    EXPECT_EQ(sum_of({-9007199254740992.0, -3.0}), -9007199254740996.0);
}

TEST(ModelExactSum, OverflowRoundsToInfinityAndCanComeBack) {
    const double big = std::numeric_limits<double>::max();
    EXPECT_TRUE(std::isinf(sum_of({big, big})));
    EXPECT_EQ(sum_of({big, big, -big}), big);
    ExactSum s;
    s.add(big);
    s.add(1.0);
    s.subtract(1.0);
    EXPECT_EQ(s.rounded(), big);
}

TEST(ModelExactSum, TwoTermsRoundLikeIeeeAddition) {
    // IEEE addition of two doubles is itself correctly rounded (ties to even),
    // so a + b is an independent oracle for every pair: ties, subnormals,
    // cancellation and overflow included.
    std::mt19937_64 rng(20261130);
    auto random_double = [&] {
        for (;;) {
            const double v = std::bit_cast<double>(rng());
            if (std::isfinite(v)) return v;
        }
    };
    for (int i = 0; i < 200000; ++i) {
        const double a = random_double();
        if (a == 0.0) continue;
        // Nearby exponents make rounding (and ties) common; far ones make
        // one term vanish into the sticky bit.
        const double b = i % 2 ? random_double() : std::ldexp(random_double(), -std::ilogb(a) + static_cast<int>(rng() % 120) - 60);
        if (!std::isfinite(b)) continue;
        ExactSum s;
        s.add(a);
        s.add(b);
        const double expected = a + b;
        if (expected == 0.0) {
            ASSERT_EQ(s.rounded(), 0.0) << a << " + " << b;
        } else {
            ASSERT_EQ(s.rounded(), expected) << std::hexfloat << a << " + " << b;
        }
        ExactSum d;
        d.add(a);
        d.subtract(b);
        if (a - b != 0.0) {
            ASSERT_EQ(d.rounded(), a - b) << std::hexfloat << a << " - " << b;
        }
    }
}

TEST(ModelExactSum, OrderDoesNotMatter) {
    std::vector<double> values = {1e16, 0.1, -1e16, 3.5e-300, 7.0, -0.1, 1e200, -1e200, 0.3};
    const double expected = sum_of(values);
    std::sort(values.begin(), values.end());
    do {
        ASSERT_EQ(sum_of(values), expected);
    } while (std::next_permutation(values.begin(), values.begin() + 6));
    EXPECT_EQ(expected, 7.3);  // 0.3 + 7 rounded once; 0.1 - 0.1 and the big pairs cancel exactly
}

}  // namespace
}  // namespace sluice::tideweave::model
