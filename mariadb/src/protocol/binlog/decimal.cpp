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

Decimal decode_decimal(Bytes bytes, std::uint8_t precision, std::uint8_t scale, Reader& r,
                       std::string_view field) {
    (void)precision;
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
    std::size_t len = 0;
    if (negative) buf[len++] = '-';
    std::size_t int_start = len;
    auto put = [&](std::uint32_t v, std::size_t digits, bool strip) {
        char tmp[9];
        for (std::size_t i = digits; i > 0; --i) {
            tmp[i - 1] = static_cast<char>('0' + v % 10);
            v /= 10;
        }
        for (std::size_t i = 0; i < digits; ++i) {
            if (strip && len == int_start && tmp[i] == '0') continue;
            buf[len++] = tmp[i];
        }
    };
    std::size_t lead = intg % digits_per_group;
    if (lead) put(group(lead), lead, true);
    for (std::size_t g = 0; g < intg / digits_per_group; ++g) put(group(digits_per_group), digits_per_group, true);
    if (len == int_start) buf[len++] = '0';
    bool any_digit = false;
    for (std::size_t i = int_start; i < len; ++i) any_digit |= buf[i] != '0';
    if (scale) {
        buf[len++] = '.';
        std::size_t frac_start = len;
        for (std::size_t g = 0; g < scale / digits_per_group; ++g) put(group(digits_per_group), digits_per_group, false);
        std::size_t tail = scale % digits_per_group;
        if (tail) put(group(tail), tail, false);
        for (std::size_t i = frac_start; i < len; ++i) any_digit |= buf[i] != '0';
    }
    std::string_view text(buf, len);
    // A negative zero (all digits 0 with the sign clear) prints as zero.
    if (negative && !any_digit) text.remove_prefix(1);
    auto d = Decimal::parse(text);
    if (!d) r.fail(field, "DECIMAL text '" + std::string(text) + "' is not a decimal");
    return *d;
}

}  // namespace sluice::mariadb::binlog::detail
