#pragma once
// Server-side read-only cursors: COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY,
// then COM_STMT_FETCH for `fetch_size` rows at a time.
//
//   Statement scan = conn.prepare("SELECT id, name FROM big WHERE id > ?");
//   Cursor cur = Cursor::open(scan, 512, 0);
//   while (const Row* r = cur.next()) {
//       conn.execute("UPDATE other SET ...");   // fine between rows
//   }
//
// Each batch is read whole into the cursor's buffer before the first of its
// rows is handed out, so the connection is idle while the caller walks a
// batch: other statements (and other cursors) may run in between without
// losing rows. Memory: one batch. A Row is valid until the next next().
//
// The cursor lives on the server until its last row was fetched, close()
// (COM_STMT_RESET), or another execute of the same statement. The Cursor
// refers to its Statement and must not outlive it.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/protocol/rows.hpp"
#include "sluice/mariadb/row.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

class Cursor {
public:
    template <class... Args>
    static Cursor open(Statement& stmt, std::uint32_t fetch_size, const Args&... args) {
        std::array<protocol::ParamValue, sizeof...(Args)> values{bind::value(args)...};
        return open_values(stmt, fetch_size, values);
    }
    static Cursor open_values(Statement& stmt, std::uint32_t fetch_size,
                              std::span<const protocol::ParamValue> values);

    const std::vector<Column>& columns() const noexcept { return columns_; }
    // The next row, fetching a batch when the current one is used up;
    // nullptr after the last row.
    const Row* next();
    // Closes the cursor on the server (COM_STMT_RESET) if rows are left.
    void close();
    // COM_STMT_FETCH round trips so far.
    std::size_t fetches() const noexcept { return fetches_; }

private:
    Cursor(Statement& stmt, std::uint32_t fetch_size) : stmt_(&stmt), fetch_size_(fetch_size) {}
    void fetch();

    Statement* stmt_;
    std::uint32_t fetch_size_;
    std::vector<Column> columns_;
    std::vector<protocol::ColumnType> types_;
    std::vector<protocol::FieldSlice> fields_;
    // The current batch: row packets back to back, offsets_[i] their starts
    // (and one past the last).
    std::vector<std::uint8_t> batch_;
    std::vector<std::size_t> offsets_;
    std::size_t next_row_ = 0;
    bool exhausted_ = false;  // the server sent the last row (or there was no cursor)
    std::size_t fetches_ = 0;
    Row row_;
};

}  // namespace sluice::mariadb
