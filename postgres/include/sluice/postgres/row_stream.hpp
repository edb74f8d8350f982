#pragma once
// The rows of one executed statement, pulled one at a time as they arrive
// (libpq single-row mode): memory stays bounded for any result size, and
// the caller's loop keeps its own control flow (break, return), which
// Connection::stream()'s callback cannot give a C caller.
//
//   RowStream rows = conn.open_stream(statement, {min_id});
//   while (const Row* r = rows.next()) use(r->get<std::int64_t>(0));
//
// LIFETIME: the Row next() returns, and every std::string_view read from it,
// is valid until the next call to next() or close(), or the stream's end.
// The stream must not outlive its Connection. While it is open no other
// statement may run on that connection (Error{usage}); the stream ends when
// next() returns nullptr or throws, or at close().
#include <cstdint>
#include <memory>

#include "sluice/postgres/result.hpp"

namespace sluice::postgres {

class Connection;

class RowStream {
public:
    RowStream(RowStream&&) noexcept;
    RowStream& operator=(RowStream&&) noexcept;
    // Closes the stream (reading what is left) if it is still open.
    ~RowStream();

    // The next row, or nullptr after the last one. A failure of the
    // statement (also midway) is thrown as Error with the server's SQLSTATE,
    // after the rest of the result was read: the connection stays usable.
    const Row* next();
    // Ends the stream early. With `cancel` the server is asked to stop
    // sending (use it only outside a transaction block: the cancelled
    // statement's error aborts the transaction); otherwise the remaining
    // rows are read and dropped. Either way the connection is then usable.
    void close(bool cancel = false) noexcept;
    bool open() const noexcept;
    // Rows returned so far.
    std::uint64_t rows() const noexcept;

private:
    friend class Connection;
    struct State;
    explicit RowStream(std::unique_ptr<State> state);

    std::unique_ptr<State> state_;
};

}  // namespace sluice::postgres
