#pragma once
// The end-to-end tests' view of a session, over the project's libpq layer
// (sluice::postgres): run SQL with bound text parameters, read rows as
// optional strings (NULL is nullopt, every type in its text form), and
// capture a server error's SQLSTATE and message instead of throwing it away.
#include "sluice/postgres/connection.hpp"

#include <optional>
#include <string>
#include <vector>

namespace keal::e2e {

using Value = std::optional<std::string>;
using Row = std::vector<Value>;
using Rows = std::vector<Row>;

// What the server said when a statement failed.
struct ServerError {
    std::string sqlstate;  // e.g. "22003"
    std::string message;   // the primary message
    std::string detail;    // DETAIL/HINT/CONTEXT joined, for diagnostics
};

class PgConnection {
public:
    // Connects to `url` (a postgresql:// URL); throws sluice::postgres::Error
    // naming the target when that fails. Notices are discarded.
    explicit PgConnection(const std::string& url);

    // Runs `sql` with `params` bound as text ($1, $2, ...); throws
    // sluice::postgres::Error carrying the SQLSTATE and message on failure.
    Rows query(const std::string& sql, const std::vector<Value>& params = {});
    // The single value of a one-row, one-column result.
    Value scalar(const std::string& sql, const std::vector<Value>& params = {});
    // Runs one or more statements without parameters.
    void exec(const std::string& sql);
    // Runs `sql`, which must fail: returns the error; throws if it succeeded.
    ServerError expect_error(const std::string& sql, const std::vector<Value>& params = {});

    sluice::postgres::Connection& connection() { return conn_; }

private:
    sluice::postgres::Connection conn_;
};

// Quotes `s` as a SQL string literal (standard_conforming_strings is on).
std::string sql_literal(const std::string& s);

}  // namespace keal::e2e
