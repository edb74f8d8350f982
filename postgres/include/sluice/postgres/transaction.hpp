#pragma once
// A transaction as a scope: BEGIN on construction, ROLLBACK on destruction
// unless commit() succeeded.
//
//   Transaction tx(conn);
//   conn.execute(upsert, {...});
//   tx.commit();
#include "sluice/postgres/connection.hpp"

namespace sluice::postgres {

class Transaction {
public:
    explicit Transaction(Connection& connection);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;

    // COMMIT; a server error (e.g. a deferred constraint, or a transaction
    // already aborted by an earlier error) is thrown after the server ended
    // the transaction.
    void commit();
    // ROLLBACK now (the destructor does nothing afterwards).
    void rollback();
    bool open() const noexcept { return open_; }

private:
    Connection& connection_;
    bool open_ = true;
};

}  // namespace sluice::postgres
