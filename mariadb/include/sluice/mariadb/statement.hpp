#pragma once
// Prepared statements (binary protocol).
//
//   Statement stmt = conn.prepare("INSERT INTO t VALUES (?, ?, ?)");
//   stmt.execute(42, "x", std::nullopt);
//   ResultSet rs = conn.prepare("SELECT a FROM t WHERE b > ?").execute(7);
//
// Parameters bind by C++ type: integers (signed as BIGINT, unsigned as
// BIGINT UNSIGNED), bool (0/1), float, double, text (std::string,
// std::string_view, const char*), bytes (std::span<const std::uint8_t>,
// std::vector<std::uint8_t>), Decimal, Date, Time, DateTime, NULL
// (std::nullopt, nullptr) and std::optional of any of them. Text or bytes
// longer than ConnectOptions::long_data_threshold are streamed with
// COM_STMT_SEND_LONG_DATA.
//
// A Statement refers to its Connection and must not outlive it. Destroying
// it closes it on the server (deferred to the next command if a result is
// still being read).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/error.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/values.hpp"

namespace sluice::mariadb {

namespace detail {
struct Session;
struct PoolSlot;
}
class Cursor;
class Pipeline;
class AsyncConnection;
struct BulkRows;
struct BulkOptions;
struct BulkResult;
class Statement;
BulkResult execute_bulk(Statement& stmt, const BulkRows& rows, const BulkOptions& options);  // bulk.hpp

// How one C++ argument is sent. The views it keeps point into the argument,
// which outlives the execute() call that binds it.
namespace bind {
using protocol::ParamValue;
using K = ParamValue::Kind;

inline ParamValue null() { return ParamValue{}; }
inline ParamValue value(std::nullopt_t) { return null(); }
inline ParamValue value(std::nullptr_t) { return null(); }
inline ParamValue value(bool b) {
    ParamValue p;
    p.kind = K::int64;
    p.i = b ? 1 : 0;
    return p;
}
template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char>)
ParamValue value(I v) {
    ParamValue p;
    if constexpr (std::is_signed_v<I>) {
        p.kind = K::int64;
        p.i = v;
    } else {
        p.kind = K::uint64;
        p.u = v;
    }
    return p;
}
inline ParamValue value(float f) {
    ParamValue p;
    p.kind = K::float32;
    p.f = f;
    return p;
}
inline ParamValue value(double d) {
    ParamValue p;
    p.kind = K::float64;
    p.d = d;
    return p;
}
inline ParamValue value(std::string_view s) {
    ParamValue p;
    p.kind = K::text;
    p.bytes = protocol::as_bytes(s);
    return p;
}
inline ParamValue value(const std::string& s) { return value(std::string_view(s)); }
inline ParamValue value(const char* s) { return value(std::string_view(s)); }
inline ParamValue value(std::span<const std::uint8_t> b) {
    ParamValue p;
    p.kind = K::blob;
    p.bytes = b;
    return p;
}
inline ParamValue value(const std::vector<std::uint8_t>& b) { return value(std::span<const std::uint8_t>(b)); }
inline ParamValue value(const Decimal& d) {
    ParamValue p = value(d.text());
    p.kind = K::decimal;
    return p;
}
inline ParamValue value(const Date& d) {
    ParamValue p;
    p.kind = K::date;
    p.datetime = DateTime{d.year, d.month, d.day, 0, 0, 0, 0};
    return p;
}
inline ParamValue value(const DateTime& dt) {
    ParamValue p;
    p.kind = K::datetime;
    p.datetime = dt;
    return p;
}
inline ParamValue value(const Time& t) {
    ParamValue p;
    p.kind = K::time;
    p.time = t;
    return p;
}
template <class T>
ParamValue value(const std::optional<T>& o) {
    return o ? value(*o) : null();
}
}  // namespace bind

class Statement {
public:
    Statement(detail::Session* session, std::uint32_t id, std::vector<Column> params,
              std::vector<Column> columns) noexcept;
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    std::uint32_t id() const noexcept { return id_; }
    std::size_t param_count() const noexcept { return params_.size(); }
    const std::vector<Column>& params() const noexcept { return params_; }
    // Columns as prepared, or as the last execute reported them when the
    // server sent new ones (after an ALTER TABLE, say).
    const std::vector<Column>& columns() const noexcept { return *columns_; }

    // Binds args in order (their count must match the placeholders) and
    // executes. The returned ResultSet streams the rows.
    template <class... Args>
    ResultSet execute(const Args&... args) {
        std::array<protocol::ParamValue, sizeof...(Args)> values{bind::value(args)...};
        return execute_values(values);
    }
    ResultSet execute_values(std::span<const protocol::ParamValue> values);

    // COM_STMT_RESET: drops long data sent so far and any open cursor.
    void reset();
    // COM_STMT_CLOSE; the Statement is unusable afterwards. Idempotent.
    void close();
    bool closed() const noexcept { return session_ == nullptr; }

private:
    // Who else runs commands on a statement, each in its own file: they use
    // its session, its column cache (which a result may update) or forget it
    // after COM_RESET_CONNECTION dropped it on the server. The whole list.
    friend class Cursor;                // src/client/cursor.cpp
    friend class Pipeline;              // src/client/command_pipeline.cpp
    friend class AsyncConnection;       // src/client/async_connection.cpp
    friend struct detail::PoolSlot;     // src/client/pool.cpp (forgets them)
    friend BulkResult execute_bulk(Statement&, const BulkRows&, const BulkOptions&);  // src/client/bulk.cpp
    detail::Session& session() const;  // Error{usage} when closed
    // Forgets the statement without COM_STMT_CLOSE: after COM_RESET_CONNECTION
    // the server already dropped it, and its id may be reused.
    void detach() noexcept { session_ = nullptr; }
    detail::Session* session_;
    std::uint32_t id_;
    std::vector<Column> params_;
    // Shared with the results that use it, so executing with the metadata
    // cache copies nothing, and a result outlives a statement destroyed
    // while its rows are read. Never null.
    std::shared_ptr<std::vector<Column>> columns_;
};

}  // namespace sluice::mariadb
