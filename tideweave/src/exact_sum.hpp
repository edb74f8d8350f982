// An exact, order-independent sum of doubles.
//
// Every finite double is an integer multiple of 2^-1074 below 2^1024, so a
// fixed-point two's-complement integer of 34 64-bit limbs (bit 0 worth
// 2^-1074) holds any sum of up to 2^77 doubles without rounding. Adding and
// subtracting a double touch two limbs plus a carry; a retraction subtracts
// exactly what the insertion added, so the sum never drifts. to_double()
// rounds once, to nearest with ties to even: the result of Python's math.fsum.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace sluice::tideweave {

class ExactSum {
public:
    static constexpr int limb_count = 34;

    void add(double v) { accumulate(v, false); }
    void subtract(double v) { accumulate(v, true); }
    void add(const ExactSum& other);
    void subtract(const ExactSum& other);
    void clear() { limbs_.fill(0); }

    // Adds (subtracts, with `negate`) the two's-complement integer of
    // `count` limbs at `window`, sign-extended, shifted up by `at` limbs
    // (at + count <= limb_count): how a CompactSum's window joins the full
    // form.
    void add_window(const std::uint64_t* window, std::size_t count, std::size_t at, bool negate);
    // The fixed-point integer, limb 0 (worth 2^-1074) first: for CompactSum,
    // which re-bases a value into a window.
    const std::array<std::uint64_t, limb_count>& limbs() const { return limbs_; }

    bool is_zero() const;
    // The exact value rounded once to the nearest double (ties to even);
    // +-infinity when it lies beyond the double range.
    double to_double() const;
    // Doubles whose exact sum is this value (each the rounding of what is
    // left), for serializing; empty for zero. Adding them back gives *this.
    std::vector<double> to_parts() const;

    friend bool operator==(const ExactSum&, const ExactSum&) = default;

private:
    // Inline: it runs for every event inserted (the session's tail leaf) and
    // on every level of a treap descent. A double's 53 bits span at most two
    // limbs; a carry (borrow) past them is rare and handled by a call.
    [[gnu::always_inline]] void accumulate(double v, bool negate_value) {
        if (v == 0.0) return;
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        const bool negative = ((bits >> 63) != 0) != negate_value;
        const auto biased = static_cast<unsigned>((bits >> 52) & 0x7FFU);
        std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
        unsigned shift = 0;  // position of the mantissa's lowest bit, in units of 2^-1074
        if (biased != 0) {
            mantissa |= std::uint64_t{1} << 52;
            shift = biased - 1;
        }
        // A finite double: shift <= 2045, so limb + 1 <= 32 < limb_count.
        // The two limbs are one 128-bit integer (one add-with-carry).
        __extension__ typedef unsigned __int128 u128;
        const std::size_t limb = shift / 64;
        const u128 word = static_cast<u128>(mantissa) << (shift % 64);
        const u128 held = static_cast<u128>(limbs_[limb + 1]) << 64 | limbs_[limb];
        u128 result = 0;
        const bool out = negative ? __builtin_sub_overflow(held, word, &result) : __builtin_add_overflow(held, word, &result);
        limbs_[limb] = static_cast<std::uint64_t>(result);
        limbs_[limb + 1] = static_cast<std::uint64_t>(result >> 64);
        if (out) [[unlikely]]
            propagate(limb + 2, negative);
    }
    // Adds (subtracts) one at limb `from`, carrying (borrowing) upwards; past
    // the top limb it wraps, as two's complement does.
    void propagate(std::size_t from, bool borrow);
    std::array<std::uint64_t, limb_count> limbs_{};
};

}  // namespace sluice::tideweave
