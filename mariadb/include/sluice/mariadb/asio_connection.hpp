#pragma once
// The asio front end of AsyncConnection: C++20 coroutines on any asio
// executor (Debian's standalone libasio-dev), returning the blocking API's
// result types; TLS and the compressed protocol as ConnectOptions ask.
//
//   asio::awaitable<void> work(asio::any_io_executor ex, ConnectOptions o) {
//       AsioConnection conn = co_await AsioConnection::connect(ex, o);
//       Statement stmt = co_await conn.async_prepare("SELECT name FROM t WHERE id = ?");
//       ResultSet rs = co_await conn.async_execute(stmt, 42);
//       for (const Row& row : rs) use(row.get<std::string_view>(0));
//       OkInfo ok = co_await conn.async_execute("UPDATE t SET n = n + 1");
//       ResultSet slow = co_await conn.with_deadline(500ms).async_query("SELECT SLEEP(10)");  // Error{timeout}
//   }
//
// Many connections run on one thread: each operation waits on its socket
// through the executor's reactor. A ResultSet holds its whole response
// (read before the co_await returns) and stays valid until the next
// operation on its connection.
//
// Deadlines and cancellation keep the connection: when a deadline given
// with with_deadline() passes, or cancel() is called, KILL QUERY is sent
// from a side connection (opened then, on the same executor, with the same
// options), and the operation ends with the server's answer:
// Error{timeout} for a deadline (as with_deadline of cancel.hpp),
// Error{server} 1317 (ER_QUERY_INTERRUPTED) for cancel(). The transport's
// own deadlines (ConnectOptions::timeouts) still bound every wait and break
// the connection when they pass, e.g. when the server vanished.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/mariadb/async_connection.hpp"
#include "sluice/mariadb/async_pipeline.hpp"
#include "sluice/mariadb/connect_options.hpp"
#include "sluice/mariadb/result_set.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

class AsioConnection {
public:
    static asio::awaitable<AsioConnection> connect(asio::any_io_executor executor, ConnectOptions options);

    AsioConnection(AsioConnection&&) noexcept;
    AsioConnection& operator=(AsioConnection&&) noexcept;
    ~AsioConnection();

    // The operations; `deadline` zero means none (see the top comment).
    asio::awaitable<ResultSet> async_query(std::string sql, std::chrono::milliseconds deadline = {});
    // Every result read; the last one's OK (as Connection::execute).
    asio::awaitable<OkInfo> async_execute(std::string sql, std::chrono::milliseconds deadline = {});
    asio::awaitable<Statement> async_prepare(std::string sql);
    // Binds args as Statement::execute does; they must live until the
    // co_await returns (temporaries in the co_await expression do).
    template <class... Args>
    asio::awaitable<ResultSet> async_execute(Statement& statement, const Args&... args) {
        return async_execute_values(statement, {bind::value(args)...}, {});
    }
    asio::awaitable<ResultSet> async_execute_values(Statement& statement, std::vector<protocol::ParamValue> values,
                                                    std::chrono::milliseconds deadline);
    asio::awaitable<void> async_ping();
    asio::awaitable<void> async_reset_session();
    // Runs the steps queued in `pipeline` (async_pipeline.hpp; build it on
    // async_connection()): handlers run before the co_await returns the
    // summary. cancel() kills the statement under way (that step fails
    // with 1317, the others run).
    asio::awaitable<PipelineSummary> async_pipeline(AsyncPipeline& pipeline);
    // COM_QUIT and close; the connection is broken afterwards.
    asio::awaitable<void> async_close();

    // The same operations under a deadline:
    //   co_await conn.with_deadline(500ms).async_execute(stmt, 1, 2);
    class WithDeadline {
    public:
        asio::awaitable<ResultSet> async_query(std::string sql) { return c_.async_query(std::move(sql), d_); }
        asio::awaitable<OkInfo> async_execute(std::string sql) { return c_.async_execute(std::move(sql), d_); }
        template <class... Args>
        asio::awaitable<ResultSet> async_execute(Statement& statement, const Args&... args) {
            return c_.async_execute_values(statement, {bind::value(args)...}, d_);
        }

    private:
        friend class AsioConnection;
        WithDeadline(AsioConnection& c, std::chrono::milliseconds d) : c_(c), d_(d) {}
        AsioConnection& c_;
        std::chrono::milliseconds d_;
    };
    WithDeadline with_deadline(std::chrono::milliseconds deadline) { return WithDeadline(*this, deadline); }

    // Cancels the operation under way with KILL QUERY (see the top
    // comment); nothing when none is.
    void cancel();

    bool broken() const noexcept;
    bool is_tls() const noexcept;
    bool is_compressed() const noexcept;
    std::uint32_t connection_id() const noexcept;
    // Why the last KILL QUERY could not be sent (empty when it was).
    std::string kill_error() const;
    // The event-loop-agnostic connection underneath.
    AsyncConnection& async_connection();

private:
    struct State;
    explicit AsioConnection(std::shared_ptr<State> state) noexcept;
    State& st() const;  // Error{usage} when moved from
    std::shared_ptr<State> state_;
};

}  // namespace sluice::mariadb
