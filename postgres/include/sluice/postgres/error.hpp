#pragma once
// The one exception type of the PostgreSQL layer. Every failure says what
// kind of thing went wrong; server errors carry the server's SQLSTATE, its
// primary message, and the DETAIL / HINT / position it sent.
#include <stdexcept>
#include <string>
#include <string_view>

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

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    // A server error; what() is "message [SQLSTATE] (DETAIL; HINT)".
    explicit Error(ServerDiagnostics diagnostics);

    ErrorKind kind() const noexcept { return kind_; }
    // Empty unless kind() is server.
    const std::string& sqlstate() const noexcept { return server_.sqlstate; }
    // The server's primary message alone (what() for other kinds).
    const std::string& server_message() const noexcept { return server_.message; }
    const ServerDiagnostics& diagnostics() const noexcept { return server_; }

private:
    ErrorKind kind_;
    ServerDiagnostics server_;
};

}  // namespace sluice::postgres
