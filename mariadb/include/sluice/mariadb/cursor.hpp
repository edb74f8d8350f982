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
// rows is handed out. When a batch ends and the server says more rows are
// left, the next COM_STMT_FETCH is sent at once (pipelined), so the server
// prepares batch N+1 while the caller walks batch N. Another command on the
// connection first reads that reply into the cursor's second buffer: other
// statements (and other cursors) may run between rows without losing any.
// A fetch is only ever sent for a cursor the server reported open, so no
// fetch is wasted at the end. Memory: two batches. A Row is valid until the
// next next().
//
// The cursor lives on the server until its last row was fetched, close()
// (COM_STMT_RESET), or another execute of the same statement. The Cursor
// refers to its Statement and Connection and must not outlive them.
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sluice/mariadb/column.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
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

    Cursor(Cursor&&) noexcept;
    Cursor& operator=(Cursor&&) noexcept;
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    // No I/O: a fetch still in flight is discarded by the connection's next
    // command; the server cursor stays until then (close() ends it now).
    ~Cursor();

    const std::vector<Column>& columns() const noexcept;
    // The next row, fetching a batch when the current one is used up;
    // nullptr after the last row. A server error of a fetch (for instance
    // the cursor closed by another execute of its statement) is thrown here,
    // when the caller reaches that batch, even if the reply was read
    // earlier by an interleaved command.
    const Row* next();
    // Reads a fetch still in flight, then closes the cursor on the server
    // (COM_STMT_RESET) if rows are left. Later next() calls return nullptr.
    void close();
    // COM_STMT_FETCH commands sent so far.
    std::size_t fetches() const noexcept;

    struct State;  // cursor.cpp

private:
    explicit Cursor(std::unique_ptr<State> state) noexcept;
    // Stable address: the connection's pending-reply hook points at it.
    std::unique_ptr<State> state_;
};

}  // namespace sluice::mariadb
