// Fuzzes CompactSum (the treap nodes' exact sum) against ExactSum: the bytes
// are a program of operations on four pairs of sums, each pair one value in
// both forms. Invariant (any violation aborts): after every operation the
// compact form holds exactly the full form's value (to_full() equal limb for
// limb), rounds to the same double and agrees on is_zero; rounded_sum of two
// compact sums is the rounding of the full sum.
//
// Program: one byte per operation, its low two bits the pair, the next two
// the other pair, the top four the operation:
//   0-4   add a double            5-9    subtract a double
//   10-11 add the other pair      12     subtract the other pair
//   13    clear                   14-15  copy the other pair's value
// A double is 8 raw bytes when the operation's value is odd (any finite
// bits: every exponent), else 3 bytes: an exponent in [-128, 127] around 1
// and a 16-bit signed mantissa (values near the default window's edges,
// where carries and re-basing happen).
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compact_sum.hpp"

namespace {

namespace tw = sluice::tideweave;

struct Pair {
    tw::CompactSum compact;
    tw::ExactSum full;
};

[[noreturn]] void violated(const char* what, std::size_t at) {
    std::fprintf(stderr, "compact sum fuzz invariant violated at byte %zu: %s\n", at, what);
    std::abort();
}

void check(const Pair& p, std::size_t at) {
    if (!(p.compact.to_full() == p.full)) violated("the compact value differs from the full one", at);
    if (std::bit_cast<std::uint64_t>(p.compact.to_double()) != std::bit_cast<std::uint64_t>(p.full.to_double()))
        violated("to_double differs", at);
    if (p.compact.is_zero() != p.full.is_zero()) violated("is_zero differs", at);
}

class Reader {
public:
    Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool done() const { return at_ >= size_; }
    std::size_t at() const { return at_; }
    std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    double value(bool raw) {
        if (raw) {
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i) bits = bits << 8 | byte();
            double v = std::bit_cast<double>(bits);
            if (!std::isfinite(v)) v = std::bit_cast<double>(bits & ~(std::uint64_t{1} << 62));  // exponent below the top
            return v;
        }
        const int exponent = static_cast<std::int8_t>(byte());
        const auto mantissa = static_cast<std::int16_t>(byte() << 8 | byte());
        return std::ldexp(static_cast<double>(mantissa), exponent);
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::array<Pair, 4> pairs;
    Reader in(data, size);
    while (!in.done()) {
        const std::size_t at = in.at();
        const std::uint8_t op = in.byte();
        Pair& p = pairs[op & 3U];
        const Pair& q = pairs[(op >> 2) & 3U];
        const unsigned code = op >> 4;
        if (code <= 9) {
            const double v = in.value((code & 1U) != 0);
            if (code <= 4) {
                p.compact.add(v);
                p.full.add(v);
            } else {
                p.compact.subtract(v);
                p.full.subtract(v);
            }
        } else if (code <= 12) {
            const tw::ExactSum other = q.full;  // q may be p
            if (code <= 11) {
                p.compact.add(q.compact);
                p.full.add(other);
            } else {
                p.compact.subtract(q.compact);
                p.full.subtract(other);
            }
        } else if (code == 13) {
            p.compact.clear();
            p.full.clear();
        } else {
            p.compact = q.compact;
            p.full = q.full;
        }
        check(p, at);
        tw::ExactSum both = p.full;
        both.add(q.full);
        if (std::bit_cast<std::uint64_t>(tw::CompactSum::rounded_sum(p.compact, q.compact)) !=
            std::bit_cast<std::uint64_t>(both.to_double()))
            violated("rounded_sum differs", at);
    }
    return 0;
}
