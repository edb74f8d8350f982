#pragma once
// Bulk load with COPY ... FROM STDIN (text format): rows are encoded here,
// buffered and sent in large chunks; finish() ends the COPY and returns the
// row count the server reports. Destroying an unfinished CopyIn aborts the
// COPY, so the server keeps none of its rows.
//
//   CopyIn copy = conn.copy_in("copy sessions (id, state) from stdin");
//   copy.row({1, Bytes{...}});
//   copy.finish();
//
// No other statement may run on the connection while a CopyIn is open.
#include <cstdint>
#include <string>
#include <vector>

#include "sluice/postgres/param.hpp"

namespace sluice::postgres {

class Connection;

class CopyIn {
public:
    CopyIn(CopyIn&& other) noexcept;
    CopyIn& operator=(CopyIn&&) = delete;
    ~CopyIn();

    // Appends one row; text containing a NUL byte is Error{usage} (PostgreSQL
    // text cannot hold it). Values are written in their COPY text form:
    // ints in decimal, floats round-trip exact, bools t/f, bytes as \x hex.
    void row(const std::vector<Param>& values);
    // Sends the rows buffered so far (they go in chunks of 256 KiB on their
    // own): a COPY kept open while its writer prepares the next rows lets
    // the server work on these meanwhile.
    void flush();
    // Ends the COPY; returns the number of rows copied.
    std::uint64_t finish();

private:
    friend class Connection;
    explicit CopyIn(Connection& connection) : connection_(&connection) {}

    Connection* connection_;
    std::string buffer_;
    bool done_ = false;
};

// Appends one row of COPY text format (tab-separated, \N for NULL, escapes
// for backslash, tab, newline and carriage return, newline-terminated) to
// `out`. Exposed for tests; CopyIn::row uses it.
void append_copy_row(std::string& out, const std::vector<Param>& values);

}  // namespace sluice::postgres
