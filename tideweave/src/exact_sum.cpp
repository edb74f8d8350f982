#include "exact_sum.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace sluice::tideweave {
namespace {

using Limbs = std::array<std::uint64_t, ExactSum::limb_count>;

// Adds (or subtracts) `word` at limb `index`, propagating the carry (borrow).
void add_word(Limbs& limbs, std::size_t index, std::uint64_t word) {
    for (std::size_t i = index; i < limbs.size() && word != 0; ++i) {
        const std::uint64_t before = limbs[i];
        limbs[i] = before + word;
        word = limbs[i] < before ? 1 : 0;
    }
}

void subtract_word(Limbs& limbs, std::size_t index, std::uint64_t word) {
    for (std::size_t i = index; i < limbs.size() && word != 0; ++i) {
        const std::uint64_t before = limbs[i];
        limbs[i] = before - word;
        word = before < word ? 1 : 0;
    }
}

bool is_negative(const Limbs& limbs) { return (limbs.back() >> 63) != 0; }

void negate(Limbs& limbs) {
    std::uint64_t carry = 1;
    for (auto& limb : limbs) {
        limb = ~limb + carry;
        carry = (carry != 0 && limb == 0) ? 1 : 0;
    }
}

// Bit `pos` of a non-negative magnitude.
bool bit_at(const Limbs& mag, int pos) {
    const auto p = static_cast<std::size_t>(pos);
    return ((mag[p / 64] >> (p % 64)) & 1U) != 0;
}

// 64 bits of the magnitude starting at bit `pos` (pos >= 0).
std::uint64_t bits_from(const Limbs& mag, int pos) {
    const auto p = static_cast<std::size_t>(pos);
    const std::size_t limb = p / 64;
    const unsigned shift = static_cast<unsigned>(p % 64);
    std::uint64_t word = mag[limb] >> shift;
    if (shift != 0 && limb + 1 < mag.size()) word |= mag[limb + 1] << (64 - shift);
    return word;
}

bool any_bit_below(const Limbs& mag, int pos) {
    if (pos <= 0) return false;
    const auto p = static_cast<std::size_t>(pos);
    for (std::size_t i = 0; i < p / 64; ++i)
        if (mag[i] != 0) return true;
    const unsigned rest = static_cast<unsigned>(p % 64);
    return rest != 0 && (mag[p / 64] & ((std::uint64_t{1} << rest) - 1)) != 0;
}

double round_magnitude(const Limbs& mag) {
    int top = -1;
    for (int i = ExactSum::limb_count - 1; i >= 0; --i) {
        const std::uint64_t limb = mag[static_cast<std::size_t>(i)];
        if (limb != 0) {
            top = i * 64 + 63 - std::countl_zero(limb);
            break;
        }
    }
    if (top < 0) return 0.0;
    if (top < 53) {  // fewer than 54 significant bits: exact
        return std::ldexp(static_cast<double>(mag[0]), -1074);
    }
    const int low = top - 52;  // the mantissa's lowest bit
    std::uint64_t mantissa = bits_from(mag, low) & ((std::uint64_t{1} << 53) - 1);
    // Ties to even: the bits below the round bit matter only for a round bit
    // of 1 and an even mantissa (scanning them is most of this function).
    if (bit_at(mag, low - 1) && ((mantissa & 1U) != 0 || any_bit_below(mag, low - 1)))
        ++mantissa;  // may reach 2^53: still exact
    return std::ldexp(static_cast<double>(mantissa), low - 1074);
}

}  // namespace

void ExactSum::propagate(std::size_t from, bool borrow) {
    if (borrow) {
        subtract_word(limbs_, from, 1);
    } else {
        add_word(limbs_, from, 1);
    }
}

// These run on every node of a treap path and for every row read. On
// x86-64, one unrolled add-with-carry (subtract-with-borrow) chain: ~100
// instructions for the 34 limbs, where the portable loop below compiles to
// ~17 per limb (measured with callgrind on the typed API's stream).
void ExactSum::add(const ExactSum& other) {
#if defined(__x86_64__)
    unsigned char carry = 0;
#pragma GCC unroll 34
    for (std::size_t i = 0; i < limb_count; ++i) {
        unsigned long long s = 0;
        carry = _addcarry_u64(carry, limbs_[i], other.limbs_[i], &s);
        limbs_[i] = s;
    }
#else
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
        const std::uint64_t a = limbs_[i];
        const std::uint64_t b = other.limbs_[i];
        const std::uint64_t s = a + b;
        const std::uint64_t t = s + carry;
        carry = (s < a || t < s) ? 1 : 0;
        limbs_[i] = t;
    }
#endif
}

void ExactSum::subtract(const ExactSum& other) {
#if defined(__x86_64__)
    unsigned char borrow = 0;
#pragma GCC unroll 34
    for (std::size_t i = 0; i < limb_count; ++i) {
        unsigned long long d = 0;
        borrow = _subborrow_u64(borrow, limbs_[i], other.limbs_[i], &d);
        limbs_[i] = d;
    }
#else
    std::uint64_t borrow = 0;
    for (std::size_t i = 0; i < limbs_.size(); ++i) {
        const std::uint64_t a = limbs_[i];
        const std::uint64_t b = other.limbs_[i];
        const std::uint64_t d = a - b;
        const std::uint64_t t = d - borrow;
        borrow = (a < b || d < borrow) ? 1 : 0;
        limbs_[i] = t;
    }
#endif
}

void ExactSum::add_window(const std::uint64_t* window, std::size_t count, std::size_t at, bool negate) {
    const std::uint64_t extension = (window[count - 1] >> 63) != 0 ? ~std::uint64_t{0} : 0;
    // Subtracting W is adding ~W + 1: the complement of every limb (the
    // extension's too) and a carry in of one.
    const std::uint64_t flip = negate ? ~std::uint64_t{0} : 0;
    std::uint64_t carry = negate ? 1 : 0;
    for (std::size_t i = at; i < limbs_.size(); ++i) {
        const std::uint64_t operand = (i - at < count ? window[i - at] : extension) ^ flip;
        const std::uint64_t before = limbs_[i];
        const std::uint64_t s = before + operand;
        const std::uint64_t t = s + carry;
        carry = (s < before || t < s) ? 1 : 0;
        limbs_[i] = t;
    }
}

bool ExactSum::is_zero() const {
    for (auto limb : limbs_)
        if (limb != 0) return false;
    return true;
}

double ExactSum::to_double() const {
    if (!is_negative(limbs_)) return round_magnitude(limbs_);
    Limbs mag = limbs_;
    negate(mag);
    return -round_magnitude(mag);
}

std::vector<double> ExactSum::to_parts() const {
    std::vector<double> parts;
    ExactSum rest = *this;
    // Each step removes the rounded value, leaving less than half an ulp of
    // it, so this ends after at most ~40 steps; an infinite rounding is split
    // into halves of the largest double's magnitude.
    while (!rest.is_zero()) {
        double part = rest.to_double();
        if (std::isinf(part)) part = std::copysign(0x1p1023, part);
        parts.push_back(part);
        rest.subtract(part);
    }
    return parts;
}

}  // namespace sluice::tideweave
