#pragma once
// Text batches, the same-build alternative to native bulk: many rows in one
// multi-row INSERT (or many statements in one COM_QUERY), with values
// written as SQL literals.
//
//   InsertBatch batch(conn, "INSERT INTO t (id, name) VALUES");
//   for (...) batch.add(id, name);     // sent whenever the text reaches the limit
//   OkInfo total = batch.finish();     // sends the rest; affected rows summed
//
// Escaping follows the server, not a guess: string literals are escaped for
// the NO_BACKSLASH_ESCAPES status the server reported in its last OK or EOF
// (SERVER_STATUS_NO_BACKSLASH_ESCAPES). Without it, \ ' " NUL \n \r and
// Ctrl-Z are backslash-escaped; with it, only ' is doubled and every other
// byte (backslash and NUL included) goes as is. The connection's character
// set is utf8mb4, where no byte of a multibyte character is ASCII, so
// bytewise escaping cannot split a character. Bytes (blobs) go as X'hex'.
// Rows are escaped when added; if a statement on the connection flips
// NO_BACKSLASH_ESCAPES before they are sent, the next add() or flush()
// throws Error{usage} and drops them rather than send text that now means
// something else.
// A NaN or infinite double has no literal: Error{usage}.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sluice/mariadb/connection.hpp"
#include "sluice/mariadb/protocol/commands.hpp"
#include "sluice/mariadb/statement.hpp"

namespace sluice::mariadb {

// Appends `text` as a quoted string literal.
void append_string_literal(std::string& out, std::string_view text, bool no_backslash_escapes);
// Appends a bound value (see bind::value) as a SQL literal.
void append_literal(std::string& out, const protocol::ParamValue& value, bool no_backslash_escapes);
// Whether the server's last reported status has NO_BACKSLASH_ESCAPES.
bool no_backslash_escapes(Connection& conn);

class InsertBatch {
public:
    // prefix: the statement up to the rows, e.g. "INSERT INTO t (a, b) VALUES".
    // max_statement_bytes: the text is sent when it would grow past this
    // (keep it under max_allowed_packet).
    InsertBatch(Connection& conn, std::string prefix, std::size_t max_statement_bytes = 4u << 20);

    template <class... Args>
    void add(const Args&... args) {
        const protocol::ParamValue values[] = {bind::value(args)...};
        add_values(values);
    }
    void add_values(std::span<const protocol::ParamValue> values);
    // Sends what is pending (if anything); returns the totals so far.
    const OkInfo& flush();
    // flush(), then the totals: affected rows summed, the first insert id.
    const OkInfo& finish() { return flush(); }
    std::size_t statements_sent() const noexcept { return statements_; }

private:
    Connection& conn_;
    std::string prefix_;
    std::size_t max_bytes_;
    std::string text_;
    std::string row_;
    std::size_t pending_rows_ = 0;
    bool pending_no_backslash_ = false;
    std::size_t statements_ = 0;
    OkInfo total_;
};

// Runs the statements as one multi-statement COM_QUERY (joined with ";"),
// reads every result, and returns affected rows summed and the first insert
// id. The first failing statement throws its Error{server}; the server runs
// none after it.
OkInfo execute_batch(Connection& conn, std::span<const std::string> statements);

}  // namespace sluice::mariadb
