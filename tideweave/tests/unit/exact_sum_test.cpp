// The exact accumulator against math.fsum. Expected values were computed with
// Python 3's math.fsum (the contract's definition of the sum).
#include "exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace sluice::tideweave {
namespace {

double exact(std::initializer_list<double> values) {
    ExactSum s;
    for (double v : values) s.add(v);
    return s.to_double();
}

TEST(ExactSum, MatchesFsum) {
    EXPECT_EQ(exact({1e16, 1, -1e16}), 1.0);
    EXPECT_EQ(exact({0x1p53, 1}), 9007199254740992.0);  // a tie rounds to even
    EXPECT_EQ(exact({0x1p53, 3}), 9007199254740996.0);
    EXPECT_EQ(exact({0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}), 1.0);
    EXPECT_EQ(exact({1e-300, 1e300, -1e300}), 1e-300);
    EXPECT_EQ(exact({5e-324, 5e-324}), 1e-323);
    EXPECT_EQ(exact({1.0, 0x1p-53}), 1.0);                        // exactly half an ulp: to even
    EXPECT_EQ(exact({1.0, 0x1p-53, 0x1p-106}), 1.0000000000000002);  // just above half: up
    EXPECT_EQ(exact({0.1, 0.2, 0.3}), 0.6);
    EXPECT_EQ(exact({-0.1, -0.2}), -0.30000000000000004);
    EXPECT_EQ(exact({1e308, -1e308, 1e-308}), 1e-308);
}

TEST(ExactSum, HugeIntermediatesStayExact) {
    // Python's fsum raises "intermediate overflow" here; the fixed-point sum
    // has 77 bits of headroom above the largest double.
    EXPECT_EQ(exact({1e308, 1e308, -1e308}), 1e308);
    EXPECT_EQ(exact({1.7976931348623157e308, 1.7976931348623157e308}), INFINITY);
    EXPECT_EQ(exact({-1.7976931348623157e308, -1.7976931348623157e308}), -INFINITY);
}

TEST(ExactSum, EmptyAndCancelledAreZero) {
    ExactSum s;
    EXPECT_TRUE(s.is_zero());
    EXPECT_EQ(s.to_double(), 0.0);
    s.add(-3.25);
    s.add(3.25);
    EXPECT_TRUE(s.is_zero());
    EXPECT_FALSE(std::signbit(s.to_double()));
}

TEST(ExactSum, RetractionLeavesNoTrace) {
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> mantissa(-1, 1);
    std::uniform_int_distribution<int> exponent(-60, 60);
    for (int round = 0; round < 200; ++round) {
        std::vector<double> kept, gone;
        ExactSum with_history, without;
        for (int i = 0; i < 40; ++i) {
            const double v = std::ldexp(mantissa(rng), exponent(rng));
            with_history.add(v);
            if (i % 3 == 0) {
                gone.push_back(v);
            } else {
                without.add(v);
                kept.push_back(v);
            }
        }
        for (double v : gone) with_history.subtract(v);
        EXPECT_EQ(with_history, without);
        EXPECT_EQ(with_history.to_double(), without.to_double());
        // Order independence: the reversed order gives the same bits.
        ExactSum reversed;
        for (auto it = kept.rbegin(); it != kept.rend(); ++it) reversed.add(*it);
        EXPECT_EQ(reversed.to_double(), without.to_double());
    }
}

TEST(ExactSum, MergingAccumulatorsEqualsAddingValues) {
    ExactSum a, b, all;
    for (double v : {1e16, 0.5, -3.0}) {
        a.add(v);
        all.add(v);
    }
    for (double v : {-1e16, 1e-20, 7.0}) {
        b.add(v);
        all.add(v);
    }
    a.add(b);
    EXPECT_EQ(a, all);
    a.subtract(b);
    b.subtract(b);
    EXPECT_TRUE(b.is_zero());
    EXPECT_EQ(a.to_double(), exact({1e16, 0.5, -3.0}));
}

TEST(ExactSum, PartsAddBackExactly) {
    ExactSum s;
    for (double v : {1e300, 1e-300, 1.0, -0x1p-1074, 1e16, 3.0})
        s.add(v);
    const std::vector<double> parts = s.to_parts();
    EXPECT_GT(parts.size(), 1U);
    ExactSum back;
    for (double p : parts) back.add(p);
    EXPECT_EQ(back, s);
    EXPECT_TRUE(ExactSum{}.to_parts().empty());
}

}  // namespace
}  // namespace sluice::tideweave
