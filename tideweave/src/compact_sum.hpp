// An exact sum of doubles in 48 bytes: the treap nodes' aggregate.
//
// ExactSum (exact_sum.hpp) is a 34-limb fixed-point integer, 272 bytes: room
// for every double at once. A node's sum rarely needs it: values whose
// exponents lie within ~190 bits of each other, and their sums, fit in a
// *window* of four limbs, a two's-complement 256-bit integer W worth
// W * 2^(64 * base - 1074), i.e. limbs base..base+3 of the full form, every
// limb outside the window being the sign extension. Every treap node carries
// one (leaf_treap.hpp), so the 224 bytes saved per leaf are 7 of the
// engine's ~98 bytes per event, and fresh memory costs CPU time (the kernel
// clears each page); adding another node's sum is 4 limbs instead of 34.
//
// Exactness is never traded: whatever does not fit the window (a value of
// another magnitude, a carry out of it, a sum of a different window) is done
// in the full form and the result put back in a window if one holds it
// (re-based), else held as a full ExactSum out of line ("spilled", rare:
// the values of one subtree spanning more than ~190 bits); a spilled sum
// returns to a window as soon as its value fits one again. So the value is
// always exactly what ExactSum would hold (to_full() == the ExactSum of the
// same operations), and to_double() rounds it once, ties to even.
//
// Every sum that fits starts from the same window (default_base, chosen for
// values from 2^-62 to 2^66, sums below 2^141) and only a value that does
// not fit moves it, to a window chosen by the value alone: sums of similar
// magnitudes share a window, which is what keeps add(CompactSum) on its
// 4-limb path.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>

#include "exact_sum.hpp"

namespace sluice::tideweave {

class CompactSum {
public:
    static constexpr int window_limbs = 4;
    // Limbs 15..18: a double's lowest mantissa bit at 2^-114..2^13 (exponent
    // -62..65) takes the fast path; the window's sign bit is 2^141.
    static constexpr int default_base = 15;

    CompactSum() = default;
    CompactSum(const CompactSum& other);
    CompactSum& operator=(const CompactSum& other);
    CompactSum(CompactSum&& other) noexcept;
    CompactSum& operator=(CompactSum&& other) noexcept;
    ~CompactSum() = default;

    void add(double v) { accumulate(v, false); }
    void subtract(double v) { accumulate(v, true); }
    void add(const CompactSum& other) { combine(other, false); }
    void subtract(const CompactSum& other) { combine(other, true); }
    void clear();

    bool is_zero() const;
    // The exact value rounded once to the nearest double (ties to even);
    // +-infinity when it lies beyond the double range. Equal to
    // to_full().to_double().
    double to_double() const;
    // The same value in the full form.
    ExactSum to_full() const;
    // full += *this (full -= *this with `negate`), exactly.
    void add_to(ExactSum& full, bool negate = false) const;
    // Sets the value to `full`'s.
    void assign(const ExactSum& full);
    // (a + b).to_double(), without materializing the sum when both share a
    // window: a session's row is its treap's sum plus its tail leaf's.
    static double rounded_sum(const CompactSum& a, const CompactSum& b);

    // For tests: whether the value is held out of line, and the window's
    // position (meaningless while spilled).
    bool spilled() const { return spill_ != nullptr; }
    int window_base() const { return base_; }

private:
    using Window = std::array<std::uint64_t, window_limbs>;
    // base_ while spilled: far from every limb index, so that the inline
    // paths' range and same-window tests fail without a test of their own.
    static constexpr std::int32_t spilled_base = 1 << 20;

