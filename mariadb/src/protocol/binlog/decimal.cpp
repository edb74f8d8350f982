// DECIMAL's binary row format: the integer and fraction digits in groups
// of 9 per 4 bytes (a shorter leading/trailing group for the rest),
// big-endian, the sign in the top bit (set for positive), every byte of a
// negative value inverted. Decoded straight to text, so 65 digits never
// pass through a binary number.
#include <array>
#include <string>

#include "detail.hpp"

namespace sluice::mariadb::binlog::detail {

namespace {

constexpr std::size_t digits_per_group = 9;
constexpr std::array<std::uint8_t, 10> bytes_for_digits = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
constexpr std::array<std::uint32_t, 10> powers_of_ten = {1,      10,      100,      1000,      10000,
                                                         100000, 1000000, 10000000, 100000000, 1000000000};

}  // namespace

std::size_t decimal_binary_size(std::uint8_t precision, std::uint8_t scale) noexcept {
    std::size_t intg = precision >= scale ? std::size_t{precision} - scale : 0;
    std::size_t frac = scale;
    return intg / digits_per_group * 4 + bytes_for_digits[intg % digits_per_group] + frac / digits_per_group * 4 +
           bytes_for_digits[frac % digits_per_group];
}

namespace {

// `digits` decimal digits of v, leading zeros kept.
char* put_fixed(char* p, std::uint32_t v, std::size_t digits) noexcept {
    for (std::size_t i = digits; i > 0; --i) {
        p[i - 1] = static_cast<char>('0' + v % 10);
        v /= 10;
    }
    return p + digits;
}

// v's digits without leading zeros (v > 0).
char* put_unpadded(char* p, std::uint32_t v) noexcept {
    char tmp[10];
    std::size_t n = 0;
    for (; v; v /= 10) tmp[n++] = static_cast<char>('0' + v % 10);
    while (n) *p++ = tmp[--n];
    return p;
}

}  // namespace

Decimal decode_decimal(Bytes bytes, std::uint8_t precision, std::uint8_t scale, Reader& r,
                       std::string_view field) {
    const std::size_t intg = std::size_t{precision} - scale;  // scale <= precision: checked by the table map
    const bool negative = (bytes[0] & 0x80) == 0;
    const std::uint8_t mask = negative ? 0xFF : 0x00;
    std::size_t pos = 0;
    // Reads one group of `digits` digits (its byte count from the table).
    auto group = [&](std::size_t digits) -> std::uint32_t {
        std::size_t n = bytes_for_digits[digits];
        std::uint32_t v = 0;
        for (std::size_t i = 0; i < n; ++i) {
            std::uint8_t b = bytes[pos + i];
            if (pos + i == 0) b ^= 0x80;
            v = (v << 8) | static_cast<std::uint8_t>(b ^ mask);
        }
        pos += n;
        // Sign-extend nothing: the groups are unsigned after the flip.
        if (v >= powers_of_ten[digits])
            r.fail(field, "DECIMAL digit group " + std::to_string(v) + " has more than " + std::to_string(digits) +
                              " digits");
        return v;
    };
    // text: sign, integer digits without leading zeros, point, scale digits.
    char buf[Decimal::max_digits + 3];
    char* p = buf;
    if (negative) *p++ = '-';
    char* const int_start = p;
    bool any_digit = false;  // a non-zero digit anywhere
    // The integer groups: the first non-zero one without its leading zeros,
    // every later one with all its digits.
    auto put_integer_group = [&](std::uint32_t v, std::size_t digits) {
        if (any_digit) p = put_fixed(p, v, digits);
        else if (v != 0) p = put_unpadded(p, v);
        any_digit |= v != 0;
    };
    const std::size_t lead = intg % digits_per_group;
    if (lead) put_integer_group(group(lead), lead);
    for (std::size_t g = 0; g < intg / digits_per_group; ++g) put_integer_group(group(digits_per_group), digits_per_group);
    if (p == int_start) *p++ = '0';
    if (scale) {
        *p++ = '.';
        for (std::size_t g = 0; g < scale / digits_per_group; ++g) {
            const std::uint32_t v = group(digits_per_group);
            any_digit |= v != 0;
            p = put_fixed(p, v, digits_per_group);
        }
        if (const std::size_t tail = scale % digits_per_group) {
            const std::uint32_t v = group(tail);
            any_digit |= v != 0;
            p = put_fixed(p, v, tail);
        }
    }
    std::string_view text(buf, static_cast<std::size_t>(p - buf));
    // A negative zero (all digits 0 with the sign clear) prints as zero.
    if (negative && !any_digit) text.remove_prefix(1);
    auto d = Decimal::parse(text);
    if (!d) r.fail(field, "DECIMAL text '" + std::string(text) + "' is not a decimal");
    return *d;
}

}  // namespace sluice::mariadb::binlog::detail
