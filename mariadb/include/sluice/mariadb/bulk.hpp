#pragma once
// Native bulk execution: many rows of parameters for one prepared statement
// in one COM_STMT_BULK_EXECUTE packet (MariaDB's STMT_BULK_OPERATIONS),
// split into as many packets as the packet limit requires.
//
//   Statement ins = conn.prepare("INSERT INTO t (id, name, note) VALUES (?, ?, ?)");
//   std::vector<std::tuple<int, std::string, std::optional<std::string>>> rows = ...;
//   BulkResult r = execute_bulk(ins, rows);                     // row-wise
//   BulkResult c = execute_bulk_columns(ins, bulk::column(ids), // column-wise
//                                       bulk::column(names), bulk::column(notes, note_indicators));
//
// Cells bind like Statement::execute's arguments, plus indicators: a cell
// may be bulk::Indicator::null, default_ (the column's DEFAULT) or ignore
// (DEFAULT for INSERT; UPDATE leaves the column as it is), either as a bare
// Indicator or as a bulk::Cell<T> carrying a value or an indicator. For the
// column-wise form an indicator span, when given, overrides the values.
//
// Results. MariaDB 10.11 answers each bulk packet with one OK: BulkResult
// sums affected rows and warnings over the packets and keeps the first
// packet's generated id (LAST_INSERT_ID of its first inserted row). Per-row
// ids and counts need the BULK_UNIT_RESULTS capability (MariaDB 11.5+),
// which this client does not request; with innodb_autoinc_lock_mode 0 or 1
// the ids of one packet's rows are consecutive, with 2 (interleaved) they
// need not be.
//
// Fallback. A server without STMT_BULK_OPERATIONS (MySQL, old MariaDB) gets
// one COM_STMT_EXECUTE per row (BulkResult::native is false, commands counts
// them). DEFAULT and IGNORE cannot be expressed there: such a row throws
// Error{usage} before it is sent, never a silently different statement.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/bulk.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

namespace bulk {
using protocol::BulkParam;
using protocol::Indicator;

// A value or an indicator in one cell.
template <class T>
struct Cell {
    std::optional<T> value;  // used when indicator is none; nullopt = NULL
    Indicator indicator = Indicator::none;
};
template <class T>
Cell<T> cell(T value) {
    return Cell<T>{std::move(value), Indicator::none};
}

inline BulkParam param(Indicator indicator) {
    BulkParam p;
    p.indicator = indicator;
    return p;
}
template <class T>
BulkParam param(const Cell<T>& c) {
    if (c.indicator != Indicator::none) return param(c.indicator);
    BulkParam p;
    p.value = bind::value(c.value);
    return p;
}
template <class T>
BulkParam param(const T& v) {
    BulkParam p;
    p.value = bind::value(v);
    return p;
}

// One column of the column-wise form: values, and optionally one indicator
// per row (Indicator::none takes the value).
template <class T>
struct ColumnData {
    std::span<const T> values;
    std::span<const Indicator> indicators;

    BulkParam at(std::size_t row) const {
        if (!indicators.empty() && indicators[row] != Indicator::none) return param(indicators[row]);
        return param(values[row]);
    }
};
template <class T>
ColumnData<T> column(std::span<const T> values, std::span<const Indicator> indicators = {}) {
    return {values, indicators};
}
template <class T>
ColumnData<T> column(const std::vector<T>& values, std::span<const Indicator> indicators = {}) {
    return {std::span<const T>(values), indicators};
}
}  // namespace bulk

struct BulkOptions {
    enum class Mode {
        automatic,   // native when the server offers it, else sequential
        native,      // COM_STMT_BULK_EXECUTE or Error{usage}
        sequential,  // one COM_STMT_EXECUTE per row (the fallback)
    };
    Mode mode = Mode::automatic;
    // Largest bulk packet; 0 = @@max_allowed_packet (read once per
    // connection), capped at 16 MiB - 1 so a packet is one wire frame and
    // memory stays bounded. A single row larger than this is Error{usage}.
    std::size_t max_packet_bytes = 0;
};

