#pragma once
// A statement parameter: NULL, an integer, a float, a bool, text or bytes.
// Parameters are always sent separately from the SQL text (never pasted).
//
// Conversions are implicit so that calls read naturally:
//   conn.execute(stmt, {42, "ann", std::nullopt, Bytes{0x00, 0xff}});
// A std::optional<T> is NULL when empty, else its value.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sluice::postgres {

using Bytes = std::vector<std::uint8_t>;

class Param {
public:
    using Value = std::variant<std::monostate, std::int64_t, double, bool, std::string, Bytes>;

    Param(std::nullptr_t) {}
    Param(std::nullopt_t) {}
    Param(bool v) : value_(v) {}
    Param(int v) : value_(std::int64_t{v}) {}
    Param(long v) : value_(std::int64_t{v}) {}
    Param(long long v) : value_(static_cast<std::int64_t>(v)) {}
    Param(double v) : value_(v) {}
    Param(const char* v) : value_(std::string(v)) {}
    Param(std::string_view v) : value_(std::string(v)) {}
    Param(std::string v) : value_(std::move(v)) {}
    Param(Bytes v) : value_(std::move(v)) {}
    template <class T>
    Param(const std::optional<T>& v) {
        if (v) *this = Param(*v);
    }

    bool is_null() const noexcept { return std::holds_alternative<std::monostate>(value_); }
    const Value& value() const noexcept { return value_; }

private:
    Value value_;
};

}  // namespace sluice::postgres
