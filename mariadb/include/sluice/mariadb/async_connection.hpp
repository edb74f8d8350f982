#pragma once
// A MariaDB connection for any event loop: the same exchanges as the
// blocking Connection (exchange/), driven by readiness instead of blocking
// reads. Nothing in it waits: an operation is started, then the loop asks
// which descriptor and events it waits for and until when, and tells it
// when they are ready (or the deadline passed):
//
//   AsyncConnection conn;
//   conn.start_connect(options);
//   while (conn.busy()) {
//       poll_for(conn.fd(), conn.wants(), conn.deadline());   // your loop
//       if (deadline passed) conn.on_deadline(); else conn.on_ready();
//   }
//   conn.finish();                          // throws the operation's Error, if any
//   conn.start_query("SELECT 1"); ... ResultSet rs = conn.take_result();
//
// Results are the blocking API's types: a query or a statement's execute
// ends with the whole response read (all its results), and take_result()
// gives a ResultSet that walks it without further I/O; prepare gives a
// Statement (execute it with start_execute). A ResultSet or Row is valid
// until the next operation starts. Errors are the blocking API's, with the
// same failure model (a server error leaves the connection usable, anything
// else breaks it). deadline() is the transport's (Timeouts: connect, then
// read/write per packet); passing it breaks the connection with
// Error{timeout}. A statement deadline that keeps the connection (KILL QUERY
// from a side connection) is the front end's: see asio_connection.hpp, or
// run "KILL QUERY <connection_id()>" on a second AsyncConnection.
//
// ConnectOptions::compress gives the compressed protocol as on the blocking
// Connection (zlib, frames of compress_threshold bytes and up deflated).
// LOCAL INFILE requests are refused (Error{usage}, as a blocking query
// without an upload source). A host name is looked up on a thread of its
// own (getaddrinfo blocks): until it is done, fd() is an eventfd that turns
// readable then, under the connect timeout; numeric addresses and unix
// sockets are resolved at once. fd() may change from one wait to the next
// (the lookup's eventfd, each address tried, the connected socket): a loop
// re-reads it every time. One operation at a time; not thread-safe.
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/pipeline.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/statement.hpp"
#include "sluice/mariadb/transport/deadline.hpp"

namespace sluice::mariadb {

class AsyncPipeline;

class AsyncConnection {
public:
    // What the connection waits for on fd().
    enum Events : unsigned { none = 0, readable = 1, writable = 2 };

    AsyncConnection();
    AsyncConnection(AsyncConnection&&) noexcept;
    AsyncConnection& operator=(AsyncConnection&&) noexcept;
    AsyncConnection(const AsyncConnection&) = delete;
    AsyncConnection& operator=(const AsyncConnection&) = delete;
    // Closes the socket (COM_QUIT only through start_close()).
    ~AsyncConnection();

    // Operations. Error{usage} when one is already under way.
    void start_connect(const ConnectOptions& options);
    void start_query(std::string_view sql);
    void start_prepare(std::string_view sql);
    void start_execute(const Statement& statement, std::span<const protocol::ParamValue> values);
    void start_ping();
    void start_reset_session();
    // Runs the steps queued in `pipeline` (async_pipeline.hpp): their
    // handlers are called from inside the operation; the summary is
    // take_pipeline_summary()'s.
    void start_pipeline(AsyncPipeline& pipeline);
    // COM_QUIT, then the socket is closed; the connection is broken after.
    void start_close();

    // Driving.
    bool busy() const noexcept;
    int fd() const noexcept;            // -1 when there is nothing to wait on
    unsigned wants() const noexcept;    // Events; none when not busy
    Deadline deadline() const noexcept; // Deadline::max() when none
    // The descriptor is ready for (some of) wants(); safe to call anytime:
    // it goes as far as it can without waiting.
    void on_ready();
    // Completion-style loops (asio's async_read_some, io_uring) may do the
    // read themselves: while readable_into() is not empty (the connection
    // waits to read, over plain TCP or a unix socket, not TLS), read into
    // it and report the bytes with on_received(n) (0: the peer closed), or
    // a failed read with on_read_error(errno).
    std::span<std::uint8_t> readable_into();
    void on_received(std::size_t n);
    void on_read_error(int error_number);
    // The loop saw deadline() pass: the operation fails with Error{timeout}
    // and the connection breaks (nothing happens if it has not passed).
    void on_deadline();
    // Gives up on the operation under way: it fails with `error` and the
    // connection breaks (the stream position is lost). For a loop shutting
    // down or a server that will not answer.
    void abort(const std::string& reason);

    // Outcomes, once busy() is false. Each throws the operation's Error if
    // it failed (once; later calls do not rethrow it).
    void finish();
    ResultSet take_result();     // start_query / start_execute
    Statement take_statement();  // start_prepare
    PipelineSummary take_pipeline_summary();  // start_pipeline
    // The server error code a query's or execute's response ended with
    // (also when the ERR came after rows, where ResultSet::next() throws
    // it), 0 when none: front ends see a KILL QUERY's 1317 before handing
    // out a partial result.
    std::uint16_t response_error_code() const noexcept;

    // Forgets a statement of this connection without COM_STMT_CLOSE: after
    // start_reset_session() the server already dropped it, and its id may
    // be given to a statement prepared later (a pool's return does this).
    void forget_statement(Statement& statement) noexcept;

    bool broken() const noexcept;
    bool is_tls() const noexcept;
    bool is_compressed() const noexcept;
    std::uint32_t connection_id() const noexcept;
    std::string_view server_version() const noexcept;
    std::uint64_t capabilities() const noexcept;
    const ConnectOptions& options() const;

private:
    friend class AsyncPipeline;  // binds itself to the connection's session
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace sluice::mariadb
