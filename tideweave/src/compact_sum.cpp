#include "compact_sum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace sluice::tideweave {
namespace {

constexpr int window_limbs = CompactSum::window_limbs;
constexpr int last_base = ExactSum::limb_count - window_limbs;  // the highest window

std::uint64_t sign_extension(std::uint64_t top_limb) { return (top_limb >> 63) != 0 ? ~std::uint64_t{0} : 0; }

// Rounds the magnitude `mag` (4 limbs, non-negative) worth
// mag * 2^(64 * base - 1074) to the nearest double, ties to even, building
// the double's bits: it runs for every row of a transaction's touched
// sessions, where ExactSum's round_magnitude scans 34 limbs and calls ldexp.
double round_window_magnitude(const std::array<std::uint64_t, window_limbs>& mag, int base) {
    int top_limb = window_limbs - 1;
    while (top_limb > 0 && mag[static_cast<std::size_t>(top_limb)] == 0) --top_limb;
    const std::uint64_t high = mag[static_cast<std::size_t>(top_limb)];
    if (high == 0) return 0.0;
    const int lead = std::countl_zero(high);
    const int top = top_limb * 64 + 63 - lead;  // the highest set bit
    const int scale = 64 * base - 1074;         // the worth of the window's bit 0, as a power of two
    if (top < 53) return std::ldexp(static_cast<double>(mag[0]), scale);  // at most 53 bits: exact
    // The 64 bits from `top` down, and whether any bit below them is set.
    std::uint64_t head = high << lead;
    bool rest = false;
    if (top_limb > 0) {
        const std::uint64_t next = mag[static_cast<std::size_t>(top_limb - 1)];
        if (lead != 0) head |= next >> (64 - lead);
        rest = (next << lead) != 0;
        for (int i = 0; i < top_limb - 1 && !rest; ++i) rest = mag[static_cast<std::size_t>(i)] != 0;
    }
    std::uint64_t mantissa = head >> 11;  // 53 bits, the top one set
    const bool round_bit = ((head >> 10) & 1U) != 0;
    const bool sticky = rest || (head & 0x3FFU) != 0;
    int biased = scale + top + 1023;  // the exponent of 2^top, biased; >= 1 since top >= 53
    if (round_bit && (sticky || (mantissa & 1U) != 0)) {
        ++mantissa;
        if (mantissa == std::uint64_t{1} << 53) {  // rounded up to the next power of two
            mantissa >>= 1;
            ++biased;
        }
    }
    if (biased >= 0x7FF) return HUGE_VAL;
    return std::bit_cast<double>(static_cast<std::uint64_t>(biased) << 52 | (mantissa & ((std::uint64_t{1} << 52) - 1)));
}

// The rounding of the signed window (two's complement). A negative window
// is negated as a 256-bit unsigned integer: -2^255 has the magnitude 2^255.
double round_window(std::array<std::uint64_t, window_limbs> limbs, int base) {
    if ((limbs.back() >> 63) == 0) return round_window_magnitude(limbs, base);
    std::uint64_t carry = 1;
    for (auto& limb : limbs) {
        limb = ~limb + carry;
        carry = (carry != 0 && limb == 0) ? 1 : 0;
    }
    return -round_window_magnitude(limbs, base);
}

}  // namespace

CompactSum::CompactSum(const CompactSum& other)
    : limbs_(other.limbs_), base_(other.base_), spill_(other.spill_ ? std::make_unique<ExactSum>(*other.spill_) : nullptr) {}

CompactSum& CompactSum::operator=(const CompactSum& other) {
    if (this == &other) return *this;
    limbs_ = other.limbs_;
    base_ = other.base_;
    if (other.spill_ == nullptr) {
        spill_.reset();
    } else if (spill_ != nullptr) {
        *spill_ = *other.spill_;
    } else {
        spill_ = std::make_unique<ExactSum>(*other.spill_);
    }
    return *this;
}

// The moved-from sum is zero (a spilled base without its spill would be no
// value at all).
CompactSum::CompactSum(CompactSum&& other) noexcept
    : limbs_(other.limbs_), base_(other.base_), spill_(std::move(other.spill_)) {
    other.clear();
}

CompactSum& CompactSum::operator=(CompactSum&& other) noexcept {
    if (this == &other) return *this;
    limbs_ = other.limbs_;
    base_ = other.base_;
    spill_ = std::move(other.spill_);
    other.clear();
    return *this;
}

void CompactSum::clear() {
    limbs_ = {};
    base_ = default_base;
    spill_.reset();
}

bool CompactSum::is_zero() const {
    if (spill_ != nullptr) return spill_->is_zero();  // never: assign() takes a zero back into a window
    for (auto limb : limbs_)
        if (limb != 0) return false;
    return true;
}

double CompactSum::to_double() const {
    if (spill_ != nullptr) return spill_->to_double();
    return round_window(limbs_, base_);
}

void CompactSum::add_to(ExactSum& full, bool negate) const {
    if (spill_ != nullptr) {
        if (negate) {
            full.subtract(*spill_);
        } else {
            full.add(*spill_);
        }
        return;
    }
    full.add_window(limbs_.data(), limbs_.size(), static_cast<std::size_t>(base_), negate);
}

