#pragma once
// Rows and fields: views into the connection's receive buffer.
//
// LIFETIME: a Row (and every Field, string_view and span read from it) is
// valid only until the next call that reads from the same connection:
// ResultSet::next(), next_result(), or any new command. Copy what you keep
// (get<std::string>, get<Decimal>, ... return owning values).
//
// Typed reading: get<T>() converts a field to T, and fails with
// Error{conversion} when the value does not fit T exactly: never a silent
// wrap, truncation or rounding (BIGINT UNSIGNED 2^64-1 into int64_t, 300
// into int8_t, 1.5 into an integer, a DOUBLE that is not a float, ...).
// NULL is readable only as std::optional<T> (std::nullopt); reading NULL
// into a plain T is Error{conversion}. Values of the text protocol are
// parsed from their text, so the same getters work on query() results.
//
// Supported T (and std::optional of each): bool; int8_t .. int64_t;
// uint8_t .. uint64_t; float; double; std::string_view and
// std::span<const std::uint8_t> (views, no copy); std::string; Decimal;
// Date; Time; DateTime. See docs/mariadb.md for the full matrix.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/values.hpp"

namespace sluice::mariadb {

namespace detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
inline constexpr bool is_readable_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint8_t> ||
    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::string_view> ||
    std::is_same_v<T, std::string> || std::is_same_v<T, std::span<const std::uint8_t>> ||
    std::is_same_v<T, Decimal> || std::is_same_v<T, Date> || std::is_same_v<T, Time> ||
    std::is_same_v<T, DateTime>;
}  // namespace detail

class Field {
public:
    Field(const Column& column, protocol::FieldSlice slice, bool binary_protocol) noexcept
        : column_(&column), slice_(slice), binary_(binary_protocol) {}

    bool is_null() const noexcept { return slice_.null; }
    const Column& column() const noexcept { return *column_; }
    // The value's bytes as the server sent them (text, or the binary
    // encoding for prepared statements; binary temporals without their
    // length byte).
    std::span<const std::uint8_t> raw() const noexcept { return slice_.bytes; }
    bool binary_protocol() const noexcept { return binary_; }

    template <class T>
    T get() const {
        if constexpr (detail::is_optional<T>::value) {
            if (is_null()) return std::nullopt;
            return get<typename T::value_type>();
        } else {
            static_assert(detail::is_readable_v<T>, "unsupported type for Field::get<T>() (see row.hpp)");
            if (is_null()) throw_null(type_name<T>());
            return read<T>();
        }
    }

    // The value as text, formatted like the server's text protocol (NULL is
    // "NULL" here; check is_null() first when that matters).
    std::string to_string() const;

private:
    template <class T>
    T read() const;
    template <class T>
    static constexpr std::string_view type_name() noexcept {
        if constexpr (std::is_same_v<T, bool>) return "bool";
        else if constexpr (std::is_same_v<T, std::int8_t>) return "int8_t";
        else if constexpr (std::is_same_v<T, std::int16_t>) return "int16_t";
        else if constexpr (std::is_same_v<T, std::int32_t>) return "int32_t";
        else if constexpr (std::is_same_v<T, std::int64_t>) return "int64_t";
        else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8_t";
        else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16_t";
        else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32_t";
        else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64_t";
        else if constexpr (std::is_same_v<T, float>) return "float";
        else if constexpr (std::is_same_v<T, double>) return "double";
        else if constexpr (std::is_same_v<T, std::string_view>) return "std::string_view";
        else if constexpr (std::is_same_v<T, std::string>) return "std::string";
        else if constexpr (std::is_same_v<T, std::span<const std::uint8_t>>) return "std::span<const uint8_t>";
        else if constexpr (std::is_same_v<T, Decimal>) return "Decimal";
        else if constexpr (std::is_same_v<T, Date>) return "Date";
        else if constexpr (std::is_same_v<T, Time>) return "Time";
        else return "DateTime";
    }
    [[noreturn]] void throw_null(std::string_view cpp_type) const;

    const Column* column_;
    protocol::FieldSlice slice_;
    bool binary_;
};

// The conversions, defined in field.cpp (declared here so that every use
// sees the specialization).
#define SLUICE_MARIADB_FIELD_READ(T) \
    template <>                     \
    T Field::read<T>() const;
SLUICE_MARIADB_FIELD_READ(bool)
SLUICE_MARIADB_FIELD_READ(std::int8_t)
SLUICE_MARIADB_FIELD_READ(std::int16_t)
SLUICE_MARIADB_FIELD_READ(std::int32_t)
SLUICE_MARIADB_FIELD_READ(std::int64_t)
SLUICE_MARIADB_FIELD_READ(std::uint8_t)
SLUICE_MARIADB_FIELD_READ(std::uint16_t)
SLUICE_MARIADB_FIELD_READ(std::uint32_t)
SLUICE_MARIADB_FIELD_READ(std::uint64_t)
SLUICE_MARIADB_FIELD_READ(float)
SLUICE_MARIADB_FIELD_READ(double)
SLUICE_MARIADB_FIELD_READ(std::string_view)
SLUICE_MARIADB_FIELD_READ(std::string)
SLUICE_MARIADB_FIELD_READ(std::span<const std::uint8_t>)
SLUICE_MARIADB_FIELD_READ(Decimal)
SLUICE_MARIADB_FIELD_READ(Date)
SLUICE_MARIADB_FIELD_READ(Time)
SLUICE_MARIADB_FIELD_READ(DateTime)
#undef SLUICE_MARIADB_FIELD_READ

class Row {
public:
    Row() = default;
    Row(const std::vector<Column>* columns, std::span<const protocol::FieldSlice> fields, bool binary) noexcept
        : columns_(columns), fields_(fields), binary_(binary) {}

    std::size_t size() const noexcept { return fields_.size(); }
    // Error{usage} when out of range / no such column.
    Field operator[](std::size_t index) const;
    Field operator[](std::string_view name) const { return (*this)[index_of(name)]; }
    std::size_t index_of(std::string_view name) const;
    const std::vector<Column>& columns() const noexcept { return *columns_; }

    template <class T>
    T get(std::size_t index) const {
        return (*this)[index].template get<T>();
    }
    template <class T>
    T get(std::string_view name) const {
        return (*this)[name].template get<T>();
    }

private:
    const std::vector<Column>* columns_ = nullptr;
    std::span<const protocol::FieldSlice> fields_;
    bool binary_ = false;
};

}  // namespace sluice::mariadb
