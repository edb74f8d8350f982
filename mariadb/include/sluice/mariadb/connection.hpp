#pragma once
// A connection to a MariaDB server: handshake, TLS, authentication, then
// text queries, prepared statements and session commands.
//
// Failure model: a server error (Error{server}) leaves the connection
// usable. Any other failure while talking to the server (I/O, timeout, TLS,
// malformed bytes) or a fatal server error (the connection was KILLed, the
// server shuts down) marks the connection broken: the stream position is
// unknown, so every later call throws Error{broken}. Reconnect to go on.
//
// Not thread-safe: one thread at a time per Connection.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

namespace exchange {
struct LocalInfileSource;
}
class Connection;
namespace detail {
class ExclusiveConnection;
// LOAD DATA LOCAL INFILE from `source` (src/client/upload.cpp, behind upload()).
OkInfo run_upload(Connection& conn, std::string_view sql, exchange::LocalInfileSource& source);
}  // namespace detail
class Pipeline;

class Connection {
public:
    // Connects and logs in, then runs options.init_commands. Throws Error.
    static Connection connect(const ConnectOptions& options);
    static Connection connect(std::string_view url) { return connect(parse_url(url)); }

    Connection(Connection&&) noexcept;
    Connection& operator=(Connection&&) noexcept;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    // Sends COM_QUIT when idle (best effort) and closes the socket.
    ~Connection();

    // COM_QUERY. Several statements separated by ';' give several results.
    ResultSet query(std::string_view sql);
    // query() with every result read and discarded; the last result's OK.
    OkInfo execute(std::string_view sql);
    // COM_STMT_PREPARE.
    Statement prepare(std::string_view sql);

    void ping();                                 // COM_PING
    void select_database(std::string_view db);   // COM_INIT_DB
    // COM_RESET_CONNECTION: rolls back, drops temporary tables, user
    // variables and prepared statements (existing Statement objects become
    // invalid on the server), resets session variables.
    void reset_session();
    // COM_QUIT and close. Idempotent; the object is broken afterwards.
    void close() noexcept;

    bool broken() const noexcept;
    bool is_tls() const noexcept;
    bool is_compressed() const noexcept;
    std::uint32_t connection_id() const noexcept;
    std::string_view server_version() const noexcept;
    std::uint64_t capabilities() const noexcept;  // as negotiated
    // The server status flags of its last reply (protocol::status::...:
    // in a transaction, autocommit, NO_BACKSLASH_ESCAPES, ...); 0 when
    // moved from.
    std::uint16_t server_status() const noexcept;
    // The socket's file descriptor, for poll/epoll (-1 when closed, broken
    // or moved from). Readable while no command runs means the server
    // closed the connection (the pool's idle check). Not for reading or
    // writing: the connection owns the stream (and its TLS state).
    int native_handle() const noexcept;
    std::string tls_version() const;
    // True when the TLS handshake resumed a session kept from an earlier
    // connection (ConnectOptions::tls_session_reuse).
    bool tls_session_reused() const noexcept;

private:
    // Who else runs commands on the session, each in its own file. The
    // whole list: the rest of the library goes through the public API.
    friend class Pipeline;  // src/client/command_pipeline.cpp
    // A connection given over to one exchange, the binlog dump (src/client/exclusive_connection.hpp).
    friend class detail::ExclusiveConnection;
    friend OkInfo detail::run_upload(Connection&, std::string_view, exchange::LocalInfileSource&);  // upload.cpp
    explicit Connection(std::unique_ptr<detail::Session> session) noexcept;
    detail::Session& session();  // Error{usage} when moved from
    std::unique_ptr<detail::Session> session_;
};

}  // namespace sluice::mariadb
