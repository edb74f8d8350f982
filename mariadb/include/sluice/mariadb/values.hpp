#pragma once
// Value types for the SQL types C++ has no exact equivalent for: Date,
// Time (signed, up to 838 hours), DateTime (also TIMESTAMP) with
// microseconds, and Decimal (exact, text-backed, up to 65 digits, no heap).
// Each parses from and formats to MariaDB's text form, which is also how the
// text protocol carries them.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::mariadb {

// DATE. The zero date 0000-00-00 (and partial zero dates such as
// 2024-00-00) are representable, as MariaDB allows them.
struct Date {
    std::uint16_t year = 0;
    std::uint8_t month = 0;
    std::uint8_t day = 0;
    friend bool operator==(const Date&, const Date&) = default;
};

// TIME: a signed duration, -838:59:59.999999 .. 838:59:59.999999.
struct Time {
    bool negative = false;
    std::uint32_t hours = 0;
    std::uint8_t minutes = 0;
    std::uint8_t seconds = 0;
    std::uint32_t microseconds = 0;
    friend bool operator==(const Time&, const Time&) = default;
};

// DATETIME and TIMESTAMP (as the session time zone shows it).
struct DateTime {
    std::uint16_t year = 0;
    std::uint8_t month = 0;
    std::uint8_t day = 0;
    std::uint8_t hour = 0;
    std::uint8_t minute = 0;
    std::uint8_t second = 0;
    std::uint32_t microsecond = 0;
    friend bool operator==(const DateTime&, const DateTime&) = default;
};

// DECIMAL: kept as its canonical text ("-123.4500"), exactly as the server
// sent it; at most 65 digits. Arithmetic is the caller's business (use a
// decimal library); this type's job is to never lose a digit.
class Decimal {
public:
    static constexpr std::size_t max_digits = 65;

    Decimal() { text_[0] = '0'; size_ = 1; }
    // Accepts [-+]digits[.digits] (or .digits), at most 65 digits in all;
    // std::nullopt otherwise.
    static std::optional<Decimal> parse(std::string_view text) noexcept;
    // Like parse; Error{usage} naming the text when invalid.
    static Decimal from_string(std::string_view text);

    std::string_view text() const noexcept { return {text_.data(), size_}; }
    std::string to_string() const { return std::string(text()); }
    bool negative() const noexcept { return size_ > 0 && text_[0] == '-'; }
    // Digits after the point, and whether any of them is non-zero.
    std::string_view fraction() const noexcept;
    std::string_view integer_digits() const noexcept;
    bool has_fraction() const noexcept;
    // Textual equality (1.50 and 1.5 differ: scale is part of the value).
    friend bool operator==(const Decimal& a, const Decimal& b) noexcept { return a.text() == b.text(); }

private:
    std::array<char, max_digits + 2> text_{};
    std::uint8_t size_ = 0;
};

// Text forms, as MariaDB prints them: "2024-02-29", "-838:59:59.000001",
// "2024-02-29 13:14:15.123456". Microseconds are printed only when non-zero
// unless `fraction_digits` says how many to print (a column's scale).
std::string to_string(const Date& d);
std::string to_string(const Time& t, int fraction_digits = -1);
std::string to_string(const DateTime& dt, int fraction_digits = -1);

// Parsers of the text forms above (the fraction may have 0-6 digits);
// std::nullopt when the text is not one.
std::optional<Date> parse_date(std::string_view text) noexcept;
std::optional<Time> parse_time(std::string_view text) noexcept;
std::optional<DateTime> parse_datetime(std::string_view text) noexcept;

}  // namespace sluice::mariadb
