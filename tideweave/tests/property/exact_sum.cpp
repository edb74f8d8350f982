#include "exact_sum.hpp"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace sluice::tideweave::model {

void ExactSum::accumulate(double value, bool negate) {
    if (!std::isfinite(value)) throw std::invalid_argument("ExactSum: non-finite value");
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const bool negative = (bits >> 63) != 0;
    const auto biased_exponent = static_cast<unsigned>((bits >> 52) & 0x7FF);
    const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
    // value = magnitude * 2^(shift - 1074), read straight off the IEEE fields.
    std::uint64_t magnitude = fraction;
    unsigned shift = 0;
    if (biased_exponent != 0) {
        magnitude |= std::uint64_t{1} << 52;
        shift = biased_exponent - 1;
    }
    if (magnitude == 0) return;
    if (negative != negate) {
        subtract_shifted(magnitude, shift);
    } else {
        add_shifted(magnitude, shift);
    }
}

void ExactSum::add_shifted(std::uint64_t magnitude, unsigned shift) {
    std::size_t word = shift / 64;
    const unsigned bit = shift % 64;
    // The shifted 53-bit magnitude straddles at most two words.
    std::uint64_t low = magnitude << bit;
    std::uint64_t high = bit == 0 ? 0 : magnitude >> (64 - bit);
    std::uint64_t carry = 0;
    for (std::size_t i = word; i < kWords; ++i) {
        const std::uint64_t addend = i == word ? low : (i == word + 1 ? high : 0);
        if (addend == 0 && carry == 0 && i > word + 1) break;
        const std::uint64_t before = words_[i];
        std::uint64_t sum = before + addend;
        std::uint64_t next_carry = sum < before ? 1 : 0;
        const std::uint64_t with_carry = sum + carry;
        if (with_carry < sum) next_carry = 1;
        words_[i] = with_carry;
        carry = next_carry;
    }
}

void ExactSum::subtract_shifted(std::uint64_t magnitude, unsigned shift) {
    std::size_t word = shift / 64;
    const unsigned bit = shift % 64;
    std::uint64_t low = magnitude << bit;
    std::uint64_t high = bit == 0 ? 0 : magnitude >> (64 - bit);
    std::uint64_t borrow = 0;
    for (std::size_t i = word; i < kWords; ++i) {
        const std::uint64_t subtrahend = i == word ? low : (i == word + 1 ? high : 0);
        if (subtrahend == 0 && borrow == 0 && i > word + 1) break;
        const std::uint64_t before = words_[i];
        std::uint64_t diff = before - subtrahend;
        std::uint64_t next_borrow = before < subtrahend ? 1 : 0;
        const std::uint64_t with_borrow = diff - borrow;
        if (diff < borrow) next_borrow = 1;
        words_[i] = with_borrow;
        borrow = next_borrow;
    }
}

double ExactSum::rounded() const {
    std::array<std::uint64_t, kWords> n = words_;
    const bool negative = (n[kWords - 1] >> 63) != 0;
    if (negative) {  // two's-complement negation: invert, add one
        std::uint64_t carry = 1;
        for (auto& w : n) {
            w = ~w;
            const std::uint64_t sum = w + carry;
            carry = sum < w ? 1 : 0;
            w = sum;
        }
    }
    std::size_t top = kWords;
    while (top > 0 && n[top - 1] == 0) --top;
    if (top == 0) return 0.0;
    const std::size_t bit_length =
        (top - 1) * 64 + static_cast<std::size_t>(64 - std::countl_zero(n[top - 1]));
    // Bits [from, from + count) of n, count <= 64.
    auto bits = [&](std::size_t from, unsigned count) {
        const std::size_t word = from / 64;
        const unsigned offset = static_cast<unsigned>(from % 64);
        std::uint64_t v = n[word] >> offset;
        if (offset != 0 && word + 1 < kWords) v |= n[word + 1] << (64 - offset);
        return count == 64 ? v : v & ((std::uint64_t{1} << count) - 1);
    };

    double result = 0.0;
    if (bit_length <= 53) {
        // Fewer than 54 significant bits: exactly representable (normal or
        // subnormal), no rounding.
        result = std::ldexp(static_cast<double>(n[0]), -1074);
    } else {
        const std::size_t drop = bit_length - 53;
        std::uint64_t mantissa = bits(drop, 53);
        const bool round_bit = bits(drop - 1, 1) != 0;
        bool sticky = false;  // any bit below the round bit
        const std::size_t below = drop - 1;
        for (std::size_t w = 0; w < below / 64 && !sticky; ++w) sticky = n[w] != 0;
        if (!sticky && below % 64 != 0) sticky = bits(below - below % 64, static_cast<unsigned>(below % 64)) != 0;
        if (round_bit && (sticky || (mantissa & 1) != 0)) ++mantissa;  // nearest, ties to even
        // mantissa <= 2^53 and the exponent keeps the result normal, so ldexp
        // is exact unless it overflows to infinity (the true rounding then).
        result = std::ldexp(static_cast<double>(mantissa), static_cast<int>(drop) - 1074);
    }
    return negative ? -result : result;
}

}  // namespace sluice::tideweave::model
