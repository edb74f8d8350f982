#pragma once
// The libpq objects behind Result and Connection (kept out of the public
// headers so that users of the layer need not include libpq-fe.h).
#include <libpq-fe.h>

#include <functional>
#include <memory>

#include "sluice/postgres/connection.hpp"
#include "sluice/postgres/result.hpp"

namespace sluice::postgres {

struct ResultClear {
    void operator()(PGresult* r) const { PQclear(r); }
};
using ResultPtr = std::unique_ptr<PGresult, ResultClear>;

struct Result::Handle {
    ResultPtr result;
    std::shared_ptr<const std::vector<Column>> columns;
};

struct Connection::Session {
    PGconn* conn = nullptr;
    std::uint64_t serial = 0;          // tells Statements of different connections apart
    std::uint64_t prepared = 0;        // prepare() calls, also the next statement name
    std::function<void(const ServerDiagnostics&)> notice_handler;
    bool custom_notices = false;

    ~Session() {
        if (conn != nullptr) PQfinish(conn);
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
