#pragma once
// The one exception type of the PostgreSQL layer. Every failure says what
// kind of thing went wrong; server errors carry the server's SQLSTATE, its
// primary message, and the DETAIL / HINT / position it sent. It is a
// sluice::common::Error: part() "postgres", and transient() says which
// failures a caller may retry (a lost connection, a server shutting down,
// a serialization failure or deadlock, too many connections).
#include <string>
#include <string_view>

#include "sluice/common/error.hpp"

namespace sluice::postgres {

enum class ErrorKind {
    connection,  // connecting failed, or the connection was lost
    server,      // the server reported an error: see sqlstate()
    usage,       // the caller asked for something invalid (bad index, wrong parameter count, ...)
    conversion,  // a value does not fit the requested C++ type, or NULL read into a non-optional
};

std::string_view to_string(ErrorKind kind) noexcept;

// What the server said about a failed statement (all fields may be empty
// except sqlstate and message).
struct ServerDiagnostics {
    std::string sqlstate;  // e.g. "22012"
    std::string message;   // the primary message
    std::string detail;
    std::string hint;
    std::string context;   // where in server-side code (PL/pgSQL lines, SQL function calls)
    int position = 0;      // 1-based character offset into the statement, 0 when none
};

class Error : public common::Error {
public:
    Error(ErrorKind kind, const std::string& message) : common::Error(message), kind_(kind) {}
    // A server error; what() is "message [SQLSTATE] (DETAIL; HINT)".
    explicit Error(ServerDiagnostics diagnostics);

    ErrorKind kind() const noexcept { return kind_; }
    // Empty unless kind() is server.
    const std::string& sqlstate() const noexcept { return server_.sqlstate; }
    // The server's primary message alone (what() for other kinds).
    const std::string& server_message() const noexcept { return server_.message; }
    const ServerDiagnostics& diagnostics() const noexcept { return server_; }

    std::string_view part() const noexcept override { return "postgres"; }
    std::string_view kind_name() const noexcept override { return to_string(kind_); }
    // A connection failure; of the server's errors, SQLSTATE class 08
    // (connection exception), 57P01-57P03 (admin or crash shutdown, cannot
    // connect now), 40001 (serialization failure), 40P01 (deadlock) and
    // 53300 (too many connections).
    bool transient() const noexcept override;
    // what(): a server error's text already names its SQLSTATE, DETAIL and
    // HINT, and the other kinds' messages say what failed.
    std::string describe() const override { return what(); }

private:
    ErrorKind kind_;
    ServerDiagnostics server_;
};

}  // namespace sluice::postgres
