#pragma once
// Results and rows of the PostgreSQL layer.
//
// LIFETIME: a Result owns its data; a Row, and every std::string_view read
// from it, is valid while the Result it came from lives. Rows handed to a
// Connection::stream() callback are valid only during that call. Copy what
// you keep (get<std::string>, get<Bytes> return owning values).
//
// Typed reading: get<T>(column) converts a field to T and fails with
// Error{conversion} naming the column when the value's type does not match
// T: int2/int4/int8 read as std::int64_t; float4/float8 as double; bool as
// bool; text, varchar, char(n), name, "char", json, unknown as std::string
// or std::string_view; bytea as Bytes. Text-format results also read any
// other type as std::string (its text). NULL is readable only as
// std::optional<T> (std::nullopt); NULL into a plain T is Error{conversion}.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/postgres/error.hpp"
#include "sluice/postgres/param.hpp"

struct pg_result;  // libpq's PGresult (libpq-fe.h), opaque here

namespace sluice::postgres {

using Oid = std::uint32_t;

// Well-known type OIDs (pg_type.oid), for Column::type and prepare().
namespace type_oid {
inline constexpr Oid boolean = 16;
inline constexpr Oid bytea = 17;
inline constexpr Oid char_ = 18;
inline constexpr Oid name = 19;
inline constexpr Oid int8 = 20;
inline constexpr Oid int2 = 21;
inline constexpr Oid int4 = 23;
inline constexpr Oid text = 25;
inline constexpr Oid json = 114;
inline constexpr Oid float4 = 700;
inline constexpr Oid float8 = 701;
inline constexpr Oid unknown = 705;
inline constexpr Oid bpchar = 1042;
inline constexpr Oid varchar = 1043;
inline constexpr Oid numeric = 1700;
}  // namespace type_oid

// The name of a well-known type ("int8", "text", ...), else "oid N".
std::string type_name(Oid type);

// How result values travel: binary (no text round trip; only the types
// above are readable) or text (every type readable as std::string).
enum class Format { text = 0, binary = 1 };

struct Column {
    std::string name;
    Oid type = 0;
    Oid table = 0;         // the table the column comes from, 0 for an expression
    int table_column = 0;  // its attribute number in that table, 0 for an expression
};

class Result;
class RowStream;

class Row {
public:
    // Inline (below Result): a typed read checks its column every time.
    int size() const noexcept;
    const Column& column(int index) const;
    bool is_null(int column) const;

    template <class T>
    T get(int column) const;
    // The field's bytes exactly as received, in the result's format, with no
    // conversion (nullopt for NULL): for a binary bytea or text field, the
    // bytes themselves, in place.
    std::optional<std::string_view> raw(int column) const;

private:
    friend class Result;
    Row(const Result* result, int index) : result_(result), index_(index) {}

    std::optional<std::int64_t> read_int(int column) const;
    std::optional<double> read_float(int column) const;
    std::optional<bool> read_bool(int column) const;
    std::optional<std::string_view> read_text(int column) const;
    std::optional<Bytes> read_bytes(int column) const;
    [[noreturn]] void throw_null(int column) const;
    [[noreturn]] void throw_no_column(int column) const;

    const Result* result_;
    int index_;
};

class Result {
public:
    Result(Result&&) noexcept;
    Result& operator=(Result&&) noexcept;
    ~Result();

    int size() const noexcept;  // number of rows
    bool empty() const noexcept { return size() == 0; }
    Row row(int index) const;
    const std::vector<Column>& columns() const noexcept { return *columns_; }
    Format format() const noexcept { return format_; }
    // Rows affected by INSERT/UPDATE/DELETE/COPY (also SELECT's row count).
    std::uint64_t affected_rows() const;
    // The command tag ("INSERT 0 3", "COMMIT", "ROLLBACK", ...).
    std::string command_tag() const;

    class iterator {
    public:
        Row operator*() const { return result_->row(index_); }
        iterator& operator++() {
            ++index_;
            return *this;
        }
        bool operator==(const iterator& o) const { return index_ == o.index_; }

    private:
        friend class Result;
        iterator(const Result* r, int i) : result_(r), index_(i) {}
        const Result* result_;
        int index_;
    };
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, size()}; }

private:
    friend class Connection;
    friend class Row;
    friend class RowStream;
    // Takes ownership of `result` (PQclear at the end). `columns` are the
    // statement's described ones when they are the result's, else null (then
    // read from the result). Held in the object itself: a result costs no
    // allocation beyond libpq's own.
    Result(pg_result* result, std::shared_ptr<const std::vector<Column>> columns, Format format);

    pg_result* result_ = nullptr;
    std::shared_ptr<const std::vector<Column>> columns_;
    Format format_;
};

inline int Row::size() const noexcept { return static_cast<int>(result_->columns_->size()); }

inline const Column& Row::column(int index) const {
    if (index < 0 || index >= size()) [[unlikely]]
        throw_no_column(index);
    return (*result_->columns_)[static_cast<std::size_t>(index)];
}

namespace detail {
template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

template <class T>
T Row::get(int column) const {
    if constexpr (detail::is_optional<T>::value) {
        using V = typename T::value_type;
        if constexpr (std::is_same_v<V, std::int64_t>) return read_int(column);
        else if constexpr (std::is_same_v<V, double>) return read_float(column);
        else if constexpr (std::is_same_v<V, bool>) return read_bool(column);
        else if constexpr (std::is_same_v<V, std::string_view>) return read_text(column);
        else if constexpr (std::is_same_v<V, std::string>) {
            auto v = read_text(column);
            return v ? std::optional<std::string>(std::string(*v)) : std::nullopt;
        } else if constexpr (std::is_same_v<V, Bytes>) return read_bytes(column);
        else static_assert(sizeof(V) == 0, "Row::get: unsupported type");
    } else {
        auto v = get<std::optional<T>>(column);
        if (!v) throw_null(column);
        return std::move(*v);
    }
}

}  // namespace sluice::postgres
