#include "sluice/postgres/transaction.hpp"

namespace sluice::postgres {

Transaction::Transaction(Connection& connection) : connection_(connection) { connection_.run_script("BEGIN"); }

Transaction::~Transaction() {
    if (!open_) return;
    try {
        connection_.run_script("ROLLBACK");
    } catch (const Error&) {
        // The connection is gone; the server rolls back on its own.
    }
}

void Transaction::commit() {
    if (!open_) throw Error(ErrorKind::usage, "transaction already ended");
    open_ = false;
    // COMMIT of a transaction an earlier error aborted "succeeds" with the
    // tag ROLLBACK: that is a failure for whoever wanted the rows kept.
    if (connection_.query("COMMIT").command_tag() == "ROLLBACK")
        throw Error(ServerDiagnostics{"25P02", "COMMIT rolled back: an earlier error aborted the transaction", "",
                                      "", "", 0});
}

void Transaction::rollback() {
    if (!open_) throw Error(ErrorKind::usage, "transaction already ended");
    open_ = false;
    connection_.run_script("ROLLBACK");
}

}  // namespace sluice::postgres
