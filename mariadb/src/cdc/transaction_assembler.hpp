#pragma once
// Sans-I/O grouping of decoded binlog events into what a change stream
// delivers: an event group opens at GTID and completes at XID, at a COMMIT
// query, or (standalone groups) at its one statement. The position advances
// only when a group completes, never at its GTID; a group that ends with
// ROLLBACK (non-transactional tables mixed in) delivers nothing.
//
// XA: the rows of an XA PREPARE group are held until the XA COMMIT group
// that names the same xid and delivered with that group's GTID; XA ROLLBACK
// drops them. (Held rows live in memory only: see docs/mariadb-cdc.md.)
#include <map>
#include <optional>
#include <string>

#include "sluice/mariadb/binlog/decoder.hpp"
#include "sluice/mariadb/cdc/change_events.hpp"
#include "sluice/mariadb/cdc/table_filter.hpp"

namespace sluice::mariadb::cdc::detail {

class TransactionAssembler {
public:
    enum class Outcome {
        none,         // inside a group, or an event outside groups
        transaction,  // take_transaction()
        ddl,          // take_ddl()
        skipped,      // a group completed with nothing to deliver (filtered, rolled back, empty)
    };

    TransactionAssembler(TableFilter filter, GtidState start);

    Outcome feed(const binlog::Event& event);
    Transaction take_transaction() { return std::move(txn_); }
    Ddl take_ddl() { return std::move(ddl_); }

    // After the last complete group.
    const GtidState& position() const noexcept { return position_; }
    bool in_group() const noexcept { return open_; }
    // Forgets a group cut off by a lost connection (it is read again).
    void drop_partial_group();

private:
    Outcome complete(bool deliver, std::uint32_t timestamp);
    Outcome on_query(const binlog::EventHeader& h, const binlog::Query& q);

    TableFilter filter_;
    GtidState position_;
    bool open_ = false;
    binlog::Gtid gtid_;
    std::string xa_gtrid_, xa_bqual_;  // owned copies gtid_.xa_xid views
    GtidPosition group_gtid_;
    Transaction txn_;
    Ddl ddl_;
    std::map<std::string, Transaction> prepared_xa_;  // by "gtrid/bqual/format" key
};

}  // namespace sluice::mariadb::cdc::detail
