#pragma once
// The libpq objects behind Connection and RowStream (kept out of the public
// headers so that users of the layer need not include libpq-fe.h).
#include <libpq-fe.h>

#include <functional>
#include <memory>
#include <optional>

#include "sluice/postgres/connection.hpp"
#include "sluice/postgres/result.hpp"

namespace sluice::postgres {

struct ResultClear {
    void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultClear>;

struct Connection::Session {
    PGconn* conn = nullptr;
    std::uint64_t serial = 0;          // tells Statements of different connections apart
    std::uint64_t prepared = 0;        // prepare() calls, also the next statement name
    std::function<void(const ServerDiagnostics&)> notice_handler;
    bool custom_notices = false;
    bool streaming = false;            // a RowStream is open: nothing else may run

    ~Session() {
        if (conn != nullptr) PQfinish(conn);
    }
};

// An open RowStream: the connection it reads and the current single-row result.
struct RowStream::State {
    PGconn* conn = nullptr;
    bool* streaming = nullptr;  // the session's flag: no other statement meanwhile
    std::shared_ptr<const std::vector<Column>> columns;
    Format format = Format::binary;
    std::optional<Result> current;  // the single-row result the current Row reads
    std::optional<Row> row;
    std::uint64_t rows = 0;
    bool open = true;
    ResultPtr failure;

    void end() {
        open = false;
        *streaming = false;
    }
};

namespace detail {
// The diagnostics of a failed (or notice) result.
ServerDiagnostics diagnostics_of(const PGresult* result);
// Throws the error a failed result (or a missing one) stands for.
[[noreturn]] void throw_failure(PGconn* conn, const PGresult* result, const std::string& context);
std::vector<Column> columns_of(const PGresult* result);
}  // namespace detail

}  // namespace sluice::postgres
