#pragma once
// Streaming results of query() and Statement::execute().
//
// Rows are read from the socket one at a time as next() is called: a result
// of any size runs in the memory of its largest row. A command may return
// several results (multi-statements, stored procedures): next() walks the
// rows of the current one, next_result() moves on. Issuing another command
// on the connection while rows are unread first discards them (they still
// cross the network); a ResultSet used after that throws Error{usage}.
//
// A ResultSet refers to its Connection and must not outlive it.
#include <cstdint>
#include <string>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/row.hpp"

namespace sluice::mariadb {

namespace detail {
struct Session;
}

// The OK details of a statement (or of a result set's end).
struct OkInfo {
    std::uint64_t affected_rows = 0;
    std::uint64_t last_insert_id = 0;
    std::uint16_t warnings = 0;
    std::uint16_t status_flags = 0;
    std::string info;
};

class ResultSet {
public:
    ResultSet(detail::Session* session, std::uint64_t generation) noexcept
        : session_(session), generation_(generation) {}

    // Columns of the current result (empty for a statement without rows).
    const std::vector<Column>& columns() const;
    bool has_rows() const { return !columns().empty(); }

    // The next row of the current result, or nullptr at its end. The row is
    // invalidated by the next call (see row.hpp).
    const Row* next();
    // Discards the rest of the current result and moves to the next one;
    // false when there is none. A failing statement of a multi-statement
    // throws its Error{server} here.
    bool next_result();
    // Affected rows, insert id, warnings, status, info of the current
    // result; for a result with rows, filled once next() returned nullptr.
    const OkInfo& ok() const;
    // Reads and discards everything left, every result included.
    void discard();

    struct Sentinel {};
    class Iterator {
    public:
        explicit Iterator(ResultSet* rs) : rs_(rs), row_(rs ? rs->next() : nullptr) {}
        const Row& operator*() const { return *row_; }
        const Row* operator->() const { return row_; }
        Iterator& operator++() {
            row_ = rs_->next();
            return *this;
        }
        bool operator==(Sentinel) const noexcept { return row_ == nullptr; }

    private:
        ResultSet* rs_;
        const Row* row_;
    };
    // `for (const Row& row : rs)` walks the current result.
    Iterator begin() { return Iterator(this); }
    Sentinel end() const noexcept { return {}; }

private:
    detail::Session& session() const;
    detail::Session* session_;
    std::uint64_t generation_;
};

}  // namespace sluice::mariadb