struct BulkResult {
    std::uint64_t rows = 0;             // rows sent
    std::uint64_t affected_rows = 0;    // summed over the packets
    std::uint64_t first_insert_id = 0;  // first generated id (0: none)
    std::uint64_t warnings = 0;         // summed over the packets
    std::size_t commands = 0;           // bulk packets, or executes when sequential
    bool native = false;
};

// The type-erased core: fill(ctx, row, out) writes row `row`'s parameters
// into out (out.size() == the statement's parameter count).
struct BulkRows {
    std::size_t count = 0;
    void (*fill)(const void* ctx, std::size_t row, std::span<protocol::BulkParam> out) = nullptr;
    const void* ctx = nullptr;
};
BulkResult execute_bulk(Statement& stmt, const BulkRows& rows, const BulkOptions& options = {});

// Row-wise: a random-access range of tuples (std::tuple, std::pair,
// std::array) with one element per placeholder.
template <std::ranges::random_access_range Rows>
    requires requires { std::tuple_size<std::ranges::range_value_t<Rows>>::value; }
BulkResult execute_bulk(Statement& stmt, const Rows& rows, const BulkOptions& options = {}) {
    using Tuple = std::ranges::range_value_t<Rows>;
    constexpr std::size_t width = std::tuple_size_v<Tuple>;
    if (width != stmt.param_count()) {
        throw Error(ErrorKind::usage, "bulk rows have " + std::to_string(width) + " values, the statement has " +
                                          std::to_string(stmt.param_count()) + " parameters");
    }
    BulkRows erased;
    erased.count = static_cast<std::size_t>(std::ranges::size(rows));
    erased.ctx = &rows;
    erased.fill = [](const void* ctx, std::size_t i, std::span<protocol::BulkParam> out) {
        const Rows& r = *static_cast<const Rows*>(ctx);
        const auto& row = std::ranges::begin(r)[static_cast<std::ranges::range_difference_t<Rows>>(i)];
        std::apply(
            [&](const auto&... v) {
                std::size_t k = 0;
                ((out[k++] = bulk::param(v)), ...);
            },
            row);
    };
    return execute_bulk(stmt, erased, options);
}

// Column-wise: one bulk::ColumnData per placeholder, all of the same length.
template <class... Ts>
BulkResult execute_bulk_columns(Statement& stmt, const BulkOptions& options, const bulk::ColumnData<Ts>&... columns) {
    if (sizeof...(Ts) != stmt.param_count()) {
        throw Error(ErrorKind::usage, "bulk has " + std::to_string(sizeof...(Ts)) + " columns, the statement has " +
                                          std::to_string(stmt.param_count()) + " parameters");
    }
    std::size_t count = 0;
    std::size_t index = 0;
    auto check = [&](std::size_t values, std::size_t indicators) {
        if (index == 0) count = values;
        if (values != count || (indicators != 0 && indicators != count)) {
            throw Error(ErrorKind::usage, "bulk column " + std::to_string(index) + " has " + std::to_string(values) +
                                              " values and " + std::to_string(indicators) +
                                              " indicators, expected " + std::to_string(count));
        }
        ++index;
    };
    (check(columns.values.size(), columns.indicators.size()), ...);
    auto refs = std::make_tuple(&columns...);
    BulkRows erased;
    erased.count = count;
    erased.ctx = &refs;
    erased.fill = [](const void* ctx, std::size_t i, std::span<protocol::BulkParam> out) {
        const auto& cols = *static_cast<const decltype(refs)*>(ctx);
        std::apply(
            [&](const auto*... c) {
                std::size_t k = 0;
                ((out[k++] = c->at(i)), ...);
            },
            cols);
    };
    return execute_bulk(stmt, erased, options);
}
template <class... Ts>
BulkResult execute_bulk_columns(Statement& stmt, const bulk::ColumnData<Ts>&... columns) {
    return execute_bulk_columns(stmt, BulkOptions{}, columns...);
}

}  // namespace sluice::mariadb
