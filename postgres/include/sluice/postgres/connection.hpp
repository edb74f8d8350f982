#pragma once
// One session with a PostgreSQL server, over libpq.
//
//   auto conn = Connection::from_environment();          // $DATABASE_URL or PG*
//   Statement s = conn.prepare("select id, score from users where id >= $1");
//   for (Row r : conn.execute(s, {min_id}))              // binary results
//       use(r.get<std::int64_t>(0), r.get<std::optional<double>>(1));
//
// Every failure is sluice::postgres::Error (error.hpp). A Connection is not
// thread-safe; use one per thread. Statements are prepared once and executed
// many times; parameters are always bound, never pasted into the SQL.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sluice/postgres/cancel.hpp"
#include "sluice/postgres/error.hpp"
#include "sluice/postgres/param.hpp"
#include "sluice/postgres/result.hpp"
#include "sluice/postgres/row_stream.hpp"
#include "sluice/postgres/statement.hpp"

namespace sluice::postgres {

class CopyIn;

class Connection {
public:
    // `conninfo` is a postgresql:// URL or libpq key=value string; an empty
    // one uses libpq's defaults (the PG* variables). Error{connection} names
    // the host, port and database (never the password) and libpq's reason.
    static Connection open(const std::string& conninfo);
    // `url` when given and not empty, else $DATABASE_URL when set and not
    // empty, else the PG* variables (see resolve_conninfo).
    static Connection from_environment(const std::optional<std::string>& url = std::nullopt);

    Connection(Connection&&) noexcept;
    Connection& operator=(Connection&&) noexcept;
    ~Connection();

    // Runs a script of one or more statements without parameters
    // (simple query protocol); results are discarded.
    void run_script(const std::string& sql);
    // Runs one statement with bound parameters without preparing it
    // (an unnamed statement); text results by default, so every type reads.
    Result query(const std::string& sql, const std::vector<Param>& params = {},
                 Format format = Format::text);

    // Prepares `sql` once (a new server-side name) and describes it.
    // `param_types` may fix the types of the first parameters (0 = infer).
    Statement prepare(const std::string& sql, const std::vector<Oid>& param_types = {});
    // Describes `sql` without keeping it: parameter types and result
    // columns, or the server's error (Error{server}, with its position).
    // `param_types` may fix the types of the first parameters, as in prepare().
    Statement describe(const std::string& sql, const std::vector<Oid>& param_types = {});
    // Executes a prepared statement. Each parameter is encoded for the type
    // the server gave its $n: binary for int2/int4/int8, float8, bool and
    // bytea (an int out of an int2/int4 range is Error{conversion}),
    // otherwise as text for the server to parse. `params` is read during
    // the call only (a vector, an array, or a braced list).
    Result execute(const Statement& statement, std::span<const Param> params = {}, Format format = Format::binary);
    Result execute(const Statement& statement, std::initializer_list<Param> params, Format format = Format::binary) {
        return execute(statement, std::span<const Param>(params.begin(), params.size()), format);
    }
    // Executes a prepared statement and hands each row to `on_row` as it
    // arrives (libpq single-row mode): memory stays bounded for any result
    // size. No other statement may run on this connection until it returns.
    // Returns the number of rows.
    std::uint64_t stream(const Statement& statement, const std::vector<Param>& params,
                         const std::function<void(const Row&)>& on_row, Format format = Format::binary);
    // The same, with the caller pulling the rows (row_stream.hpp): for
    // loops that must keep their own control flow.
    RowStream open_stream(const Statement& statement, std::span<const Param> params = {},
                          Format format = Format::binary);
    RowStream open_stream(const Statement& statement, std::initializer_list<Param> params,
                          Format format = Format::binary) {
        return open_stream(statement, std::span<const Param>(params.begin(), params.size()), format);
    }
    // A request that cancels whatever this connection runs when sent
    // (cancel.hpp); made once, sendable from a signal handler.
    CancelRequest cancel_request() const;
    // Whether a transaction block is open (BEGIN without COMMIT/ROLLBACK yet,
    // also one an error aborted).
    bool in_transaction() const;
    // Without sending anything or waiting: Error{connection} when the
    // server has ended this idle connection (closed it, or sent the FATAL
    // of a shutdown or a pg_terminate_backend), which a client otherwise
    // hears of only at its next statement. A server gone without a word
    // (the network between cut) is not noticed. Call only between
    // statements.
    void check_not_ended();

    // Starts `COPY table (cols) FROM STDIN` (text format); see copy.hpp.
    CopyIn copy_in(const std::string& copy_sql);

    // Notices and warnings the server sends (default: libpq prints them to
    // stderr). An empty function discards them.
    void set_notice_handler(std::function<void(const ServerDiagnostics&)> handler);

    // "user@host:port/database" (for messages; no password).
    std::string target() const;
    // How many statements this connection has prepared (prepare() calls).
    std::uint64_t prepared_count() const noexcept;
    // The server's version as an integer, e.g. 150020.
    int server_version() const;

private:
    friend class CopyIn;
    struct Session;
    explicit Connection(std::unique_ptr<Session> session);
    Statement prepare_named(const std::string& name, const std::string& sql,
                            const std::vector<Oid>& param_types);
    // Error{usage} while a RowStream of this connection is open.
    void require_no_stream(const char* what) const;

    std::unique_ptr<Session> session_;
};

// The conninfo from_environment() uses: `url` if not empty, else
// `database_url` (the value of $DATABASE_URL) if not empty, else "" (libpq
// then reads PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, ...).
std::string resolve_conninfo(const std::optional<std::string>& url,
                             const std::optional<std::string>& database_url);

}  // namespace sluice::postgres
