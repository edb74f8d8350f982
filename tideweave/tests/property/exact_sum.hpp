// The test suite's own exact summation, written to be obviously correct rather
// than fast: every finite double is an integer multiple of 2^-1074, so the sum
// of any doubles is an integer N times 2^-1074. We keep N in a wide
// two's-complement fixed-point integer (no rounding ever happens while adding)
// and round N * 2^-1074 to the nearest double, ties to even, exactly once at
// the end. That is what Python's math.fsum returns, and what the contract asks
// of a session's sum.
#pragma once

#include <array>
#include <cstdint>

namespace sluice::tideweave::model {

class ExactSum {
public:
    void add(double value) { accumulate(value, false); }
    void subtract(double value) { accumulate(value, true); }

    // The exact sum rounded once to the nearest double (ties to even); +0.0 for
    // an exact zero; +/-infinity when the exact sum exceeds the double range.
    double rounded() const;

private:
    // 2^-1074 .. 2^1024 spans 2098 bits; 40 words leave room for the sign and
    // for 2^400 additions of the largest doubles.
    static constexpr std::size_t kWords = 40;

    void accumulate(double value, bool negate);
    void add_shifted(std::uint64_t magnitude, unsigned shift);
    void subtract_shifted(std::uint64_t magnitude, unsigned shift);

    std::array<std::uint64_t, kWords> words_{};  // little-endian words
};

}  // namespace sluice::tideweave::model
