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

    bool is_zero() const;
    // The exact value rounded once to the nearest double (ties to even);
    // +-infinity when it lies beyond the double range.
    double to_double() const;
    // Doubles whose exact sum is this value (each the rounding of what is
    // left), for serializing; empty for zero. Adding them back gives *this.
    std::vector<double> to_parts() const;

    friend bool operator==(const ExactSum&, const ExactSum&) = default;

private:
    void accumulate(double v, bool negate);
    std::array<std::uint64_t, limb_count> limbs_{};
};

}  // namespace sluice::tideweave
