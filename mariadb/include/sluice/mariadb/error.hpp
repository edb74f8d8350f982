#pragma once
// The one exception type of the MariaDB client. Every failure says which
// layer noticed it (kind), and server errors carry the server's own code,
// SQLSTATE and message.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sluice::mariadb {

enum class ErrorKind {
    io,          // socket error (connect refused, reset, ...)
    timeout,     // a deadline passed (connect, read or write)
    closed,      // the peer closed the connection
    tls,         // TLS negotiation or certificate verification failed
    protocol,    // malformed, truncated or unexpected bytes from the server
    auth,        // client-side auth failure (unknown plugin, refused cleartext, GSSAPI)
    server,      // an ERR packet: see server_code() and sqlstate()
    usage,       // the caller asked for something invalid (bad URL, bad index, ...)
    conversion,  // a value does not fit the requested C++ type
    broken,      // the connection was marked broken by an earlier failure
};

std::string_view to_string(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message)
        : std::runtime_error(message), kind_(kind) {}
    Error(std::uint16_t server_code, std::string sqlstate, const std::string& message)
        : std::runtime_error(message),
          kind_(ErrorKind::server),
          server_code_(server_code),
          sqlstate_(std::move(sqlstate)) {}

    ErrorKind kind() const noexcept { return kind_; }
    std::uint16_t server_code() const noexcept { return server_code_; }
    const std::string& sqlstate() const noexcept { return sqlstate_; }

private:
    ErrorKind kind_;
    std::uint16_t server_code_ = 0;
    std::string sqlstate_;
};

inline std::string_view to_string(ErrorKind kind) noexcept {
    switch (kind) {
        case ErrorKind::io: return "io";
        case ErrorKind::timeout: return "timeout";
        case ErrorKind::closed: return "closed";
        case ErrorKind::tls: return "tls";
        case ErrorKind::protocol: return "protocol";
        case ErrorKind::auth: return "auth";
        case ErrorKind::server: return "server";
        case ErrorKind::usage: return "usage";
        case ErrorKind::conversion: return "conversion";
        case ErrorKind::broken: return "broken";
    }
    return "unknown";
}

}  // namespace sluice::mariadb
