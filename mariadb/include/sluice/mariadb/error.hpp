#pragma once
// The one exception type of the MariaDB client. Every failure says which
// layer noticed it (kind), and server errors carry the server's own code,
// SQLSTATE and message. It is a sluice::common::Error: part() "mariadb",
// and transient() says which failures a caller may retry (a lost or broken
// connection, a server shutting down or full).
#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/common/error.hpp"

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

class Error : public common::Error {
public:
    Error(ErrorKind kind, const std::string& message)
        : common::Error(message), kind_(kind) {}
    Error(std::uint16_t server_code, std::string sqlstate, const std::string& message)
        : common::Error(message),
          kind_(ErrorKind::server),
          server_code_(server_code),
          sqlstate_(std::move(sqlstate)) {}

    ErrorKind kind() const noexcept { return kind_; }
    std::uint16_t server_code() const noexcept { return server_code_; }
    const std::string& sqlstate() const noexcept { return sqlstate_; }

    std::string_view part() const noexcept override { return "mariadb"; }
    std::string_view kind_name() const noexcept override { return to_string(kind_); }
    // A lost, timed-out or broken connection; of the server's errors, a
    // shutdown in progress (1053), a connection killed (1927) and too many
    // connections (1040). Everything else (credentials, privileges, a
    // malformed packet, a usage error) fails the same way again.
    bool transient() const noexcept override {
        switch (kind_) {
            case ErrorKind::io:
            case ErrorKind::timeout:
            case ErrorKind::closed:
            case ErrorKind::broken: return true;
            case ErrorKind::server: return server_code_ == 1053 || server_code_ == 1927 || server_code_ == 1040;
            default: return false;
        }
    }
    // "message (server error N, SQLSTATE S)" for a server error, else
    // "message (kind)".
    std::string describe() const override {
        if (kind_ != ErrorKind::server) return common::Error::describe();
        return std::string(what()) + " (server error " + std::to_string(server_code_) + ", SQLSTATE " + sqlstate_ +
               ")";
    }

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