    // Inline: it runs for every event appended (the session's tail leaf) and
    // on every level of an insert's descent. The fast path: the value's two
    // limbs are the window's lowest three (rel 0 or 1) and no carry leaves
    // them, so the top limb, hence the sign, is untouched and the result is
    // exact. Zeros and subnormals take the slow path (rare in data, and
    // leaving them out keeps their decoding off every other value's path).
    [[gnu::always_inline]] void accumulate(double v, bool negate_value) {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        const auto biased = static_cast<unsigned>((bits >> 52) & 0x7FFU);
        // The mantissa's lowest bit, in units of 2^-1074, for a normal
        // double; a subnormal or zero (biased 0) wraps to a huge shift, out
        // of every window: the slow path decodes it.
        const unsigned shift = biased - 1;
        const unsigned rel = shift / 64 - static_cast<unsigned>(base_);
        if (rel > 1) [[unlikely]] {
            accumulate_slow(v, negate_value);
            return;
        }
        const std::uint64_t mantissa = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
        const bool negative = ((bits >> 63) != 0) != negate_value;
        __extension__ typedef unsigned __int128 u128;
        const u128 word = static_cast<u128>(mantissa) << (shift % 64);
        const u128 held = static_cast<u128>(limbs_[rel + 1]) << 64 | limbs_[rel];
        u128 result = 0;
        const bool out = negative ? __builtin_sub_overflow(held, word, &result) : __builtin_add_overflow(held, word, &result);
        if (out) [[unlikely]] {  // a carry (borrow) into the upper limbs; limbs_ untouched
            accumulate_slow(v, negate_value);
            return;
        }
        limbs_[rel] = static_cast<std::uint64_t>(result);
        limbs_[rel + 1] = static_cast<std::uint64_t>(result >> 64);
    }
    // Every other case of accumulate, on an unchanged *this.
    [[gnu::noinline]] void accumulate_slow(double v, bool negate_value);

    // Same window: one 4-limb add-with-carry chain (two 128-bit halves) and
    // a signed overflow test; else, or on overflow, the full form
    // (combine_slow). Inline: every level of a descent and a rotation runs it.
    [[gnu::always_inline]] void combine(const CompactSum& other, bool negate) {
        if (base_ == other.base_ && base_ != spilled_base) [[likely]] {
            if (add_windows(limbs_, other.limbs_, negate, limbs_)) [[likely]]
                return;
        }
        combine_slow(other, negate);
    }
    // out = a + b (a - b with `negate`) as 256-bit two's-complement integers;
    // false, and out unchanged, on signed overflow. out may be a or b.
    [[gnu::always_inline]] static bool add_windows(const Window& a, const Window& b, bool negate, Window& out) {
        __extension__ typedef unsigned __int128 u128;
        const u128 a_low = static_cast<u128>(a[1]) << 64 | a[0];
        const u128 a_high = static_cast<u128>(a[3]) << 64 | a[2];
        const u128 b_low = static_cast<u128>(b[1]) << 64 | b[0];
        const u128 b_high = static_cast<u128>(b[3]) << 64 | b[2];
        u128 low = 0;
        u128 high = 0;
        bool overflow = false;
        if (negate) {
            low = a_low - b_low;
            high = a_high - b_high - (a_low < b_low ? 1 : 0);
            overflow = ((a_high ^ b_high) & (a_high ^ high)) >> 127 != 0;  // signs differ, result's is b's
        } else {
            low = a_low + b_low;
            high = a_high + b_high + (low < a_low ? 1 : 0);
            overflow = (~(a_high ^ b_high) & (a_high ^ high)) >> 127 != 0;  // signs agree, result's differs
        }
        if (overflow) [[unlikely]]
            return false;
        out = {static_cast<std::uint64_t>(low), static_cast<std::uint64_t>(low >> 64), static_cast<std::uint64_t>(high),
               static_cast<std::uint64_t>(high >> 64)};
        return true;
    }
    [[gnu::noinline]] void combine_slow(const CompactSum& other, bool negate);

    Window limbs_{};
    std::int32_t base_ = default_base;
    std::unique_ptr<ExactSum> spill_;  // the value, while it fits no window
};

}  // namespace sluice::tideweave