ExactSum CompactSum::to_full() const {
    ExactSum full;
    add_to(full);
    return full;
}

// Puts `full`'s value in a window if one holds it: the limbs from the lowest
// nonzero one (`low`) to the one whose top bit is the sign (`top`, above
// which every limb is the sign extension) must be at most four. The default
// window is kept when it holds the value; else the window goes where the
// value alone puts it (one limb of headroom above `top` where the limbs
// allow), so that sums of one magnitude share a window.
void CompactSum::assign(const ExactSum& full) {
    const auto& limbs = full.limbs();
    const int count = ExactSum::limb_count;
    int low = 0;
    while (low < count && limbs[static_cast<std::size_t>(low)] == 0) ++low;
    if (low == count) {  // zero
        clear();
        return;
    }
    const std::uint64_t extension = sign_extension(limbs.back());
    int high = count - 1;  // the highest limb that is not the extension
    while (high >= 0 && limbs[static_cast<std::size_t>(high)] == extension) --high;
    int top = low;
    if (high >= 0) {
        const bool sign_in_limb = sign_extension(limbs[static_cast<std::size_t>(high)]) == extension;
        top = std::max(low, sign_in_limb ? high : high + 1);
    }
    if (top - low >= window_limbs) {  // no window holds it
        if (spill_ == nullptr) {
            spill_ = std::make_unique<ExactSum>(full);
        } else if (spill_.get() != &full) {
            *spill_ = full;
        }
        base_ = spilled_base;
        return;
    }
    int base = default_base;
    if (low < default_base || top > default_base + window_limbs - 1)
        base = std::min({low, std::max(top - (window_limbs - 2), 0), last_base});
    for (int i = 0; i < window_limbs; ++i) limbs_[static_cast<std::size_t>(i)] = limbs[static_cast<std::size_t>(base + i)];
    base_ = base;
    spill_.reset();  // last: `full` may be *spill_
}

void CompactSum::accumulate_slow(double v, bool negate_value) {
    if (spill_ != nullptr) {
        if (negate_value) {
            spill_->subtract(v);
        } else {
            spill_->add(v);
        }
        assign(*spill_);  // back into a window if it fits one now
        return;
    }
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    const auto biased = static_cast<unsigned>((bits >> 52) & 0x7FFU);
    const unsigned normal = biased != 0 ? 1U : 0U;
    const std::uint64_t mantissa = (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{normal} << 52);
    if (mantissa == 0) return;  // +-0
    const unsigned shift = biased - normal;
    const int rel = static_cast<int>(shift / 64) - base_;
    if (rel >= 0 && rel <= window_limbs - 2) {
        // Inside the window, with a carry past the value's limbs (or its
        // high limb the window's top): the sum in five limbs (the fifth the
        // sign extension), which cannot overflow; it fits the window iff the
        // fifth is still the extension of the fourth.
        std::array<std::uint64_t, window_limbs + 1> wide{};
        for (int i = 0; i < window_limbs; ++i) wide[static_cast<std::size_t>(i)] = limbs_[static_cast<std::size_t>(i)];
        wide[window_limbs] = sign_extension(limbs_.back());
        const bool negative = ((bits >> 63) != 0) != negate_value;
        const auto r = static_cast<std::size_t>(rel);
        const unsigned in_limb = shift % 64;
        std::array<std::uint64_t, 2> word = {mantissa << in_limb, in_limb == 0 ? 0 : mantissa >> (64 - in_limb)};
        std::uint64_t carry = 0;
        for (std::size_t i = r; i < wide.size(); ++i) {
            const std::uint64_t operand = i - r < word.size() ? word[i - r] : 0;
            const std::uint64_t before = wide[i];
            if (negative) {
                const std::uint64_t d = before - operand;
                const std::uint64_t t = d - carry;
                carry = (before < operand || d < carry) ? 1 : 0;
                wide[i] = t;
            } else {
                const std::uint64_t s = before + operand;
                const std::uint64_t t = s + carry;
                carry = (s < before || t < s) ? 1 : 0;
                wide[i] = t;
            }
        }
        if (wide[window_limbs] == sign_extension(wide[window_limbs - 1])) {
            for (int i = 0; i < window_limbs; ++i) limbs_[static_cast<std::size_t>(i)] = wide[static_cast<std::size_t>(i)];
            return;
        }
    }
    ExactSum full = to_full();
    if (negate_value) {
        full.subtract(v);
    } else {
        full.add(v);
    }
    assign(full);
}

void CompactSum::combine_slow(const CompactSum& other, bool negate) {
    ExactSum full = to_full();
    other.add_to(full, negate);  // `other` may be *this: read before assign
    assign(full);
}

double CompactSum::rounded_sum(const CompactSum& a, const CompactSum& b) {
    Window total;
    if (a.base_ == b.base_ && a.base_ != spilled_base && add_windows(a.limbs_, b.limbs_, false, total))
        return round_window(total, a.base_);
    ExactSum full = a.to_full();
    b.add_to(full);
    return full.to_double();
}

}  // namespace sluice::tideweave
